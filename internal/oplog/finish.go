package oplog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/nudgethis/git-nudge/internal/git"
)

// Finishing a recording: the state read again, the changes worked out,
// the record written.

// Finish reads the state again and rewrites the operation with every
// change, done (cmdErr nil) or failed.
func (r *Recording) Finish(ctx context.Context, cmdErr error) error {
	r.mu.Lock()
	r.finished = true // told nothing more
	r.before.written = sortedKeys(r.written)
	r.before.writtenRefs = sortedKeys(r.writtenRefs)
	r.mu.Unlock()
	faultPoint("oplog-before-finish")
	l := r.log
	paths, walk, err := r.pathsAfter(ctx, cmdErr)
	if err != nil {
		return err
	}
	known := r.filesAfter
	if cmdErr != nil {
		known = nil // stopped part-way: what the files hold is read
	}
	for p := range r.before.files {
		if _, ok := known[p]; !ok {
			paths = append(paths, p)
		}
	}
	after, err := l.read(ctx, paths, r.before, r.spec.touchesIndex(), r.spec.scope())
	if err != nil {
		return err
	}
	for p, f := range known {
		if _, ok := r.before.files[p]; ok {
			after.files[p] = f
		}
	}
	if walk {
		if err := r.readWalked(ctx, paths, after); err != nil {
			return err
		}
	}
	op := r.op
	op.Refs, op.Files, op.Journals, op.Index, op.Pins = nil, nil, nil, nil, nil
	r.refAndFileChanges(op, after)
	blobs := r.journalChanges(op, after)
	r.waitIndexTree()
	if c := l.indexChange(ctx, r.before.index, after.index); c != nil {
		op.Index = c
		if c.OldTree == "" && c.NewTree == "" {
			// Kept as bytes: their entries stay reachable through the
			// trees written from them.
			for i, ix := range []*git.IndexFile{r.before.index, after.index} {
				if ix.Absent {
					continue
				}
				blobs.add(ix.Bytes(), []*string{&c.Old, &c.New}[i])
				if t, err := l.Repo.IndexBytesTree(ctx, ix.Bytes()); err == nil {
					op.Pins = append(op.Pins, t)
				}
			}
		}
	}
	return r.record(ctx, op, blobs, cmdErr)
}

// pathsAfter are the work-tree paths to read after the command besides
// those read before it; walk says the work tree was searched with git
// status for what the command changed. A hinted command that finished
// names them instead (the change between its two trees), and one that
// did not call Changing changed no file.
func (r *Recording) pathsAfter(ctx context.Context, cmdErr error) (paths []string, walk bool, err error) {
	l := r.log
	paths = append([]string{}, r.spec.Paths...)
	walk = r.spec.Status && (!r.spec.Hinted || r.hint != nil && (r.hint.walked || cmdErr != nil))
	if walk {
		dirty, err := l.Repo.DirtyPaths(ctx)
		if err != nil {
			return nil, false, err
		}
		return append(paths, dirty...), true, nil
	}
	if r.hint == nil {
		return paths, false, nil
	}
	changes, err := l.Repo.DiffTrees(ctx, r.hint.from, r.hint.to)
	if err != nil {
		return nil, false, err
	}
	for _, c := range changes {
		if c.OldMode == git.ModeGitlink || c.NewMode == git.ModeGitlink {
			continue
		}
		paths = append(paths, c.Path)
		if _, ok := r.before.files[c.Path]; !ok {
			// Clean before the command: the work tree held what
			// the tree from (HEAD's, there) holds.
			if git.AbsentMode(c.OldMode) {
				r.before.files[c.Path] = nil
			} else {
				r.before.files[c.Path] = &File{Mode: c.OldMode, Blob: c.OldBlob}
			}
		}
	}
	return paths, false, nil
}

// readWalked completes a walked recording: each path found changed (by
// git status after the command, or between the two HEADs) that was not
// read before held HEAD's version before the command, and is read now.
func (r *Recording) readWalked(ctx context.Context, paths []string, after *state) error {
	l := r.log
	oldC := commitOf(r.before.head, r.before.refs)
	newC := commitOf(after.head, after.refs)
	moved, err := l.Repo.ChangedPaths(ctx, oldC, newC)
	if err != nil {
		return err
	}
	var missing []string
	for _, p := range append(moved, paths...) {
		if _, ok := r.before.files[p]; !ok {
			missing = append(missing, p)
		}
	}
	// A path clean before held HEAD's version.
	at, err := l.Repo.FilesAt(ctx, oldC, missing)
	if err != nil {
		return err
	}
	for _, p := range missing {
		if e, ok := at[p]; ok {
			r.before.files[p] = &File{Mode: e.Mode, Blob: e.Blob}
		} else {
			r.before.files[p] = nil
		}
	}
	return l.readFiles(ctx, missing, after.files)
}

// refAndFileChanges adds to op every ref (HEAD included) and work-tree
// file that differs between before and after.
func (r *Recording) refAndFileChanges(op *Op, after *state) {
	if r.before.head != after.head {
		op.Refs = append(op.Refs, RefChange{Name: "HEAD", Old: r.before.head, New: after.head})
	}
	names := map[string]bool{}
	for n := range r.before.refs {
		names[n] = true
	}
	for n := range after.refs {
		names[n] = true
	}
	for _, n := range sortedKeys(names) {
		if r.before.refs[n] != after.refs[n] {
			op.Refs = append(op.Refs, RefChange{Name: n, Old: r.before.refs[n], New: after.refs[n]})
		}
	}
	for _, p := range sortedKeys(after.files) {
		b, a := r.before.files[p], after.files[p]
		if !sameFile(b, a) {
			op.Files = append(op.Files, fileChange(p, b, a))
		}
	}
}

// opBlobs are the blobs an operation's record names and the fields that
// take their ids once known.
type opBlobs struct {
	datas [][]byte
	sets  []*string
}

func (b *opBlobs) add(data []byte, to *string) {
	b.datas = append(b.datas, data)
	b.sets = append(b.sets, to)
}

// journalChanges adds to op every journal that changed: as the append the
// command told, as a delta of the two versions, or whole (the blobs
// returned, each version's id to fill in).
func (r *Recording) journalChanges(op *Op, after *state) *opBlobs {
	l := r.log
	js := map[string]bool{}
	for j := range r.before.journals {
		js[j] = true
	}
	for j := range after.journals {
		js[j] = true
	}
	for j := range after.told {
		js[j] = true
	}
	for _, j := range sortedKeys(js) {
		if t := after.told[j]; t != nil {
			// Appended to in place: the record holds what the command
			// said it wrote, with some bytes before it, and names the
			// versions by that alone (no copy, no id: neither was read
			// again or hashed).
			op.Journals = append(op.Journals, BlobChange{File: j, Delta: t.delta()})
			continue
		}
		b, bok := r.before.journals[j]
		a, aok := after.journals[j]
		if bok == aok && bytes.Equal(b, a) {
			continue
		}
		if bok && aok {
			if d := deltaOf(b, a); d != nil {
				// Only what changed is stored; both versions are named
				// by id, to check the file against before an undo.
				op.Journals = append(op.Journals, BlobChange{File: j, Old: l.Repo.BlobID(b), New: l.Repo.BlobID(a), Delta: d})
				continue
			}
		}
		op.Journals = append(op.Journals, BlobChange{File: j})
	}
	// Whole versions: op.Journals is no longer appended to, so the
	// fields the blobs' ids go to stay where they are.
	blobs := &opBlobs{}
	for i := range op.Journals {
		c := &op.Journals[i]
		if c.Delta != nil {
			continue
		}
		if b, ok := r.before.journals[c.File]; ok {
			blobs.add(b, &c.Old)
		}
		if a, ok := after.journals[c.File]; ok {
			blobs.add(a, &c.New)
		}
	}
	return blobs
}

// record writes op's blobs and appends op to the log in place of the
// pending record (or drops the pending record of a command that changed
// nothing and leaves no trace).
func (r *Recording) record(ctx context.Context, op *Op, blobs *opBlobs, cmdErr error) error {
	l := r.log
	// The blobs are written while the record, its tree and its commit are
	// worked out (their ids are the hashes of their bytes); the log's ref
	// moves only once they are written (append waits for it).
	ids := make([]string, len(blobs.datas))
	for i, d := range blobs.datas {
		ids[i] = l.Repo.ObjectID("blob", d)
	}
	for i, p := range blobs.sets {
		*p = ids[i]
	}
	written := make(chan error, 1)
	go func() {
		got, err := l.Repo.WriteBlobsData(ctx, blobs.datas)
		if err == nil && !slices.Equal(got, ids) {
			err = errors.New("git stored the operation's blobs under other ids")
		}
		written <- err
	}()
	var writeErr error
	waited := false
	blobsWritten := func() error {
		if !waited {
			waited, writeErr = true, <-written
		}
		return writeErr
	}
	defer blobsWritten()
	op.State = Done
	if cmdErr != nil {
		op.State = Failed
		op.Error = firstLine(cmdErr.Error())
	}
	op.Summary = summary(op)
	op.PID = 0
	if (cmdErr != nil || r.spec.DropEmpty) && len(op.Refs)+len(op.Files)+len(op.Journals) == 0 && op.Index == nil {
		// Refused with nothing changed: no trace in the log.
		return l.removePending(r)
	}
	op.ID = ""
	if err := l.append(ctx, op, blobsWritten); err != nil {
		var ce *CorruptError
		if errors.As(err, &ce) {
			// Never written over: the operation goes unrecorded.
			l.removePending(r)
			return fmt.Errorf("not recorded in the operation log: %w", err)
		}
		return err
	}
	faultPoint("oplog-after-append")
	if err := l.removePending(r); err != nil {
		return err
	}
	return l.prune(ctx, op)
}

// startIndexTree starts working out the tree of the index before a
// SetsIndex command, beside the command, when the index's cache-tree does
// not hold it: the command's own git processes leave the time for it.
func (r *Recording) startIndexTree(ctx context.Context) {
	ix := r.before.index
	if !r.spec.SetsIndex || !r.spec.touchesIndex() || ix == nil || ix == noIndex || !ix.Plain || ix.Tree != "" || ix.Absent {
		return
	}
	r.beforeTree = make(chan string, 1)
	go func() {
		t, err := r.log.Repo.IndexBytesTree(ctx, ix.Bytes())
		if err != nil {
			t = "" // worked out again when needed
		}
		r.beforeTree <- t
	}()
}

// waitIndexTree waits for the tree startIndexTree works out and makes it
// the before index's.
func (r *Recording) waitIndexTree() {
	if r.beforeTree == nil {
		return
	}
	if t := <-r.beforeTree; t != "" && r.before.index.Tree == "" {
		r.before.index.Tree = t
	}
	r.beforeTree = nil
}

// indexChange is the index's change between b and a (nil: none): as trees
// when both hold only what a tree can (stat data aside, which git
// refreshes), else as the files' bytes (Old/New, filled by the caller).
func (l *Log) indexChange(ctx context.Context, b, a *git.IndexFile) *BlobChange {
	if b == a {
		return nil
	}
	if b.Plain && a.Plain {
		bt, err1 := l.indexTree(ctx, b)
		at, err2 := l.indexTree(ctx, a)
		if err1 == nil && err2 == nil {
			if bt == at {
				return nil
			}
			return &BlobChange{File: "index", OldTree: bt, NewTree: at}
		}
	}
	if b.Absent == a.Absent && bytes.Equal(b.Bytes(), a.Bytes()) {
		return nil
	}
	return &BlobChange{File: "index"}
}

// indexTree is the tree of an index read: its cache-tree's when valid,
// else written by git from its bytes.
func (l *Log) indexTree(ctx context.Context, ix *git.IndexFile) (string, error) {
	if ix.Tree != "" {
		return ix.Tree, nil
	}
	t, err := l.Repo.IndexBytesTree(ctx, ix.Bytes())
	if err == nil {
		ix.Tree = t
	}
	return t, err
}
