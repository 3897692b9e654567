package patchfiles

import (
	"context"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/worktree"
)

// Transition moves the work tree from every step's From to its To:
// re-check of every path, then the writes and removals in order (each path
// checked again right before it is replaced), fsync of the folders, and a
// verification that every path now holds To. touched reports whether any
// file may have been changed when an error is returned. faults prefixes the
// fault points ("apply" or "undo").
//
// recorded, when not nil, is called before the work tree is first
// touched (and before the re-check) and must return only once the
// in-flight record is durable: the new contents are written to the stage
// and fsynced meanwhile (nothing in the work tree changes), unless a
// removal must clear the way first, which waits for the record like
// every other change.
func (o *FileOps) Transition(ctx context.Context, steps []Step, stageDir, staged, since, faults string, recorded func() error) (touched bool, err error) {
	t, err := o.newTransition(steps, stageDir, staged, faults)
	if err != nil {
		return false, err
	}
	defer t.batch.Close()
	if !t.early {
		if err := t.stage(ctx); err != nil {
			return false, err
		}
	}
	if recorded != nil {
		if err := recorded(); err != nil {
			t.batch.Abort()
			return false, err
		}
	}
	if err := t.recheck(ctx, since); err != nil {
		t.batch.Abort()
		return false, err
	}
	if err := t.replace(ctx); err != nil {
		return t.touched, err
	}
	return t.touched, t.verify(ctx)
}

// transition is one run of Transition: the steps in the order they are
// carried out, the batch that stages and commits the new contents, and
// what has been done so far.
type transition struct {
	o       *FileOps
	steps   []Step // as given: the order of the checks and the verification
	ordered []Step // removals that clear the way, writes, other removals
	writes  []Step // the steps that leave a file, in order
	staged  string
	faults  string
	batch   *worktree.Batch
	// early: the first step is a removal, so the new contents are staged
	// only after the removals that clear the way (and after the record).
	early   bool
	pending []*worktree.Pending // the staged content of each of writes
	// rechecked is what the re-check saw at each path: a path is replaced
	// only while it still holds that.
	rechecked map[string]Seen
	// removed are the files removed since their folders were last pruned;
	// pruned, the folders pruning removed.
	removed, pruned []string
	touched         bool // a work-tree file may have changed
	n               int  // paths replaced so far, for the fault points
}

func (o *FileOps) newTransition(steps []Step, stageDir, staged, faults string) (*transition, error) {
	batch, err := o.Tree.NewBatch(stageDir)
	if err != nil {
		return nil, err
	}
	t := &transition{o: o, steps: steps, ordered: order(steps), staged: staged, faults: faults, batch: batch}
	t.early = len(t.ordered) > 0 && !nudge.Present(t.ordered[0].To)
	for _, s := range t.ordered {
		if nudge.Present(s.To) {
			t.writes = append(t.writes, s)
		}
	}
	return t, nil
}

// stage writes every new content to a temp file in the stage, all of
// them fsynced together; a failure here leaves the targets as they were
// (and aborts the batch).
func (t *transition) stage(ctx context.Context) error {
	var err error
	t.pending, err = t.o.prepare(ctx, t.batch, t.writes, t.staged)
	if err == nil {
		err = t.batch.Sync()
	}
	if err != nil {
		t.batch.Abort()
	}
	return err
}

// recheck checks that every path still holds its From (a *ChangedError
// when one does not), keeps what it saw for the checks right before each
// replacement, and tells the workspace's file watcher what is about to
// change.
func (t *transition) recheck(ctx context.Context, since string) error {
	o, steps := t.o, t.steps
	reasons, cur, err := o.Check(ctx, steps, since)
	if err == nil && len(reasons) == 0 {
		reasons, err = o.rawChanged(ctx, steps, cur, since)
	}
	if err != nil {
		return err
	}
	if len(reasons) > 0 {
		return &ChangedError{Reasons: reasons}
	}
	t.rechecked = make(map[string]Seen, len(steps))
	for i, s := range steps {
		t.rechecked[s.Path] = cur[i]
	}
	if w := o.ws.Files; w != nil && w.Before != nil {
		var paths []string
		for _, s := range steps {
			paths = append(paths, s.Path)
		}
		w.Before(paths, o.fileStates(steps, cur, func(s Step) nudge.PathState { return s.From }))
	}
	return nil
}

// replace carries out the steps in order: the removals that clear the way
// for new files, the writes, then the other removals. On an error the
// files already replaced stay replaced.
func (t *transition) replace(ctx context.Context) error {
	i := 0
	for ; i < len(t.ordered) && !nudge.Present(t.ordered[i].To); i++ {
		if err := t.remove(t.ordered[i]); err != nil {
			t.prune()
			t.batch.Abort()
			return err
		}
		t.replaced()
	}
	t.prune()
	if t.early {
		if err := t.stage(ctx); err != nil {
			return err
		}
	}
	for k, s := range t.writes {
		if err := t.write(k, s); err != nil {
			t.batch.Abort()
			return err
		}
		t.replaced()
	}
	for _, s := range t.ordered[i+len(t.writes):] {
		if err := t.remove(s); err != nil {
			t.prune()
			return err
		}
		t.replaced()
	}
	t.prune()
	nudge.FaultPoint(t.faults + "-after-last-write")
	return nil
}

// replaced counts one more path replaced, and passes the fault point
// after the first.
func (t *transition) replaced() {
	if t.n++; t.n == 1 {
		nudge.FaultPoint(t.faults + "-after-first-write")
	}
}

// unchanged is the check made right before a path is replaced: it still
// holds what the re-check saw (or, for a new file, nothing but maybe a
// folder).
func (t *transition) unchanged(s Step, now worktree.Entry) error {
	before := t.rechecked[s.Path]
	if nudge.Present(s.From) {
		if !now.Unchanged(before.Entry) {
			return fmt.Errorf("%s changed while it was being replaced; it was left as found", nudge.QuotePath(s.Path))
		}
	} else if now.Kind != worktree.Absent && now.Kind != worktree.Dir {
		return fmt.Errorf("%s appeared while the files were being replaced; it was left as found", nudge.QuotePath(s.Path))
	}
	return nil
}

// remove removes the file of step s once it is checked unchanged; its
// folder is pruned with the others by the next prune.
func (t *transition) remove(s Step) error {
	now, err := t.o.Tree.Lstat(s.Path)
	if err == nil {
		err = t.unchanged(s, now)
	}
	if err != nil {
		return err
	}
	t.touched = true
	if err := t.o.Tree.RemoveFile(s.Path); err != nil {
		return err
	}
	t.removed = append(t.removed, s.Path)
	return nil
}

// prune removes the folders that the removals since the last prune left
// empty, all together (each folder read once, not once per file removed
// from it): before any write that may need a pruned folder's place, and
// after the last removal.
func (t *transition) prune() {
	if len(t.removed) > 0 {
		t.pruned = append(t.pruned, t.o.Tree.PruneAll(t.removed)...)
		t.removed = t.removed[:0]
	}
}

// write moves the staged content of writes[k] (step s) into place once
// the path is checked unchanged.
func (t *transition) write(k int, s Step) error {
	now, err := t.batch.Lstat(s.Path)
	if err == nil {
		err = t.unchanged(s, now)
	}
	if err != nil {
		return err
	}
	t.touched = true
	return t.batch.Commit(t.pending[k])
}

// verify flushes the changed folders and checks that every path now
// holds its To, then tells the workspace's file watcher what the paths
// hold. The folders are flushed while the files are read back (from the
// page cache: the verification does not wait for the disk).
func (t *transition) verify(ctx context.Context) error {
	o, steps := t.o, t.steps
	dirsSynced := make(chan error, 1)
	go func() { dirsSynced <- t.batch.SyncDirs(ChangedDirs(steps, t.batch.Created(), t.pruned)) }()
	to := make([]nudge.PathState, len(steps))
	for i, s := range steps {
		to[i] = s.To
	}
	after, err := o.Look(ctx, to)
	var wrong []string
	if err == nil {
		for i, s := range steps {
			if v := o.Judge(after[i], s.To); v != AsExpected {
				wrong = append(wrong, nudge.QuotePath(s.Path))
			}
		}
		if len(wrong) == 0 {
			wrong, err = o.rawWrong(ctx, steps)
		}
	}
	if serr := <-dirsSynced; serr != nil {
		return serr
	}
	if err != nil {
		return err
	}
	if len(wrong) > 0 {
		return fmt.Errorf("after writing, these paths do not hold the recorded version: %s", strings.Join(wrong, ", "))
	}
	if w := o.ws.Files; w != nil && w.After != nil {
		w.After(o.fileStates(steps, after, func(s Step) nudge.PathState { return s.To }))
	}
	return nil
}

// prepare creates in batch a temp file with the new content of each of
// writes, in order: from the stage folder when there is one, else
// streamed from git (as checkout writes it, or the kept raw bytes
// unfiltered).
func (o *FileOps) prepare(ctx context.Context, batch *worktree.Batch, writes []Step, staged string) ([]*worktree.Pending, error) {
	pending := make([]*worktree.Pending, len(writes))
	create := func(i int) (io.Writer, error) {
		p, err := batch.Create(writes[i].Path, *writes[i].To.Mode == nudge.ModeExec)
		if err != nil {
			return nil, err
		}
		pending[i] = p
		return p, nil
	}
	done := func(i int) error { batch.Done(pending[i]); return nil }
	if staged != "" {
		for i, s := range writes {
			w, err := create(i)
			if err != nil {
				return nil, err
			}
			if err := copyStaged(staged, s, w); err != nil {
				return nil, err
			}
			_ = done(i)
		}
		return pending, nil
	}
	var filtered, raw []git.BlobRequest
	var fi, ri []int
	var paths []string
	for _, s := range writes {
		paths = append(paths, s.Path)
	}
	here := o.PlainFor(paths)
	if here && o.reader == nil {
		o.reader = o.repo.NewBlobReader()
	}
	for i, s := range writes {
		id := *s.To.Blob
		if s.To.RawBlob != nil {
			id = *s.To.RawBlob
		}
		if here {
			// Checkout would write the blob's bytes as they are (and
			// kept raw bytes are written as they are anyway).
			if data, ok := o.reader.Read(id); ok {
				w, err := create(i)
				if err != nil {
					return nil, err
				}
				if _, err := w.Write(data); err != nil {
					return nil, err
				}
				_ = done(i)
				continue
			}
		}
		if s.To.RawBlob != nil {
			raw = append(raw, git.BlobRequest{Blob: *s.To.RawBlob, Path: s.Path})
			ri = append(ri, i)
		} else {
			filtered = append(filtered, git.BlobRequest{Blob: *s.To.Blob, Path: s.Path})
			fi = append(fi, i)
		}
	}
	if err := o.blobs.Stream(ctx, filtered, func(k int) (io.Writer, error) { return create(fi[k]) }, func(k int) error { return done(fi[k]) }); err != nil {
		return nil, fmt.Errorf("preparing the new file contents: %w", err)
	}
	if err := o.repo.StreamBlobs(ctx, raw, false, func(k int) (io.Writer, error) { return create(ri[k]) }, func(k int) error { return done(ri[k]) }); err != nil {
		return nil, fmt.Errorf("preparing the kept file contents: %w", err)
	}
	return pending, nil
}

// WritesAttributes reports whether a step writes a .gitattributes file.
func WritesAttributes(steps []Step) bool {
	for _, s := range steps {
		if nudge.Present(s.To) && (s.Path == ".gitattributes" || strings.HasSuffix(s.Path, "/.gitattributes")) {
			return true
		}
	}
	return false
}

func copyStaged(staged string, s Step, w io.Writer) error {
	// Read through an os.Root too: a folder of the stage swapped for a
	// symlink cannot make apply copy content from outside it.
	r, err := os.OpenRoot(staged)
	if err != nil {
		return fmt.Errorf("reading the prepared content of %s: %w", s.Path, err)
	}
	defer r.Close()
	f, err := r.Open(filepath.FromSlash(s.Path))
	if err != nil {
		return fmt.Errorf("reading the prepared content of %s: %w", nudge.QuotePath(s.Path), err)
	}
	defer f.Close()
	if _, err := io.Copy(w, f); err != nil {
		return fmt.Errorf("reading the prepared content of %s: %w", nudge.QuotePath(s.Path), err)
	}
	return nil
}

// rawIDsSeen is rawIDs of paths, the files of steps idx (of n steps),
// taken from what a check just saw of each step (cur) where git converts
// nothing for them: its ids are then those of the bytes on disk, and the
// files are not read again.
func (o *FileOps) rawIDsSeen(paths []string, idx []int, cur []Seen, n int) ([]string, error) {
	if !o.PlainFor(paths) || len(cur) != n {
		return o.rawIDs(paths)
	}
	ids := make([]string, 0, len(idx))
	for _, i := range idx {
		ids = append(ids, cur[i].Blob)
	}
	return ids, nil
}

// rawIDs returns the id of the bytes on disk of each work-tree file at
// paths, unfiltered (what git hash-object --no-filters gives), computed
// here instead of by a git process.
func (o *FileOps) rawIDs(paths []string) ([]string, error) {
	ids := make([]string, len(paths))
	for i, p := range paths {
		var h hash.Hash
		err := o.Tree.ReadFile(p, func(size int64) io.Writer { h = o.repo.NewBlobHash(size); return h })
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", nudge.QuotePath(p), err)
		}
		ids[i] = hex.EncodeToString(h.Sum(nil))
	}
	return ids, nil
}
