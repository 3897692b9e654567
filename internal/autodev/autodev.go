// Package autodev owns git-autodev's workflows: checkpoint commits on the
// current branch, their journal (.autodev/checkpoints.json) and the refs
// that pin them, the run state (.autodev/state.json and run.lock), parking
// a work tree on a branch, and restoring a checkpoint without losing the
// work it replaces. It talks to git only through internal/git and knows
// nothing of the command line.
package autodev

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/refs"
	"github.com/nudgethis/git-nudge/internal/snapshot"
	"github.com/nudgethis/git-nudge/internal/worktree"
)

// DisabledMessage is what every command prints outside a git repository.
const DisabledMessage = "Not a git repository; checkpoints/rollback disabled (git init to enable recovery snapshots)"

// BareMessage is printed in a repository without a work tree.
const BareMessage = "This repository has no work tree (bare, or run from inside .git); checkpoints/rollback disabled"

// ErrNoRepository is returned by Open outside any git repository.
//
//lint:ignore ST1005 the text is the message users know, printed as it is
var ErrNoRepository = errors.New(DisabledMessage)

// ErrNoWorkTree is returned by Open in a bare repository or inside .git.
//
//lint:ignore ST1005 the text is the message users know, printed as it is
var ErrNoWorkTree = errors.New(BareMessage)

// Identity is the author and committer of every commit autodev makes.
var Identity = git.Identity{Name: "autodev", Email: "autodev@localhost"}

// Checkpoint types.
const (
	TypeBaseline   = "baseline"
	TypeTask       = "task"
	TypePreRestore = "pre-restore"
)

// Run states.
const (
	StatusIdle    = "idle"
	StatusRunning = "running"
	StatusError   = "error"
)

// SubjectPrefix starts the subject of every autodev commit.
const SubjectPrefix = "autodev: "

// BaselineLabel is the label of a baseline checkpoint.
const BaselineLabel = "baseline before run"

// lockWait is how long a command waits for another one holding .autodev/lock.
const lockWait = 10 * time.Second

// Workspace is one work tree's autodev state: the repository and the
// .autodev folder at its top level.
type Workspace struct {
	Repo *git.Repo
	Dir  string           // <top level>/.autodev
	Now  func() time.Time // clock for entries, branch names and ages
	// Notify, when set, is told what a command did besides its work, such
	// as removing files a killed command left (one line each).
	Notify func(string)

	journalCache *JournalCache // see UseJournalCache
}

// Open finds the repository containing dir.
func Open(ctx context.Context, dir string, now func() time.Time) (*Workspace, error) {
	r, err := git.Discover(ctx, dir)
	switch {
	case errors.Is(err, git.ErrNotRepository):
		return nil, ErrNoRepository
	case errors.Is(err, git.ErrBare):
		return nil, ErrNoWorkTree
	case err != nil:
		return nil, err
	}
	if now == nil {
		now = time.Now
	}
	return &Workspace{Repo: r, Dir: filepath.Join(r.WorkTree, refs.AutodevDir), Now: now}, nil
}

// Paths of the workspace's files.
func (ws *Workspace) CheckpointsPath() string { return filepath.Join(ws.Dir, "checkpoints.json") }
func (ws *Workspace) StatePath() string       { return filepath.Join(ws.Dir, "state.json") }
func (ws *Workspace) MemoryPath() string      { return filepath.Join(ws.Dir, "memory.md") }
func (ws *Workspace) LockPath() string        { return filepath.Join(ws.Dir, "lock") }
func (ws *Workspace) RunLockPath() string     { return filepath.Join(ws.Dir, "run.lock") }

// excluded lists the top-level paths no checkpoint, park or restore ever
// takes from or removes in the work tree: the checkpoint policy's.
var excluded = snapshot.CheckpointPolicy.Exclude

// Enabled reports whether checkpoints are on (git config
// autodev.checkpoints, default true).
func (ws *Workspace) Enabled(ctx context.Context) (bool, error) {
	return ws.Repo.ConfigBool(ctx, "autodev.checkpoints", true)
}

// ErrCheckpointsOff is returned by workflows that need checkpoints on.
var ErrCheckpointsOff = errors.New("checkpoints are off (git config autodev.checkpoints false); turn them on with git config autodev.checkpoints true")

// ensureDir creates .autodev with its .gitignore of "*", so git never
// sees anything inside it. It refuses when .autodev or a lock, journal or
// memory file in it is a symlink (or not a folder, not a file): the state
// would be written wherever the link points.
func (ws *Workspace) ensureDir() error {
	if _, err := worktree.RealDir(ws.Repo.WorkTree, ".autodev", true); err != nil {
		return err
	}
	var files []string
	for _, f := range []string{"lock", "run.lock", "memory.md", "checkpoints.json", "state.json", ".gitignore", journal.FormatFile} {
		files = append(files, ".autodev/"+f)
	}
	if err := worktree.RealFile(ws.Repo.WorkTree, files...); err != nil {
		return err
	}
	gi := filepath.Join(ws.Dir, ".gitignore")
	if _, err := os.Lstat(gi); errors.Is(err, os.ErrNotExist) {
		if err := journal.WriteBytes(gi, []byte("*\n")); err != nil {
			return err
		}
	}
	if err := journal.CheckFormat(ws.Dir, Format, true); err != nil {
		return err
	}
	return journal.CheckHolderVersion(ws.RunLockPath())
}

// Format is the version of .autodev's layout and journals that this
// binary writes (.autodev/format). A binary that finds a newer one
// changes nothing there.
const Format = 1

// lock takes .autodev/lock, which serializes the commands that change
// this workspace's journal, refs and tree, then the work-tree lock that
// git-nudge's apply, undo and save hold too.
func (ws *Workspace) lock(ctx context.Context, what string) (*journal.Lock, error) {
	if err := ws.ensureDir(); err != nil {
		return nil, err
	}
	lk, err := journal.Acquire(ctx, ws.LockPath(), lockWait, "git-autodev "+what)
	if err != nil {
		return nil, err
	}
	// Shared with git-nudge: see journal.WorkTreeLockName.
	if lk, err = journal.AcquireWorkTree(ctx, lk, ws.Repo.GitDir, lockWait, "git-autodev "+what); err != nil {
		return nil, err
	}
	if err := ws.clearLeftovers(); err != nil {
		lk.Release()
		return nil, err
	}
	return lk, nil
}

// RunActive reports whether a live process holds .autodev/run.lock, and
// the pid it wrote.
func (ws *Workspace) RunActive() (bool, int, error) {
	held, err := journal.Held(ws.RunLockPath())
	if err != nil || !held {
		return false, 0, err
	}
	return true, journal.HolderPID(ws.RunLockPath()), nil
}

// stamp is the time format of entries and state.
func (ws *Workspace) stamp() string { return ws.Now().UTC().Format(time.RFC3339) }

// branchTime is <time> in autodev/pre-restore-<time>: UTC YYYYMMDDTHHMMSSZ.
func (ws *Workspace) branchTime() string { return ws.Now().UTC().Format("20060102T150405Z") }

// ShortLen is how many hex digits of a commit id git-autodev prints: 7,
// the shortest prefix restore accepts, so a printed id can be
// typed back (git-nudge prints nudge.ShortIDLen: see docs/DECISIONS.md,
// 2026-12-01, short ids).
const ShortLen = 7

// Short is the ShortLen-character abbreviation of a commit id.
func Short(id string) string {
	if len(id) > ShortLen {
		return id[:ShortLen]
	}
	return id
}

// firstLine is the first non-empty line of s, trimmed.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

// Mark is the list's symbol for a checkpoint type.
func Mark(typ string) string {
	switch typ {
	case TypeBaseline:
		return "─"
	case TypePreRestore:
		return "⤿"
	default:
		return "✔"
	}
}
