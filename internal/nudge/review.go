package nudge

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/nudgethis/git-nudge/internal/git"
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
	// Pathspecs limit the patch to the paths they match (Pathspecs makes
	// them from what the user typed); none: every path.
	Pathspecs []string
}

// Pathspecs turns paths typed in callerDir into git pathspecs from the top
// of the work tree, as git diff reads them: relative to the current
// folder (in a task's worktree, to the same folder of the task), globs
// allowed. One that starts with ":" is passed as it is (git's pathspec
// magic, read from the top). A path outside the work tree is an error.
func (w *Workspace) Pathspecs(callerDir string, paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	top := w.Repo.WorkTree
	if w.InTask != "" {
		top = w.WorktreeDir(w.InTask)
	}
	top, prefix, ok := CallerRel(top, callerDir)
	if !ok {
		prefix = "" // from elsewhere (or no folder given): from the top
	}
	specs := make([]string, 0, len(paths))
	for _, p := range paths {
		if strings.HasPrefix(p, ":") {
			specs = append(specs, p)
			continue
		}
		var rel string
		if filepath.IsAbs(p) {
			r, err := filepath.Rel(top, p)
			if err != nil {
				return nil, outsidePathError(p, top)
			}
			rel = r
		} else {
			rel = filepath.Join(prefix, p)
		}
		if rel != "" && !filepath.IsLocal(rel) { // "": an empty path, the top
			return nil, outsidePathError(p, top)
		}
		specs = append(specs, ":(top)"+filepath.ToSlash(rel))
	}
	return specs, nil
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
		return PendingAdvice(e.ID)
	}
	return fmt.Sprintf("%s has no result yet: %s", e.ID, lowerFirst(ResultAdvice(e.ID, !e.NoWorktree)))
}

// PendingAdvice says what becomes of a pending task.
func PendingAdvice(id string) string {
	return fmt.Sprintf("%s is pending: git nudge work runs its command and records the result (git nudge drop %s takes it off the queue)", id, id)
}

// ResultAdvice says how a task without a result gets one. Without a
// worktree, capture alone would only say there is nothing to capture.
func ResultAdvice(id string, worktree bool) string {
	if worktree {
		return fmt.Sprintf("Run a command in its worktree with git nudge run --task %s -- CMD, or record the worktree as it is with git nudge capture %s.", id, id)
	}
	return fmt.Sprintf("It has no worktree yet: git nudge run --task %s -- CMD makes one, runs CMD in it and records the result; or git nudge start %s makes one to work in, then git nudge capture %s records it; git nudge capture %s --from REV takes a commit's tree instead.", id, id, id, id)
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
func (w *Workspace) Diff(ctx context.Context, id string, out io.Writer, o DiffOptions) error {
	t, err := w.Load(id)
	if err != nil {
		return err
	}
	if t.Result == nil {
		return &NoResultError{ID: id, NoWorktree: !w.HasWorktree(t), Pending: t.State == StatePending}
	}
	limit := o.Limit
	notices := o.Notices
	if notices == nil {
		notices = out
	}
	var large []FileChange
	if o.Format == git.DiffPatch || o.Format == git.DiffBinaryPatch {
		if large, err = w.largeFiles(ctx, t.Files); err != nil {
			return err
		}
		if len(large) > 0 && len(o.Pathspecs) > 0 {
			// Name only those the paths asked for.
			if large, err = w.matching(ctx, t, large, o.Pathspecs); err != nil {
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
		w.largeNotices(notices, t, large)
		return nil
	}
	bw := &boundedWriter{w: out, limit: limit}
	if err := w.Repo.DiffTreesTo(ctx, bw, t.Base(), *t.Result, o.Format, o.Color, o.Pathspecs, exclude); err != nil {
		return err
	}
	if err := bw.flush(); err != nil {
		return err
	}
	w.largeNotices(notices, t, large)
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
func (w *Workspace) largeNotices(notices io.Writer, t *Task, large []FileChange) {
	for _, f := range large {
		fmt.Fprintf(notices, "%s: %s is over 16 MiB and is not shown (git diff %s %s -- <path> shows it)\n",
			f.Status, QuotePath(f.Path), baseRef(t), refs.Results+t.ID)
	}
}

func outsidePathError(p, top string) error {
	return fmt.Errorf("%s is outside the work tree %s: paths are read from the current folder, as git diff reads them", QuotePath(p), QuotePath(top))
}

// matching returns the files of t's patch among files that pathspecs match.
func (w *Workspace) matching(ctx context.Context, t *Task, files []FileChange, pathspecs []string) ([]FileChange, error) {
	changes, err := w.Repo.DiffTrees(ctx, t.Base(), *t.Result, pathspecs...)
	if err != nil {
		return nil, err
	}
	matched := make(map[string]bool, len(changes))
	for _, c := range changes {
		matched[c.Path] = true
	}
	var out []FileChange
	for _, f := range files {
		if matched[f.Path] {
			out = append(out, f)
		}
	}
	return out, nil
}

// largeFiles returns the files whose old or new content is over 16 MiB.
func (w *Workspace) largeFiles(ctx context.Context, files []FileChange) ([]FileChange, error) {
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
	var large []FileChange
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
func baseRef(t *Task) string {
	if t.Setup != nil && *t.Setup != "" {
		return refs.Setups + t.ID
	}
	return refs.Task.Ref(t.ID)
}

// CallerRel is where callerDir is below top ("." at the top itself), both
// with symlinks resolved, and the resolved top; ok is false when
// callerDir is not top or a folder below it.
func CallerRel(top, callerDir string) (realTop, rel string, ok bool) {
	if r, err := filepath.EvalSymlinks(top); err == nil {
		top = r
	}
	if r, err := filepath.EvalSymlinks(callerDir); err == nil {
		callerDir = r
	}
	rel, err := filepath.Rel(top, callerDir)
	return top, rel, err == nil && filepath.IsLocal(rel)
}
