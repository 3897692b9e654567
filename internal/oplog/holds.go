package oplog

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/pathenc"
)

// Holds reports, for each recorded change of op, whether its before or
// after value holds now ("before", "after", "neither").
type Holds struct {
	What string
	Now  string
}

// compare lists, for each change, what holds now.
func (l *Log) compare(ctx context.Context, op *Op, pending bool) ([]Holds, error) {
	return l.compareWith(ctx, op, pending, nil)
}

func (l *Log) compareWith(ctx context.Context, op *Op, pending bool, now *current) ([]Holds, error) {
	var out []Holds
	if now == nil {
		refs, head, err := l.Repo.RefsAndHead(ctx, refPrefixes...)
		if err != nil {
			return nil, err
		}
		now = &current{refs: refs, head: head}
	}
	cur, head := now.refs, now.head
	which := func(now, old, new string, pending bool) string {
		switch {
		case !pending && now == new:
			return "after"
		case now == old:
			return "before"
		}
		return "neither"
	}
	for _, r := range op.Refs {
		now := cur[r.Name]
		if r.Name == "HEAD" {
			now = head
		}
		out = append(out, Holds{What: "ref " + r.Name, Now: which(now, r.Old, r.New, pending)})
	}
	for _, j := range op.Journals {
		b, err := journal.ReadAppendable(filepath.Join(l.Repo.WorkTree, j.File))
		if j.Delta.Unnamed(j) {
			h := "neither"
			switch {
			case err != nil:
			case !pending && j.Delta.holds(b, true):
				h = "after"
			case j.Delta.holds(b, false):
				h = "before"
			}
			out = append(out, Holds{What: "journal " + j.File, Now: h})
			continue
		}
		now := ""
		if err == nil {
			now = l.Repo.BlobID(b)
		}
		out = append(out, Holds{What: "journal " + j.File, Now: which(now, j.Old, j.New, pending)})
	}
	if op.Index != nil && op.Index.Trees() {
		now := ""
		if ix, err := l.Repo.ReadIndexFile(); err == nil && ix.Plain {
			now, _ = l.indexTree(ctx, ix)
		}
		out = append(out, Holds{What: "index", Now: which(now, op.Index.OldTree, op.Index.NewTree, pending)})
	} else if op.Index != nil {
		now := ""
		if b, err := l.Repo.ReadIndexBytes(); err == nil && b != nil {
			now = l.Repo.BlobID(b)
		}
		out = append(out, Holds{What: "index", Now: which(now, op.Index.Old, op.Index.New, pending)})
	}
	var paths []string
	for _, f := range op.Files {
		paths = append(paths, f.RawPath())
	}
	nowFiles := map[string]*File{}
	if err := l.readFilesNoWrite(ctx, paths, nowFiles); err != nil {
		return nil, err
	}
	for _, f := range op.Files {
		n := nowFiles[f.RawPath()]
		h := "neither"
		switch {
		case !pending && sameFile(n, f.After):
			h = "after"
		case sameFile(n, f.Before):
			h = "before"
		}
		out = append(out, Holds{What: "file " + pathenc.Quote(f.RawPath()), Now: h})
	}
	return out, nil
}

// readFilesNoWrite is readFiles without writing blobs (ids computed
// here): a check changes nothing, not even the object store.
func (l *Log) readFilesNoWrite(ctx context.Context, paths []string, into map[string]*File) error {
	return l.readFilesWrite(ctx, paths, into, false)
}

// FileJudge tells, for an interrupted operation, where each work-tree file
// it was changing stands now ("before", "after", "both", "neither"), keyed
// by raw path: the command's own answer (git nudge recover's, for an
// apply or undo), so that every view of it says the same.
type FileJudge func(ctx context.Context) (map[string]string, error)

// Status reports what holds now for each change of op (op show of an
// interrupted operation). files, when set, answers for the work-tree
// files instead of the record's own values.
func (l *Log) Status(ctx context.Context, op *Op, files FileJudge) ([]Holds, error) {
	// An undo's pending record knows its after values (the inverse of
	// what it undoes): each is told as it holds.
	holds, err := l.compare(ctx, op, op.State == Pending && !undoLike(op))
	if err != nil || files == nil {
		return holds, err
	}
	judged, err := files(ctx)
	if err != nil || judged == nil {
		return holds, err
	}
	out := holds[:0:0]
	for _, h := range holds {
		if !strings.HasPrefix(h.What, "file ") {
			out = append(out, h)
		}
	}
	for _, p := range sortedKeys(judged) {
		out = append(out, Holds{What: "file " + pathenc.Quote(p), Now: judged[p]})
	}
	return out, nil
}

// Interrupted reports whether op is pending and its process is gone.
func Interrupted(op *Op, gone func(int) bool) bool {
	return op.State == Pending && (op.PID == 0 || gone(op.PID))
}

// current is the refs and HEAD read once.
type current struct {
	refs map[string]string
	head string
	// types are the objects the records name, looked up once.
	types map[string]string
	// later is laterTouches of each operation of one log read, by id.
	later map[string][]string
}
