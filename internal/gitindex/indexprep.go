package gitindex

// This file holds prepareIndexEntries: an index edit worked out ahead of time, while the
// caller does something else, and taken up by SetIndexEntries when the
// index file is still the one it was prepared from.

import (
	"context"
	"github.com/nudgethis/git-nudge/internal/gitstore"
	"slices"
	"sync"
)

// PrepareIndexEntries starts working out SetIndexEntries(entries, known)
// in the background, on the index this process last read or wrote (the
// operation log reads it before every command that changes it), so that
// the step itself only writes the file: the caller does it while its git
// processes run. Nothing is written here; SetIndexEntries, under
// index.lock, uses the result only when the index is still that file
// (the same identity and trailing checksum, as it would use the
// remembered bytes), with the same entries and known; otherwise it works
// everything out again.
func (r *Files) PrepareIndexEntries(ctx context.Context, entries []gitstore.IndexEntry, known *KnownFolders) {
	if !r.InProcess() || len(entries) == 0 {
		return
	}
	path := r.IndexPath()
	indexMemo.Lock()
	if indexMemo.path != path || indexMemo.data == nil || indexMemo.id == (gitstore.FileID{}) {
		indexMemo.Unlock()
		return
	}
	p := &indexPrep{path: path, id: indexMemo.id, data: indexMemo.data,
		entries: append([]gitstore.IndexEntry(nil), entries...), known: known, done: make(chan struct{})}
	indexMemo.Unlock()
	prepared.Lock()
	prepared.p = p
	prepared.Unlock()
	go func() {
		defer close(p.done)
		// No git and no object reads here (gitOK false): the caller's
		// own run beside it.
		out, tree, plain, err := r.editIndexData(ctx, p.data.bytes(), p.id.Mtime/1e9, p.entries, p.known, false)
		if err != nil {
			return
		}
		p.out, p.tree, p.plain = append(out, r.indexSum(out)), tree, plain
	}()
}

// prepared is the edit PrepareIndexEntries started last.
var prepared struct {
	sync.Mutex
	p *indexPrep
}

type indexPrep struct {
	path    string
	id      gitstore.FileID
	data    *indexData // the bytes it was worked out from
	entries []gitstore.IndexEntry
	known   *KnownFolders
	done    chan struct{}
	out     [][]byte // the new file's pieces, its checksum last (nil: left to the step)
	tree    string
	plain   bool
}

// takePrepared returns the prepared edit of these entries on the file of
// identity id at path, once worked out (nil: none, or it failed).
func takePrepared(path string, id gitstore.FileID, entries []gitstore.IndexEntry, known *KnownFolders) *indexPrep {
	prepared.Lock()
	p := prepared.p
	if p == nil || p.path != path {
		prepared.Unlock()
		return nil // another repository's
	}
	prepared.p = nil
	prepared.Unlock()
	if p.id != id || p.known != known || !slices.Equal(p.entries, entries) {
		return nil
	}
	<-p.done
	if p.out == nil {
		return nil
	}
	return p
}
