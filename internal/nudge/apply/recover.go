package apply

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/nudge/patchfiles"
	"github.com/nudgethis/git-nudge/internal/pathenc"
	"github.com/nudgethis/git-nudge/internal/worktree"
)

// RecoverFile is one path of an interrupted task and where it stands.
type RecoverFile struct {
	Path string `json:"path"`
	// Matches is "before" (as before the apply), "after" (as the apply
	// leaves it), "both" (the two differ only in what core.fileMode
	// ignores) or "neither".
	Matches string          `json:"matches"`
	Now     string          `json:"now"` // what is there, in words
	Before  nudge.PathState `json:"before"`
	After   nudge.PathState `json:"after"`
}

// Recovery is the report of `git nudge recover ID`.
type Recovery struct {
	ID    string        `json:"id"`
	State string        `json:"state"`
	Error *string       `json:"error"`
	Files []RecoverFile `json:"files"`
	// Leftovers are temp files an interrupted write left next to the
	// patch's files; they hold nothing that is not in the object store.
	Leftovers []string `json:"leftovers"`
	Commands  []string `json:"commands"`
}

// Recover reports, for each path of task id's undo record, whether the
// work tree holds undo.before, undo.after or neither. It
// changes nothing: the record is kept as it is, whatever its state, and
// nothing is retried. Taking the lock first lets an interrupted apply or
// undo be recognised as such (applying -> recovery_required).
func Recover(ctx context.Context, w *nudge.Workspace, id string) (*Recovery, error) {
	lock, err := w.Lock(ctx, "git nudge recover "+id)
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	t, err := w.Load(id)
	if err != nil {
		return nil, err
	}
	return recovery(ctx, w, t)
}

// RecoverFiles is the per-file answer of Recover for task id, read without
// the workspace lock (op show of an interrupted apply or undo, which
// changes nothing): the same classification as recover and the
// dashboard's recovery view, so that the three never disagree.
func RecoverFiles(ctx context.Context, w *nudge.Workspace, id string) ([]RecoverFile, error) {
	t, err := w.Load(id)
	if err != nil {
		return nil, err
	}
	rep, err := recovery(ctx, w, t)
	if err != nil {
		return nil, err
	}
	return rep.Files, nil
}

// Matches is the one per-file answer for an interrupted apply or undo
// (recover, op show, the dashboard): which recorded version the work tree
// holds now, given whether it is the before and whether it is the after
// version.
func Matches(isBefore, isAfter bool) string {
	switch {
	case isAfter && isBefore:
		return "both"
	case isAfter:
		return "after"
	case isBefore:
		return "before"
	}
	return "neither"
}

// recovery is Recover's report for t, read as the files are now.
func recovery(ctx context.Context, w *nudge.Workspace, t *nudge.Task) (*Recovery, error) {
	id := t.ID
	if t.Undo == nil || len(t.Undo.Before) == 0 || len(t.Undo.Before) != len(t.Undo.After) {
		return nil, &nudge.RefusedError{
			What:    "nothing to recover for " + id,
			Reasons: []string{fmt.Sprintf("%s has no complete undo record (it is %s): no apply of it ever started writing files", id, nudge.StateLabel(t.State))},
			Next:    fmt.Sprintf("git nudge show %s shows the whole record.", id),
		}
	}
	ops, err := patchfiles.New(ctx, w)
	if err != nil {
		return nil, err
	}
	defer ops.Close()
	var before, after []nudge.PathState
	for i := range t.Undo.Before {
		b, a := t.Undo.Before[i], t.Undo.After[i]
		if worktree.ValidPath(b.Path) != nil || b.Path != a.Path {
			return nil, fmt.Errorf("the undo record of %s holds an unusable path %s; inspect it with git nudge show %s", id, pathenc.CQuote(b.Path), id)
		}
		before = append(before, b)
		after = append(after, a)
	}
	seenB, err := ops.Look(ctx, before)
	if err != nil {
		return nil, err
	}
	seenA, err := ops.Look(ctx, after)
	if err != nil {
		return nil, err
	}
	rep := &Recovery{ID: id, State: t.State, Error: t.Error, Files: []RecoverFile{}, Leftovers: []string{},
		Commands: []string{"git nudge show " + id, "git diff"}}
	dirs := map[string]bool{}
	for i := range before {
		m := Matches(ops.Judge(seenB[i], before[i]) == patchfiles.AsExpected, ops.Judge(seenA[i], after[i]) == patchfiles.AsExpected)
		rep.Files = append(rep.Files, RecoverFile{Path: before[i].Path, Matches: m, Now: nowText(seenA[i]), Before: before[i], After: after[i]})
		dir := ""
		for _, d := range patchfiles.LeadingDirs(before[i].Path) {
			dir = d
		}
		dirs[dir] = true
	}
	for d := range dirs {
		left, err := ops.Tree.Leftovers(d)
		if err != nil {
			return nil, err
		}
		rep.Leftovers = append(rep.Leftovers, left...)
	}
	sort.Strings(rep.Leftovers)
	return rep, nil
}

func nowText(s patchfiles.Seen) string {
	e := s.Entry
	switch {
	case e.Blocker != "":
		return fmt.Sprintf("unreachable: %s is a %s", nudge.QuotePath(e.Blocker), e.BlockerKind)
	case e.Kind == worktree.Absent:
		return "no file"
	case e.Kind == worktree.File:
		mode := nudge.ModeFile
		if e.Exec {
			mode = nudge.ModeExec
		}
		return fmt.Sprintf("file %s %s", mode, s.Blob)
	}
	return "a " + e.Kind.String()
}

// recoverFileWire is a RecoverFile whose before and after keep their
// paths' bytes too (the outer fields shadow the embedded ones and come
// after them, as in RecoverFile).
type recoverFileWire struct {
	recoverFileFields
	Before nudge.PathStateJSON `json:"before"`
	After  nudge.PathStateJSON `json:"after"`
}

type recoverFileFields RecoverFile

// MarshalJSON writes the paths as bytes survive JSON.
func (f RecoverFile) MarshalJSON() ([]byte, error) {
	v := recoverFileWire{recoverFileFields(f), nudge.PathStateJSON(f.Before), nudge.PathStateJSON(f.After)}
	return nudge.MarshalPath(&v, &v.Path)
}

// UnmarshalJSON reads the paths back, from path_b64 when present.
func (f *RecoverFile) UnmarshalJSON(data []byte) error {
	var v recoverFileWire
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	b64, err := nudge.PathB64(data)
	if err != nil {
		return err
	}
	*f = RecoverFile(v.recoverFileFields)
	f.Before, f.After = nudge.PathState(v.Before), nudge.PathState(v.After)
	f.Path, err = pathenc.Decode(f.Path, b64)
	return err
}

// MarshalJSON writes the report; leftovers that are not valid UTF-8 also
// go into leftovers_b64 (see pathenc.EncodeList).
func (r Recovery) MarshalJSON() ([]byte, error) {
	type plain Recovery
	v := struct {
		plain
		LeftoversB64 []string `json:"leftovers_b64,omitempty"`
	}{plain: plain(r)}
	v.Leftovers, v.LeftoversB64 = pathenc.EncodeList(r.Leftovers)
	return pathenc.Marshal(v)
}

// UnmarshalJSON reads a report written by MarshalJSON.
func (r *Recovery) UnmarshalJSON(data []byte) error {
	type plain Recovery
	var v struct {
		plain
		LeftoversB64 []string `json:"leftovers_b64"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*r = Recovery(v.plain)
	var err error
	r.Leftovers, err = pathenc.DecodeList(v.Leftovers, v.LeftoversB64)
	return err
}
