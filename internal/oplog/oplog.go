// Package oplog owns the operation log: one record per mutating command of
// either binary (what it changed: refs, HEAD, the user's index, journals and
// work-tree files, each with its value before and after), stored in git as
// a chain of commits per worktree under refs/nudgethis-oplog/<worktree>, and
// the undo of a recorded operation.
//
// Each log commit's message is the operation record (JSON); its tree holds
// every blob the record names (file contents, journal contents, index
// bytes) and its second and later parents are the commits the record's refs
// pointed at, so gc never drops anything an undo needs. Appends are
// compare-and-swap updates of the log ref; op.keep (default 1000) bounds
// the chain.
package oplog

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/pathenc"
	"github.com/nudgethis/git-nudge/internal/refs"
)

// States of an operation.
const (
	Pending = "pending"
	Done    = "done"
	Failed  = "failed"
)

// KindUndo is the kind of an op undo, KindRedo of an op redo (which
// undoes an undo: Undoes names the undo, Redoes the operation re-done).
const (
	KindUndo = "op-undo"
	KindRedo = "op-redo"
)

// undoLike reports whether o is an undo or a redo: an operation that only
// puts back values other operations recorded.
func undoLike(o *Op) bool { return o.Kind == KindUndo || o.Kind == KindRedo }

// DefaultKeep is op.keep's default.
const DefaultKeep = 1000

// File is the state of one path: mode and raw-bytes blob; nil means absent.
type File struct {
	Mode string `json:"mode"`
	Blob string `json:"blob"`
}

// RefChange is a ref (or HEAD) before and after; "" means absent. HEAD's
// value is "ref: <branch>" or a commit id.
type RefChange struct {
	Name string `json:"name"`
	Old  string `json:"old"`
	New  string `json:"new"`
}

// FileChange is one work-tree path before and after.
type FileChange struct {
	Path    string  `json:"path"`
	PathB64 *string `json:"path_b64,omitempty"`
	Before  *File   `json:"before"`
	After   *File   `json:"after"`
}

// BlobChange is a journal file (relative to the work tree's top level) or
// the index, before and after, as blob ids ("" = absent).
type BlobChange struct {
	File string `json:"file"`
	Old  string `json:"old"`
	New  string `json:"new"`
	// OldTree and NewTree record the index as trees (its entries; git
	// refreshes stat data), when it holds only what a tree can; Old and
	// New (its bytes) are then "". Records before these fields kept bytes.
	OldTree string `json:"old_tree,omitempty"`
	NewTree string `json:"new_tree,omitempty"`
	// Delta, for a journal, records what changed between Old and New
	// instead of both versions: neither blob is stored then. Records
	// before this field kept both blobs, and still read and undo so.
	Delta *Delta `json:"delta,omitempty"`
}

// Trees reports whether the index change is recorded as trees.
func (c *BlobChange) Trees() bool {
	return c.Old == "" && c.New == "" && (c.OldTree != "" || c.NewTree != "")
}

// Op is one recorded operation.
type Op struct {
	ID       string       `json:"id"`
	Time     time.Time    `json:"time"`
	Tool     string       `json:"tool"`
	Args     []string     `json:"args"`
	Kind     string       `json:"kind"`
	State    string       `json:"state"`
	Summary  string       `json:"summary"`
	PID      int          `json:"pid,omitempty"`
	Undoes   string       `json:"undoes,omitempty"`
	Redoes   string       `json:"redoes,omitempty"`
	Error    string       `json:"error,omitempty"`
	Worktree string       `json:"worktree"`
	Refs     []RefChange  `json:"refs"`
	Files    []FileChange `json:"files"`
	Index    *BlobChange  `json:"index,omitempty"`
	Journals []BlobChange `json:"journals"`
	// Pins are trees written from the index before and after, so that the
	// staged blobs an index names stay reachable.
	Pins []string `json:"pins,omitempty"`
	// ChainSince is the time of the first operation of the chain (the
	// log's segment) the record was appended to.
	ChainSince time.Time `json:"chain_since,omitzero"`
	// UndoneBy is computed when the log is read, never stored.
	UndoneBy string `json:"-"`
	commit   string
	assigned bool
}

// Commit is the log commit o was read from ("" for a pending record):
// its record, and so every field but UndoneBy, is the same whenever it is.
func (o *Op) Commit() string { return o.commit }

// Number is the N of o<N>.
func Number(id string) (int, bool) {
	s, ok := strings.CutPrefix(id, "o")
	if !ok || s == "" || s[0] == '0' {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n > 0
}

// Log is one worktree's operation log.
type Log struct {
	Repo *git.Repo
	Ref  string
	Key  string
	// op.keep and op.keepDays, read once
	keep    int64
	ageRead bool
	age     time.Duration
}

// Open returns the log of r's worktree.
func Open(r *git.Repo) *Log {
	key := "main"
	if filepath.Clean(r.GitDir) != filepath.Clean(r.CommonDir) {
		key = "wt-" + filepath.Base(r.GitDir)
	}
	return &Log{Repo: r, Ref: refs.Oplog + key, Key: key}
}

// CorruptError names a log that cannot be read; the log is never
// overwritten while it is corrupt.
type CorruptError struct {
	Ref, Commit string
	Err         error
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("the operation log %s is corrupt at commit %s (%v); it is left as it is: move it aside with git update-ref to start a new one", e.Ref, e.Commit, e.Err)
}

// Read returns every operation, newest first (the latest record of each
// id), with UndoneBy filled in. With a corrupt commit it returns what it
// could read and a *CorruptError.
func (l *Log) Read(ctx context.Context) ([]*Op, error) {
	chain, err := l.readChains(ctx)
	if err != nil {
		return nil, &CorruptError{Ref: l.Ref, Commit: "(tip)", Err: err}
	}
	seen := map[string]bool{}
	var ops []*Op
	var bad error
	for _, c := range chain {
		if c.Message == rootMessage {
			continue // the start of one segment
		}
		op, err := recordAt(c)
		if err != nil {
			if bad == nil {
				bad = &CorruptError{Ref: l.Ref, Commit: c.ID, Err: err}
			}
			continue
		}
		if _, ok := Number(op.ID); !ok {
			if bad == nil {
				bad = &CorruptError{Ref: l.Ref, Commit: c.ID, Err: fmt.Errorf("malformed id %q", op.ID)}
			}
			continue
		}
		if seen[op.ID] {
			continue
		}
		seen[op.ID] = true
		op.commit = c.ID
		ops = append(ops, op)
	}
	sort.SliceStable(ops, func(i, j int) bool {
		a, _ := Number(ops[i].ID)
		b, _ := Number(ops[j].ID)
		return a > b
	})
	markUndone(ops)
	return ops, bad
}

// markUndone sets UndoneBy: an operation is undone by the undo (or redo)
// in effect that names it. Undoing an undo (a redo) takes the undo's
// effect away: its target is in effect again; undoing that redo puts the
// undo's effect back, and so on down the chain.
func markUndone(ops []*Op) {
	byID := map[string]*Op{}
	for _, o := range ops {
		byID[o.ID] = o
	}
	var set, clear func(t *Op, by string, depth int)
	set = func(t *Op, by string, depth int) {
		t.UndoneBy = by
		if depth > 0 && undoLike(t) {
			if x := byID[t.Undoes]; x != nil && x.UndoneBy == t.ID {
				clear(x, "", depth-1)
			}
		}
	}
	clear = func(x *Op, _ string, depth int) {
		x.UndoneBy = ""
		if depth > 0 && undoLike(x) {
			if y := byID[x.Undoes]; y != nil {
				set(y, x.ID, depth-1)
			}
		}
	}
	// Oldest first, so an undo's own state is settled before it counts.
	for i := len(ops) - 1; i >= 0; i-- {
		o := ops[i]
		if !undoLike(o) || o.State != Done {
			continue
		}
		// Only an earlier operation can be undone (a forged record
		// naming a later one is ignored): the chains end.
		n, _ := Number(o.ID)
		if t := byID[o.Undoes]; t != nil {
			if m, _ := Number(t.ID); m < n {
				set(t, o.ID, len(ops))
			}
		}
	}
}

// Find returns op id from ops.
func Find(ops []*Op, id string) *Op {
	for _, o := range ops {
		if o.ID == id {
			return o
		}
	}
	return nil
}

// blobs lists every blob the record names.
func (o *Op) blobs() []string {
	var bs []string
	for _, f := range o.Files {
		for _, v := range []*File{f.Before, f.After} {
			if v != nil && v.Blob != "" {
				bs = append(bs, v.Blob)
			}
		}
	}
	for _, j := range o.Journals {
		if j.Delta == nil {
			bs = append(bs, j.Old, j.New)
		}
	}
	if o.Index != nil {
		bs = append(bs, o.Index.Old, o.Index.New)
	}
	return bs
}

// trees lists every tree the record keeps reachable.
func (o *Op) trees() []string {
	ts := append([]string{}, o.Pins...)
	if o.Index != nil {
		ts = append(ts, o.Index.OldTree, o.Index.NewTree)
	}
	return ts
}

// commits lists the commits the record's refs point at.
func (o *Op) commits() []string {
	seen := map[string]bool{}
	var cs []string
	for _, r := range o.Refs {
		for _, v := range []string{r.Old, r.New} {
			if v != "" && !strings.HasPrefix(v, "ref: ") && !seen[v] {
				seen[v] = true
				cs = append(cs, v)
			}
		}
	}
	return cs
}

// RawPath is the raw path of a file change.
func (f FileChange) RawPath() string {
	if p, err := pathenc.Decode(f.Path, f.PathB64); err == nil {
		return p
	}
	return f.Path
}

func fileChange(p string, before, after *File) FileChange {
	enc, b64 := pathenc.Encode(p)
	fc := FileChange{Path: enc, Before: before, After: after}
	if b64 != "" {
		fc.PathB64 = &b64
	}
	return fc
}

// Repo is the repository a log belongs to, as the command layer names it:
// commands reach the operation log through this package and never import
// internal/git themselves.
type Repo = git.Repo

// Discover finds the repository git would use from dir (see git.Discover).
func Discover(ctx context.Context, dir string) (*Repo, error) { return git.Discover(ctx, dir) }
