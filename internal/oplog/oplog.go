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
	"bytes"
	"context"
	"encoding/json"
	"errors"
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

// The log is kept in segments: the ref holds the newest operations, a
// first-parent chain from a root commit of its own; every segmentSize
// operations (or when its oldest operation is older than op.keepDays) that
// chain is handed to a segment ref, refs/nudgethis-oplog/segments/<key>/<N>
// (N: the number of its newest operation, ten digits, then the start of
// its tip's id), and a new chain
// starts. Bounding the log deletes the oldest segment refs whole: no
// commit is ever rewritten, so bounding it leaves unreachable only the
// records it drops and what only they pinned.
const segmentOps = 100

// segmentSize is the operations of one segment: a tenth of op.keep, at
// most segmentOps, so that the log holds at most a tenth more than it
// keeps.
func (l *Log) segmentSize(ctx context.Context) int {
	return int(max(1, min(segmentOps, l.keepCount(ctx)/10)))
}

// segmentsRoot is the folder of the segment refs of every worktree's log.
const segmentsRoot = refs.OplogSegments

func (l *Log) segmentPrefix() string { return segmentsRoot + l.Key + "/" }

// segment is one segment ref: its name, its tip and the number of its
// newest operation.
type segment struct {
	name, tip string
	last      int
}

// segments lists the log's segment refs, oldest first.
func (l *Log) segments(ctx context.Context) ([]segment, error) {
	refs, _, err := l.Repo.RefsAndHead(ctx, l.segmentPrefix())
	if err != nil {
		return nil, err
	}
	var out []segment
	for name, tip := range refs {
		num, _, _ := strings.Cut(strings.TrimPrefix(name, l.segmentPrefix()), "-")
		n, err := strconv.Atoi(num)
		if err != nil || n <= 0 {
			continue // not one this package writes: left alone
		}
		out = append(out, segment{name: name, tip: tip, last: n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].last < out[j].last })
	return out, nil
}

// readChains is every commit of the log: the ref's chain and every
// segment's, in one git process. A segment dropped (and its pack
// deleted) while it was being read makes the read fail: it is read once
// more, without that segment.
func (l *Log) readChains(ctx context.Context) ([]git.ChainCommit, error) {
	cs, err := l.readChainsOnce(ctx)
	if err != nil {
		return l.readChainsOnce(ctx)
	}
	return cs, nil
}

func (l *Log) readChainsOnce(ctx context.Context) ([]git.ChainCommit, error) {
	var tips []string
	if tip, ok, err := l.Repo.ReadRefFast(ctx, l.Ref); err != nil {
		return nil, err
	} else if ok {
		tips = append(tips, tip)
	}
	segs, err := l.segments(ctx)
	if err != nil {
		return nil, err
	}
	for i := len(segs) - 1; i >= 0; i-- {
		tips = append(tips, segs[i].tip)
	}
	return l.chainsOf(ctx, tips)
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

// messageOf is the commit message that holds op's record: a subject line
// that reads well in git log (the op id, tool and kind), a blank line, then
// the record as JSON. The subject is only for people; readers use the JSON.
func messageOf(op *Op) (string, error) {
	rec, err := json.MarshalIndent(op, "", " ")
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("git-nudge op %s: git %s %s\n\n%s", op.ID, op.Tool, op.Kind, rec), nil
}

// recordOf is the JSON record a log commit's message holds: the whole
// message for records written before the subject line was added (they start
// with "{"), otherwise what follows the first blank line.
func recordOf(msg string) []byte {
	if strings.HasPrefix(msg, "{") {
		return []byte(msg)
	}
	if i := strings.Index(msg, "\n\n"); i >= 0 {
		return []byte(msg[i+2:])
	}
	return []byte(msg)
}

// rootMessage is the message of the parentless commit each chain starts at.
const rootMessage = "git-nudge operation log"

func (l *Log) root(ctx context.Context) (string, error) {
	empty, err := l.Repo.BlobTree(ctx, nil, nil)
	if err != nil {
		return "", err
	}
	if l.Repo.InProcess() {
		// One root for every chain, whatever the time: the newest chain
		// always reaches it, so a dropped segment leaves no root of its
		// own behind.
		who := identity.Name + " <" + identity.Email + "> 0 +0000\n"
		return l.Repo.WriteObject("commit", []byte("tree "+empty+"\nauthor "+who+"committer "+who+"\n"+rootMessage+"\n"))
	}
	return l.Repo.CommitTree(ctx, git.CommitRequest{Tree: empty, Message: rootMessage + "\n", Author: identity, Committer: identity})
}

var identity = git.Identity{Name: "git-nudge oplog", Email: "oplog@localhost"}

// append writes op as a new commit on the log (compare-and-swap, retried
// when another process appended first). A new op (ID "") gets the next id.
// The common case starts no git process: the tip is a loose commit read
// here, the objects are written as loose objects and the ref is swapped
// with git's lock protocol (see internal/gitstore/odb.go).
//
// ready, when set, waits for the objects op names that the caller is
// still writing: before the commit is made (and the ref moved), or before
// the tree when git makes it (git mktree checks that its entries exist).
func (l *Log) append(ctx context.Context, op *Op, ready func() error) error {
	tree, err := l.recordTree(ctx, op, ready)
	if err != nil {
		return err
	}
	// The refs the suite changes point at commits; a value that is not
	// one is left unpinned (a commit's parents must be commits).
	wanted := op.commits()
	var pins []string
	checked := false
	for attempt := 0; attempt < 50; attempt++ {
		if attempt > 0 {
			time.Sleep(time.Duration(attempt) * time.Millisecond)
		}
		tip, err := l.readTip(ctx)
		if err != nil {
			return err
		}
		op.number(tip)
		rotate, segment := l.chainOf(ctx, op, tip)
		if !checked {
			if pins, err = l.pinnable(ctx, wanted, tip.parents); err != nil {
				return err
			}
			checked = true
		}
		done, err := l.commitOn(ctx, op, tree, tip, rotate, segment, pins)
		if err != nil || done {
			return err
		}
	}
	return fmt.Errorf("the operation log %s kept changing underneath; try again", l.Ref)
}

// recordTree writes the tree of op's record, once ready (when set) has
// waited for what the record names: before the tree when git makes it,
// before the commit otherwise.
func (l *Log) recordTree(ctx context.Context, op *Op, ready func() error) (string, error) {
	if ready != nil && !l.Repo.InProcess() {
		if err := ready(); err != nil {
			return "", err
		}
	}
	tree, err := l.Repo.BlobTree(ctx, op.blobs(), l.uncovered(op))
	if err != nil {
		return "", err
	}
	if ready != nil {
		// What the record names is written before anything names it.
		if err := ready(); err != nil {
			return "", err
		}
	}
	return tree, nil
}

// logTip is what the log's ref points at when an append tries to move it.
type logTip struct {
	commit  string // "" when the log has no ref yet
	parents []string
	// last is the newest record, nil when there is none (no ref, or the
	// tip is a chain's root).
	last *Op
}

// readTip reads the log's tip commit and the record it holds.
func (l *Log) readTip(ctx context.Context) (logTip, error) {
	commit, ok, err := l.Repo.ReadRefFast(ctx, l.Ref)
	if err != nil || !ok {
		return logTip{}, err
	}
	tip := logTip{commit: commit}
	var msg string
	if tip.parents, msg, err = l.Repo.ReadCommit(ctx, commit); err != nil {
		return logTip{}, err
	}
	if msg == rootMessage {
		return tip, nil
	}
	var last Op
	if err := json.Unmarshal(recordOf(msg), &last); err != nil {
		return logTip{}, &CorruptError{Ref: l.Ref, Commit: commit, Err: err}
	}
	if _, valid := Number(last.ID); !valid {
		return logTip{}, &CorruptError{Ref: l.Ref, Commit: commit, Err: fmt.Errorf("malformed id %q", last.ID)}
	}
	tip.last = &last
	return tip, nil
}

// number gives op the id after the tip's newest record ("o1" on an empty
// log), unless op has an id of its own (not one an earlier attempt of
// this append gave it).
func (op *Op) number(tip logTip) {
	if op.ID != "" && !op.assigned && strings.HasPrefix(op.ID, "o") {
		return
	}
	n := 1
	if tip.last != nil {
		m, _ := Number(tip.last.ID)
		n = m + 1
	}
	op.ID = "o" + strconv.Itoa(n)
	op.assigned = true
}

// chainOf decides where op goes, setting its ChainSince: on the tip's
// chain, or (rotate) at the start of a new one, the tip's chain becoming
// a segment (handed to the ref segment) once it holds the segment size
// or is older than the keep age.
func (l *Log) chainOf(ctx context.Context, op *Op, tip logTip) (rotate bool, segment string) {
	op.ChainSince = op.Time
	if tip.last == nil {
		return false, ""
	}
	m, _ := Number(tip.last.ID)
	since := tip.last.ChainSince
	if since.IsZero() {
		since = tip.last.Time // a record from before segments
	}
	rotate = m%l.segmentSize(ctx) == 0 || l.keepAge(ctx) > 0 && op.Time.Sub(since) > l.keepAge(ctx)
	if rotate {
		return true, fmt.Sprintf("%s%010d-%.12s", l.segmentPrefix(), m, tip.commit)
	}
	op.ChainSince = since
	return false, ""
}

// pinnable returns those of wanted that are commits, which op's commit
// pins as parents. Commits the tip already pins (tipParents) are known to
// be commits; the others are looked at (in this process when loose).
func (l *Log) pinnable(ctx context.Context, wanted, tipParents []string) ([]string, error) {
	known := map[string]bool{}
	for _, p := range tipParents {
		known[p] = true
	}
	var ask []string
	for _, c := range wanted {
		if !known[c] {
			ask = append(ask, c)
		}
	}
	types, err := l.Repo.ObjectTypes(ctx, ask)
	if err != nil {
		return nil, err
	}
	var pins []string
	for _, c := range wanted {
		if known[c] || types[c] == "commit" {
			pins = append(pins, c)
		}
	}
	return pins, nil
}

// commitOn makes op's commit (tree, pinning pins) on the tip, or on a new
// chain's root when rotate, and moves the log's ref to it if the ref still
// points at the tip. done is false when another process appended first:
// the append is tried again from the new tip.
func (l *Log) commitOn(ctx context.Context, op *Op, tree string, tip logTip, rotate bool, segment string, pins []string) (done bool, err error) {
	msg, err := messageOf(op)
	if err != nil {
		return false, err
	}
	old := l.Repo.ZeroID()
	if tip.commit != "" {
		old = tip.commit
	}
	if rotate {
		// The segment ref is made before the log's ref moves past
		// it: a crash between the two leaves a segment that the
		// chain also holds (read once), never a lost one.
		if err := l.Repo.SetRef(ctx, git.SetRefRequest{Name: segment, New: tip.commit, Old: l.Repo.ZeroID()}); err != nil && !errors.Is(err, git.ErrRefConflict) {
			return false, err
		}
	}
	var parents []string
	if tip.commit != "" && !rotate {
		parents = append(parents, tip.commit)
	} else {
		// The chain starts at a root of its own, so that following
		// first parents never walks into the commits an op pins.
		root, err := l.root(ctx)
		if err != nil {
			return false, err
		}
		parents = append(parents, root)
	}
	parents = append(parents, pins...)
	c, err := l.Repo.CommitTree(ctx, git.CommitRequest{Tree: tree, Parents: parents, Message: string(msg) + "\n", Author: identity, Committer: identity})
	if err != nil {
		return false, err
	}
	err = l.Repo.SetRefFast(ctx, l.Ref, c, old)
	if errors.Is(err, git.ErrRefConflict) {
		if rotate {
			// Another process appended first: the chain goes on
			// from its record, and the segment is handed over later.
			_ = l.Repo.DeleteRef(ctx, segment, tip.commit)
		}
		return false, nil
	}
	if err != nil {
		return false, err
	}
	op.commit = c
	op.assigned = false
	if rotate {
		l.packSegment(ctx, segment, tip.commit)
	}
	return true, nil
}

// uncovered is the trees op keeps reachable less those that are the
// trees of commits it pins (an index that matched HEAD before and after:
// a checkpoint's), which the commits keep reachable already. A record that
// pins nothing else gets the empty tree, one object every record shares,
// so a dropped record leaves one unreachable object, its commit.
func (l *Log) uncovered(op *Op) []string {
	trees := op.trees()
	if len(trees) == 0 || !l.Repo.InProcess() || l.Repo.MayReplace() {
		return trees
	}
	covered := map[string]bool{}
	for _, c := range op.commits() {
		typ, data, ok := l.Repo.ReadObjectHere(c)
		if !ok || typ != "commit" {
			continue // read only when loose: otherwise the tree stays
		}
		if t, ok := bytes.CutPrefix(data, []byte("tree ")); ok {
			id, _, _ := bytes.Cut(t, []byte("\n"))
			covered[string(id)] = true
		}
	}
	var out []string
	for _, t := range trees {
		if !covered[t] {
			out = append(out, t)
		}
	}
	return out
}

// keptNote starts the .keep note of the pack a segment's records are
// moved to; the segment ref's name and tip follow it.
const keptNote = "git-nudge operation log segment "

// packSegment moves the records of the chain handed to segment (tip
// and its first parents down to the chain's root, those still loose)
// into a pack of their own kept by a .keep file, so that git gc neither
// repacks them while the segment is kept nor loosens them once bounding
// drops it: dropSegmentPacks then deletes the pack whole. Only record
// commits go there (each is the log's alone); the root, the trees and
// what the records pin stay where git keeps them. Best effort: the
// records stay loose when anything fails.
func (l *Log) packSegment(ctx context.Context, segment, tip string) {
	var ids []string
	for c := tip; c != ""; {
		typ, data, ok := l.Repo.ReadObjectHere(c)
		if !ok || typ != "commit" {
			break // already packed (by git gc) or not readable here
		}
		head, body, _ := bytes.Cut(data, []byte("\n\n"))
		if string(bytes.TrimRight(body, "\n")) == rootMessage {
			break
		}
		ids = append(ids, c)
		c = ""
		for _, line := range strings.Split(string(head), "\n") {
			if p, ok := strings.CutPrefix(line, "parent "); ok {
				c = p
				break
			}
		}
	}
	if len(ids) == 0 {
		return
	}
	_, _ = l.Repo.WriteKeptPack(ctx, ids, keptNote+segment+" "+tip)
}

// dropSegmentPacks deletes the packs of this log's segments that are no
// longer kept (dropped by bounding, or a crash after that), once no ref,
// HEAD or reflog reaches any commit they hold, and never while git gc
// may be running (it could be reading them through a ref it listed
// before the segment was dropped).
func (l *Log) dropSegmentPacks(ctx context.Context) {
	if l.Repo.GCRunning() {
		return
	}
	packs, err := l.Repo.KeptPacks(keptNote + l.segmentPrefix())
	if err != nil || len(packs) == 0 {
		return
	}
	segs, err := l.segments(ctx)
	if err != nil {
		return
	}
	live := map[string]bool{}
	for _, sg := range segs {
		live[sg.name+" "+sg.tip] = true
	}
	for _, p := range packs {
		if live[strings.TrimPrefix(p.Note, keptNote)] {
			continue
		}
		ids, err := l.Repo.PackObjects(p)
		if err != nil || len(ids) == 0 {
			continue
		}
		gone, err := l.Repo.Unreachable(ctx, ids)
		if err != nil {
			continue // a commit it walks to is missing: left to the user's git
		}
		all := true
		for _, id := range ids {
			all = all && gone[id]
		}
		if all {
			_ = l.Repo.RemoveKeptPack(p)
		}
	}
}

// prune bounds the log: the oldest segment is dropped while the
// operations after it are op.keep or more, or while its newest operation
// is older than op.keepDays. Segments are dropped whole, and their records
// (and the objects only they kept) become unreachable only then.
func (l *Log) prune(ctx context.Context, newest *Op) error {
	n, _ := Number(newest.ID)
	if n%10 != 1 && l.segmentSize(ctx) >= 10 {
		return nil // looked at every tenth operation, and after a rotation
	}
	segs, err := l.segments(ctx)
	if err != nil || len(segs) == 0 {
		return err
	}
	keep := l.keepCount(ctx)
	age := l.keepAge(ctx)
	dropped := false
	for _, sg := range segs {
		drop := int64(n-sg.last) >= keep
		if !drop && age > 0 {
			_, msg, err := l.Repo.ReadCommit(ctx, sg.tip)
			if err != nil {
				return err
			}
			var last Op
			if json.Unmarshal(recordOf(msg), &last) == nil && !last.Time.IsZero() && newest.Time.Sub(last.Time) > age {
				drop = true
			}
		}
		if !drop {
			break
		}
		if err := l.Repo.DeleteRef(ctx, sg.name, sg.tip); err != nil {
			return nil // changed underneath: the next append looks again
		}
		dropped = true
	}
	if dropped {
		l.dropSegmentPacks(ctx)
	}
	return nil
}

// keepCount is op.keep (DefaultKeep when unset or not positive).
func (l *Log) keepCount(ctx context.Context) int64 {
	if l.keep > 0 {
		return l.keep
	}
	l.keep = DefaultKeep
	// No config file that could set op.keep: its default, no git process.
	if l.Repo.ConfigMayMention("keep") {
		if keep, err := l.Repo.ConfigInt(ctx, "op.keep", DefaultKeep); err == nil && keep > 0 {
			l.keep = keep
		}
	}
	return l.keep
}

// DefaultKeepDays is op.keepDays's default.
const DefaultKeepDays = 30

// keepAge is op.keepDays as a duration (0: no bound by age).
func (l *Log) keepAge(ctx context.Context) time.Duration {
	if l.ageRead {
		return l.age
	}
	l.ageRead = true
	days := int64(DefaultKeepDays)
	if l.Repo.ConfigMayMention("keepdays") {
		d, err := l.Repo.ConfigInt(ctx, "op.keepDays", DefaultKeepDays)
		if err == nil && d >= 0 {
			days = d
		}
	}
	l.age = time.Duration(days) * 24 * time.Hour
	return l.age
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
