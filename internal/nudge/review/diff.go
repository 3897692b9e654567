package review

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/refs"
	"github.com/nudgethis/git-nudge/internal/snapshot"
)

// DiffLimit is how much patch text diff prints on a terminal by default
// (1 MiB).
const DiffLimit = 1 << 20

// DiffFormat is what Diff prints: the patch, with or without binary
// changes, a diffstat or the changed paths with their status letters.
type DiffFormat = git.DiffFormat

// The formats of Diff.
const (
	DiffPatch       = git.DiffPatch
	DiffBinaryPatch = git.DiffBinaryPatch
	DiffStat        = git.DiffStat
	DiffNameStatus  = git.DiffNameStatus
)

// DiffOptions says what Diff prints.
type DiffOptions struct {
	Format DiffFormat
	Color  bool
	Limit  int64 // bytes of output; 0 (or less) means no bound
	// Notices receives what is said about the output (what was cut, which
	// files are too large to print), never mixed into the patch; nil sends
	// it to the output itself.
	Notices io.Writer
	// Pathspecs limit the patch to the paths they match (the workspace's
	// Pathspecs makes them from what the user typed); none: every path.
	Pathspecs []string
}

// NoResultError is returned for a task without a result to review.
type NoResultError struct {
	ID string
	// NoWorktree is true when the task has no worktree (only a snapshot):
	// capture alone cannot help then.
	NoWorktree bool
	// Pending is true for a queued task (git nudge queue).
	Pending bool
}

func (e *NoResultError) Error() string {
	if e.Pending {
		return nudge.PendingAdvice(e.ID)
	}
	return fmt.Sprintf("%s has no result yet: %s", e.ID, lowerFirst(nudge.ResultAdvice(e.ID, !e.NoWorktree)))
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// Diff writes the task's patch (snapshot to result) to out, bounded: after
// Limit bytes it stops at a line end and says how much it left out. Files
// over 16 MiB are named, never printed.
func Diff(ctx context.Context, w *nudge.Workspace, id string, out io.Writer, o DiffOptions) error {
	t, err := w.Load(id)
	if err != nil {
		return err
	}
	if t.Result == nil {
		return &NoResultError{ID: id, NoWorktree: !w.HasWorktree(t), Pending: t.State == nudge.StatePending}
	}
	limit := o.Limit
	notices := o.Notices
	if notices == nil {
		notices = out
	}
	var large []nudge.FileChange
	if o.Format == git.DiffPatch || o.Format == git.DiffBinaryPatch {
		if large, err = largeFiles(ctx, w, t.Files); err != nil {
			return err
		}
		if len(large) > 0 && len(o.Pathspecs) > 0 {
			// Name only those the paths asked for.
			if large, err = matching(ctx, w, t, large, o.Pathspecs); err != nil {
				return err
			}
		}
	}
	exclude := make([]string, 0, len(large))
	for _, f := range large {
		exclude = append(exclude, f.Path)
	}
	if limit <= 0 {
		if err := w.Repo.DiffTreesTo(ctx, out, t.Base(), *t.Result, o.Format, o.Color, o.Pathspecs, exclude); err != nil {
			return err
		}
		largeNotices(notices, t, large)
		return nil
	}
	bw := &boundedWriter{w: out, limit: limit}
	if err := w.Repo.DiffTreesTo(ctx, bw, t.Base(), *t.Result, o.Format, o.Color, o.Pathspecs, exclude); err != nil {
		return err
	}
	if err := bw.flush(); err != nil {
		return err
	}
	largeNotices(notices, t, large)
	switch {
	case bw.stopped:
		fmt.Fprintf(notices, "[git nudge: over %d more bytes of output not shown (limit %d bytes), git was stopped there; --max-bytes 0 or git diff %s %s shows everything]\n",
			bw.cut, limit, baseRef(t), refs.Results+id)
	case bw.cut > 0:
		fmt.Fprintf(notices, "[git nudge: %d more bytes of output not shown (limit %d bytes); --max-bytes 0 or git diff %s %s shows everything]\n",
			bw.cut, limit, baseRef(t), refs.Results+id)
	}
	return nil
}

// largeNotices names the files Diff left out for their size.
func largeNotices(notices io.Writer, t *nudge.Task, large []nudge.FileChange) {
	for _, f := range large {
		fmt.Fprintf(notices, "%s: %s is over 16 MiB and is not shown (git diff %s %s -- <path> shows it)\n",
			f.Status, nudge.QuotePath(f.Path), baseRef(t), refs.Results+t.ID)
	}
}

// matching returns the files of t's patch among files that pathspecs match.
func matching(ctx context.Context, w *nudge.Workspace, t *nudge.Task, files []nudge.FileChange, pathspecs []string) ([]nudge.FileChange, error) {
	changes, err := w.Repo.DiffTrees(ctx, t.Base(), *t.Result, pathspecs...)
	if err != nil {
		return nil, err
	}
	matched := make(map[string]bool, len(changes))
	for _, c := range changes {
		matched[c.Path] = true
	}
	var out []nudge.FileChange
	for _, f := range files {
		if matched[f.Path] {
			out = append(out, f)
		}
	}
	return out, nil
}

// largeFiles returns the files whose old or new content is over 16 MiB.
func largeFiles(ctx context.Context, w *nudge.Workspace, files []nudge.FileChange) ([]nudge.FileChange, error) {
	var ids []string
	for _, f := range files {
		for _, b := range []*string{f.OldBlob, f.NewBlob} {
			if b != nil {
				ids = append(ids, *b)
			}
		}
	}
	sizes, err := w.Repo.ObjectSizes(ctx, ids)
	if err != nil {
		return nil, err
	}
	var large []nudge.FileChange
	for _, f := range files {
		if (f.OldBlob != nil && sizes[*f.OldBlob] > snapshot.MaxFileSize) ||
			(f.NewBlob != nil && sizes[*f.NewBlob] > snapshot.MaxFileSize) {
			large = append(large, f)
		}
	}
	return large, nil
}

// boundedWriter passes through the first limit bytes (ending at the last
// complete line) and counts the rest, up to as much again: past that it
// says git.ErrEnough, which stops git rather than making it compute a
// patch nobody sees (stopped is then set, and cut is a lower bound).
type boundedWriter struct {
	w       io.Writer
	limit   int64
	written int64
	pending []byte // an incomplete last line, held until it completes
	full    bool
	cut     int64
	stopped bool
}

func (b *boundedWriter) Write(p []byte) (int, error) {
	n := len(p)
	if b.full {
		if b.cut+int64(n) > max(b.limit, 64<<10) {
			b.stopped = true
			return 0, git.ErrEnough
		}
		b.cut += int64(n)
		return n, nil
	}
	b.pending = append(b.pending, p...)
	for {
		i := indexNL(b.pending)
		if i < 0 {
			break
		}
		line := b.pending[:i+1]
		if b.written+int64(len(line)) > b.limit {
			b.full = true
			b.cut += int64(len(b.pending))
			b.pending = nil
			return n, nil
		}
		if _, err := b.w.Write(line); err != nil {
			return n, err
		}
		b.written += int64(len(line))
		b.pending = b.pending[i+1:]
	}
	if b.written+int64(len(b.pending)) > b.limit {
		b.full = true
		b.cut += int64(len(b.pending))
		b.pending = nil
	}
	return n, nil
}

func (b *boundedWriter) flush() error {
	if len(b.pending) == 0 {
		return nil
	}
	_, err := b.w.Write(b.pending)
	b.pending = nil
	return err
}

func indexNL(p []byte) int {
	for i, c := range p {
		if c == '\n' {
			return i
		}
	}
	return -1
}

// baseRef is the ref of the commit t's patch starts from (Task.Base).
func baseRef(t *nudge.Task) string {
	if t.Setup != nil && *t.Setup != "" {
		return refs.Setups + t.ID
	}
	return refs.Task.Ref(t.ID)
}
