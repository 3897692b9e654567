package oplog

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/refs"
	"github.com/nudgethis/git-nudge/internal/txn"
)

// refPrefixes are the refs a command of the suite can change.
var refPrefixes = []string{refs.Heads, refs.Snapshots, refs.Results, refs.Nudge, refs.Autodev}

// Scope is what a command may change besides the work tree and the
// index: the ref folders and the journals its recording reads before and
// after it. Reading everything would cost every command time that grows
// with the number of refs and task records; each command declares the
// scope it can change (Spec.Scope), one of the scopes below.
type Scope struct {
	// Refs are the ref folders the command may change.
	Refs []string
	// NewRefs is a ref folder whose refs the command only adds (a
	// checkpoint's): its loose files are listed, and only those that did
	// not exist before are read after the command.
	NewRefs string
	// WrittenRefs: of the refs under Refs, only HEAD's branch and the refs
	// the command changes (told through its transaction, each read right
	// before it changes) are read, not every ref under them. A long
	// command (Spec.Long) reads every ref under Refs instead: what the
	// commands it runs do to a branch is part of what it did.
	WrittenRefs bool
	Autodev     bool // .autodev/checkpoints.json and state.json
	Saves       bool // .nudgethis/saves.json
	Tasks       TaskScope
}

// TaskScope is which task records a recording reads.
type TaskScope int

const (
	AllTasks TaskScope = iota // every task record, before and after
	NoTasks
	// WrittenTasks: the records the command changes, each read right
	// before it changes it (told through its transaction) and again after
	// the command; no other record is read.
	WrittenTasks
)

var (
	// ScopeAll is everything a command of the suite can change: the scope
	// of a Spec that declares none.
	ScopeAll = Scope{Refs: refPrefixes, Autodev: true, Saves: true, Tasks: AllTasks}
	// ScopeTasks is a git-nudge command's: the tasks it acts on (their
	// records, refs and saves.json, and those a lock's reconciling or the
	// guard settles), and the branches (save, and a task's run). The
	// records and refs are those told to its transaction: the recording
	// costs what the command changes, not the number of tasks, and never
	// takes another process's changes made meanwhile for the command's.
	ScopeTasks = Scope{Refs: []string{refs.Heads, refs.Nudge}, WrittenRefs: true, Saves: true, Tasks: WrittenTasks}
	// ScopeSnapshot is git nudge snapshot's: a new task (its snapshot ref
	// and record), and the records its lock settles.
	ScopeSnapshot = Scope{Refs: []string{refs.Heads, refs.Snapshots}, WrittenRefs: true, Tasks: WrittenTasks}
	// ScopeCheckpoints is a git-autodev command's: the branches and
	// checkpoint refs it changes and its journals; never git-nudge's refs
	// or task records.
	ScopeCheckpoints = Scope{Refs: []string{refs.Heads, refs.Checkpoints}, WrittenRefs: true, Autodev: true, Tasks: NoTasks}
	// ScopeAutodevRun is git autodev run's: every branch (what the command
	// it runs does to them is part of the run), and the checkpoints it
	// adds (each pins a new id: only the new ones are read after it).
	ScopeAutodevRun = Scope{Refs: []string{refs.Heads}, NewRefs: refs.Checkpoints, Autodev: true, Tasks: NoTasks}
)

// scope is what s's command may change: its declared scope (ScopeAll when
// none), every ref of it read when the command is long.
func (s Spec) scope() Scope {
	sc := s.Scope
	if sc.Refs == nil {
		sc = ScopeAll
	}
	if s.Long {
		sc.WrittenRefs = false
	}
	return sc
}

// Spec is what a command is, for the operation log: each command that
// changes something declares it once (its Operation method; the recorder
// fills in Tool and Args).
type Spec struct {
	Tool string   // "nudge" or "autodev"
	Kind string   // the subcommand
	Args []string // the command line after the binary
	// Scope is what the command may change besides the work tree and the
	// index (ScopeAll when not set).
	Scope Scope
	// LeavesIndex: the command never changes the user's index; its
	// recording does not read it (a change made meanwhile by someone else
	// is not the command's).
	LeavesIndex bool
	// Paths are files the command may write (apply, undo).
	Paths []string
	// DropEmpty: a run that changed nothing leaves no operation (an
	// agent's hook, called on every turn).
	DropEmpty bool
	// Status: the command may change any file (restore): every path that
	// differs from HEAD before or after, or between the two HEADs, is
	// recorded.
	Status bool
	// Hinted: the command tells the recording, before it changes the
	// work tree, what it is about to change (Recording.Changing: restore
	// does); the recording then walks no work tree of its own. A hinted
	// command that never calls Changing changed no work-tree file.
	Hinted bool
	// FilesHinted: the command names the work-tree files it changes, and
	// what they hold, right before it changes any (Recording.Files: apply
	// and undo, which have just checked each one), and what they hold once
	// written and verified (Recording.FilesDone); the recording reads only
	// the files whose state it was not told. A command that never calls
	// Files changed no work-tree file.
	FilesHinted bool
	// SetsIndex: the command changes the user's index when it succeeds
	// (save): the tree of the index before it, when its cache-tree does
	// not hold it whole, is worked out while the command runs.
	SetsIndex bool
	// Long: the command runs a task's or the user's commands, for
	// minutes maybe, and holds no log lock meanwhile (other commands are
	// recorded meanwhile, and op undo refuses it whole): its recording
	// reads every ref of its scope before and after, since what those
	// commands do to a branch is part of what it did.
	Long bool
}

func (s Spec) touchesIndex() bool { return !s.LeavesIndex }

// noIndex stands for the index of a command that leaves it alone.
var noIndex = &git.IndexFile{Plain: true}

// Recording is an operation in progress.
type Recording struct {
	log    *Log
	spec   Spec
	op     *Op
	before *state
	dirty  []string
	hint   *changeHint
	// WrittenTasks and WrittenRefs scopes: the records and refs the
	// command said it was about to change (the Recording is the
	// command's txn.Tx), until Finish.
	mu          sync.Mutex
	finished    bool
	written     map[string]bool
	writtenRefs map[string]bool
	// FilesHinted: what the files named hold after the command (FilesDone).
	filesAfter map[string]*File
	// SetsIndex: the tree of the index before the command, worked out
	// beside it ("" when it could not be).
	beforeTree chan string
}

// Files tells a FilesHinted recording, right before the command changes
// any work-tree file, the files it may change: each path of paths with
// what it holds now in states (mode and the blob of its raw bytes, an
// object the repository has; nil for no file), or, missing from states,
// read here now. The pending record is written again with them, so that
// op show can tell, for a process that died, where each file stands.
func (r *Recording) Files(ctx context.Context, paths []string, states map[string]*File) {
	if r == nil || !r.spec.FilesHinted {
		return
	}
	var read []string
	for _, p := range paths {
		if st, ok := states[p]; ok {
			r.before.files[p] = st
		} else {
			read = append(read, p)
		}
	}
	if err := r.log.readFiles(ctx, read, r.before.files); err != nil {
		// Unknown before: recorded as unreadable rather than guessed.
		for _, p := range read {
			if _, ok := r.before.files[p]; !ok {
				r.before.files[p] = &File{Mode: "unreadable"}
			}
		}
	}
	r.op.Files = r.op.Files[:0]
	for _, p := range sortedKeys(r.before.files) {
		r.op.Files = append(r.op.Files, fileChange(p, r.before.files[p], nil))
	}
	// Best effort: the first pending record stands if this one fails.
	_ = r.log.writePending(r)
}

// FilesDone tells a FilesHinted recording what files named by Files hold
// now that the command wrote and verified them (as Files's states); the
// others are read when the operation is finished.
func (r *Recording) FilesDone(states map[string]*File) {
	if r == nil || !r.spec.FilesHinted {
		return
	}
	r.filesAfter = states
}

// JournalChanging is the recording as the command's transaction
// (txn.Tx): for a WrittenTasks scope, a task record of this work tree
// about to change is read as it is, the first time (what the command
// replaces); a record that does not exist yet is noted as new.
func (r *Recording) JournalChanging(path string) {
	rel, err := filepath.Rel(r.log.Repo.WorkTree, path)
	if err != nil {
		return
	}
	rel = filepath.ToSlash(rel)
	name, ok := strings.CutPrefix(rel, refs.TasksFolder)
	if !ok || strings.Contains(name, "/") || !strings.HasSuffix(name, ".json") {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.finished || r.written == nil || r.written[rel] {
		return
	}
	r.written[rel] = true
	if b, id, ok := readJournal(path); ok {
		r.before.journals[rel], r.before.jids[rel] = b, id
	}
}

// JournalAppended is the recording as a txn.JournalAppender: the
// command appended to a journal in place and says what it wrote, so that
// the change is recorded from that (a delta) instead of from the file
// read again and compared. It is used only when the file, when the
// command is done, is still exactly as the command left it (the same
// device, inode, size and times) and the version read before the command
// ends with the bytes the append replaced; otherwise the file is read as
// usual.
func (r *Recording) JournalAppended(path string, at, suffix int64, old, new []byte, sum string) {
	rel, err := filepath.Rel(r.log.Repo.WorkTree, path)
	if err != nil {
		return
	}
	rel = filepath.ToSlash(rel)
	key, ok := journal.StatKey(path)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.finished {
		return
	}
	if r.before.told == nil {
		r.before.told = map[string]*toldAppend{}
	}
	t := r.before.told[rel]
	if !ok {
		r.before.told[rel] = &toldAppend{broken: true}
		return
	}
	if t == nil {
		r.before.told[rel] = &toldAppend{at: at, suffix: suffix, old: old, new: new, key: key, sum: sum}
		return
	}
	// A second append in one command: the file is read and compared.
	t.broken = true
}

// toldAppend is what a command said it appended to a journal, merged
// over the appends it made (see Recording.JournalAppended).
type toldAppend struct {
	at       int64
	suffix   int64
	old, new []byte
	key      journal.FileKey
	sum      string // SHA-256 of the bytes outside the change
	broken   bool   // appends that do not chain: the file is read
}

// holds reports whether the journal at path is as the told appends left
// it, starting from before (the version read before the command), and
// large enough to be recorded as a delta at all.
func (t *toldAppend) holds(path string, before []byte) bool {
	if t == nil || t.broken || t.sum == "" || len(before) < deltaMinSize || t.at+int64(len(t.old))+t.suffix != int64(len(before)) || !bytes.Equal(before[t.at:t.at+int64(len(t.old))], t.old) {
		return false
	}
	key, ok := journal.StatKey(path)
	return ok && key == t.key
}

// delta is the told change as a Delta.
func (t *toldAppend) delta() *Delta {
	return &Delta{Prefix: t.at, Suffix: t.suffix, Old: t.old, New: t.new, Sum: t.sum}
}

// RefsChanging is the recording as the command's transaction (txn.Tx):
// for a WrittenRefs scope, a ref of this repository under the scope's
// folders about to change is read as it is, the first time (what the
// command replaces); HEAD and its branch are read before and after
// anyway.
func (r *Recording) RefsChanging(commonDir string, names []string) {
	if commonDir != r.log.Repo.CommonDir {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.finished || r.writtenRefs == nil {
		return
	}
	for _, n := range names {
		if r.writtenRefs[n] || !underAny(n, r.spec.scope().Refs) {
			continue
		}
		r.writtenRefs[n] = true
		if v, ok, err := r.log.Repo.ReadRefFast(context.Background(), n); err == nil && ok {
			r.before.refs[n] = v
		}
	}
}

// underAny reports whether ref name is under one of the folders prefixes.
func underAny(name string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// changeHint is what a hinted command said it was about to change: the
// work tree, written as the tree from, becomes commit to's tree.
type changeHint struct {
	from, to string
	// walked: the paths that differed from HEAD could not be listed from
	// the trees and were found by git status instead.
	walked bool
}

// Changing tells the recording, right before the command changes the
// work tree, that the work tree is the tree from (the command's capture
// of it: every file that differs from commit head, untracked ones
// included, ignored files and .autodev/ left out) and is about to become
// commit to's tree. The files that differ from head are read as they are
// now (their raw bytes: what the change costs, not what the repository
// costs) and the pending record is written again with them. Nothing is
// returned: a recording that cannot use the hint falls back to git status.
func (r *Recording) Changing(ctx context.Context, head, from, to string) {
	if r == nil || !r.spec.Hinted || r.hint != nil {
		return
	}
	l := r.log
	h := &changeHint{from: from, to: to}
	base := head
	if base == "" {
		base = l.Repo.EmptyTree()
	}
	var dirty []string
	changes, err := l.Repo.DiffTrees(ctx, base, from)
	if err == nil {
		for _, c := range changes {
			if c.OldMode != git.ModeGitlink && c.NewMode != git.ModeGitlink {
				dirty = append(dirty, c.Path)
			}
		}
	} else if dirty, err = l.Repo.DirtyPaths(ctx); err == nil {
		h.walked = true
	} else {
		return // Finish walks the work tree after the command
	}
	if err := l.readFiles(ctx, dirty, r.before.files); err != nil {
		return
	}
	r.hint = h
	r.dirty = dirty
	for _, p := range dirty {
		r.op.Files = append(r.op.Files, fileChange(p, r.before.files[p], nil))
	}
	// Best effort: the first pending record stands if this one fails.
	_ = l.writePending(r)
}

// Begin reads the state the command may change and appends the operation
// as pending, before the command changes anything.
func (l *Log) Begin(ctx context.Context, spec Spec, now time.Time) (*Recording, error) {
	paths := append([]string{}, spec.Paths...)
	var dirty []string
	if spec.Status && !spec.Hinted {
		var err error
		if dirty, err = l.Repo.DirtyPaths(ctx); err != nil {
			return nil, err
		}
		paths = append(paths, dirty...)
	}
	before, err := l.read(ctx, paths, nil, spec.touchesIndex(), spec.scope())
	if err != nil {
		return nil, err
	}
	op := &Op{Time: now.UTC(), Tool: spec.Tool, Args: spec.Args, Kind: spec.Kind, State: Pending,
		PID: os.Getpid(), Worktree: l.Key, Summary: spec.Kind + " (running)"}
	// The pending record holds what is known before: HEAD, its branch, the
	// index and the files to be written, so that op show can tell, for a
	// process that died, whether each still holds.
	op.Refs = append(op.Refs, RefChange{Name: "HEAD", Old: before.head})
	if b, ok := strings.CutPrefix(before.head, "ref: "); ok {
		op.Refs = append(op.Refs, RefChange{Name: b, Old: before.refs[b]})
	}
	for _, p := range sortedKeys(before.files) {
		op.Files = append(op.Files, fileChange(p, before.files[p], nil))
	}
	if before.index.Tree != "" {
		op.Index = &BlobChange{File: "index", OldTree: before.index.Tree}
	}
	rec := &Recording{log: l, spec: spec, op: op, before: before, dirty: dirty}
	if err := l.writePending(rec); err != nil {
		return nil, err
	}
	rec.startIndexTree(ctx)
	if spec.scope().Tasks == WrittenTasks {
		rec.written = map[string]bool{}
	}
	if spec.scope().WrittenRefs {
		// The refs read already (HEAD's branch) keep the value read
		// now: a ref the command moves twice, first through HEAD
		// (ResetHard), is recorded from where it started.
		rec.writtenRefs = map[string]bool{}
		for n := range before.refs {
			rec.writtenRefs[n] = true
		}
	}
	faultPoint("oplog-after-pending")
	return rec, nil
}

type recordingKey struct{}

// WithRecording returns ctx carrying rec, for the command it records:
// as the command's transaction too (txn.With), so that the repository
// the command opens with ctx tells rec what it is about to change.
func WithRecording(ctx context.Context, rec *Recording) context.Context {
	return txn.With(context.WithValue(ctx, recordingKey{}, rec), rec)
}

// RecordingFrom is the recording ctx carries (nil: none).
func RecordingFrom(ctx context.Context) *Recording {
	rec, _ := ctx.Value(recordingKey{}).(*Recording)
	return rec
}

// ID is the recorded operation's id (p<pid> while pending).
func (r *Recording) ID() string { return r.op.ID }

// Every recorded command of a worktree (but the long runs) and every op
// undo serialize on one lock in its git dir.

// Lock takes the log's lock (held for a whole recorded command).
func (l *Log) Lock(ctx context.Context, what string) (*journal.Lock, error) {
	return journal.Acquire(ctx, filepath.Join(l.Repo.GitDir, "nudgethis-oplog.lock"), 10*time.Second, what)
}
