package nudge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/guard"
	"github.com/nudgethis/git-nudge/internal/journal"
)

// This file decides, for the guard of the repository's shared git
// settings (internal/guard), which tasks a change found is laid at. The
// trusted state is compared with the repository whenever a snapshot is
// taken, a run ends, a result is captured and a task is applied. While no
// task can be writing (none is preparing, prepared or running, and the
// command's own task has no worktree), the state found is simply trusted
// from then on: it is the user's. Otherwise every difference is reported
// on stderr, each file is put back as it was (the version found is kept in
// .nudgethis/quarantine/), and the changes are recorded in the records of
// the tasks that could have made them, whose apply refuses until
// --accept-config-change. docs/SECURITY.md says what this does and does
// not stop.

// Guard is the guard of this workspace's repository and state folder.
func (w *Workspace) Guard() *guard.Guard {
	return &guard.Guard{Repo: w.Repo, Dir: w.Dir, Identity: Identity, Warn: w.Warn}
}

// safeTaskWorktree checks the git folder of t's worktree wr before any git
// command runs there (guard.CheckWorktree).
func (w *Workspace) safeTaskWorktree(ctx context.Context, t *Task, wr *git.Repo) error {
	return w.Guard().CheckWorktree(ctx, t.ID, wr)
}

// privateGitDir makes, in a fresh stage folder, the git folder the
// capture's git commands use for the task worktree wr
// (guard.PrivateGitDir). The caller removes it (RemoveStage).
func (w *Workspace) privateGitDir(ctx context.Context, wr *git.Repo) (string, error) {
	dir, err := w.NewStage()
	if err != nil {
		return "", err
	}
	if err := w.Guard().PrivateGitDir(ctx, dir, wr); err != nil {
		_ = w.RemoveStage(filepath.Base(dir))
		return "", err
	}
	return dir, nil
}

// guardCheckKind says which command checks, and so how much it may do.
type guardCheckKind int

const (
	// checkSnapshot: a new task is about to be made; with no task
	// running, what is found becomes the trusted state.
	checkSnapshot guardCheckKind = iota
	// CheckOwn: run's end or capture: the command's own task could have
	// written the settings (it ran, or has a worktree).
	CheckOwn
	// CheckApply: apply changes nothing in .git unless a task is running
	// right now, and never records a new trusted state.
	CheckApply
)

// guardReading is what guardCheck reads before it decides anything: the
// trusted state, the settings now, the tasks with a pending check. It
// writes nothing, so it can be made while the work tree is captured.
type guardReading struct {
	prev    guard.State
	prevErr error
	now     []guard.File
	nowErr  error
	pending []string
}

// guardRead makes the reading guardCheck of kind starts with (nothing
// more once it is known that guardCheck returns at once). pending, when
// not nil, are the tasks with a pending check as already read under the
// lock held since (Workspace.pendingAtLock).
func (w *Workspace) guardRead(kind guardCheckKind, pending []string) *guardReading {
	g := &guardReading{}
	g.prevErr = journal.Read(w.Guard().Path(), &g.prev)
	if g.prevErr == nil || errors.Is(g.prevErr, fs.ErrNotExist) && kind != CheckApply {
		g.now, g.nowErr = w.Guard().Scan()
		g.pending = pending
		if g.pending == nil {
			g.pending = w.pendingRecords()
		}
	}
	return g
}

// GuardCheck compares the shared git settings with the trusted state (see
// the top of this file). Differences found while a task could be writing
// (an active suspect) are reported on warn, put back, and recorded in the
// record of every task that could have made them (own included, also in
// memory), so that their apply refuses. Differences found while tasks only
// had worktrees handed out (passive) are reported and recorded in those
// tasks, and then trusted as the user's. With no suspect at all they are
// simply trusted. It never fails the command: what it cannot do is
// reported and recorded. The workspace lock is held.
func (w *Workspace) GuardCheck(ctx context.Context, own *Task, kind guardCheckKind, warn io.Writer) {
	w.guardCheckRead(ctx, own, kind, warn, nil)
}

// guardCheckRead is guardCheck from a reading made earlier (guardRead;
// nil: read now).
func (w *Workspace) guardCheckRead(ctx context.Context, own *Task, kind guardCheckKind, warn io.Writer, g *guardReading) {
	if warn == nil {
		warn = w.Warn
	}
	if warn == nil {
		warn = io.Discard
	}
	if own != nil && kind == CheckOwn {
		// Checks made by other commands while own ran recorded their
		// findings on disk; the caller's copy is the one saved next.
		if d, err := w.Load(own.ID); err == nil {
			for _, l := range d.ConfigChanges {
				if !Contains(own.ConfigChanges, l) {
					own.ConfigChanges = append(own.ConfigChanges, l)
				}
			}
		}
	}
	if g == nil {
		g = w.guardRead(kind, nil)
	}
	gd := w.Guard()
	prev, err := g.prev, g.prevErr
	havePrev := err == nil
	if !havePrev && kind == CheckApply {
		return // nothing trusted yet, and apply records none
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(warn, "git nudge: WARNING: %v\n", err)
		w.recordGuard(own, fmt.Sprintf("the record of the trusted git settings is unreadable (%v); check .git/config and .git/hooks by hand, then delete %s", err, gd.Path()), warn)
		return
	}
	now, err := g.now, g.nowErr
	if err != nil {
		fmt.Fprintf(warn, "git nudge: WARNING: cannot compare the repository's shared git settings: %v\n", err)
		w.recordGuard(own, "the repository's shared git settings could not be compared: "+err.Error(), warn)
		return
	}
	upgraded := havePrev && guard.Upgrade(&prev, now)
	changes := guard.Diff(prev.Files, now)
	if kind == CheckOwn && havePrev {
		changes = append(changes, gd.WorktreeConfig(ctx, worktreeOf(own))...)
	}
	if havePrev && len(changes) == 0 {
		if upgraded && kind != CheckApply {
			if err := gd.Trust(ctx, now); err != nil {
				fmt.Fprintf(warn, "git nudge: WARNING: recording the repository's git settings as trusted: %v\n", err)
			}
		}
		w.settlePending(own, kind, warn, g.pending)
		return
	}
	active, passive, err := w.guardSuspects(own, kind)
	if err != nil {
		fmt.Fprintf(warn, "git nudge: WARNING: %v\n", err)
		return
	}
	trust := func() {
		if kind == CheckApply {
			return
		}
		if err := gd.Trust(ctx, now); err != nil {
			fmt.Fprintf(warn, "git nudge: WARNING: recording the repository's git settings as trusted: %v\n", err)
		}
	}
	if !havePrev && kind == CheckOwn && own.Rules != nil {
		// The task was made by a version that records the trusted state
		// at every snapshot: its record is gone since, which a task can do.
		msg := fmt.Sprintf("the record of the trusted git settings (%s) disappeared while %s could change it; compare .git/config and .git/hooks with what you expect", gd.Path(), own.ID)
		fmt.Fprintf(warn, "git nudge: WARNING: %s\n", msg)
		w.recordGuard(own, msg, warn)
	}
	if !havePrev || len(active)+len(passive) == 0 {
		trust() // no task could have written them: they are the user's
		w.settlePending(own, kind, warn, g.pending)
		return
	}
	if len(active) == 0 && kind == CheckApply {
		return
	}
	suspects := append(append([]*Task{}, active...), passive...)
	var ids []string
	for _, t := range suspects {
		ids = append(ids, t.ID)
	}
	lines := gd.Describe(ctx, changes)
	fmt.Fprintf(warn, "git nudge: WARNING: the repository's shared git settings changed while %s could change them:\n", strings.Join(w.suspectNames(suspects), ", "))
	for _, l := range lines {
		fmt.Fprintf(warn, "  %s\n", l)
	}
	if len(active) > 0 {
		qdir, problems := gd.PutBack(ctx, changes)
		if qdir != "" {
			fmt.Fprintf(warn, "git nudge: put them back as they were; what was found is kept in %s\n", qdir)
			if err := gd.WriteManifest(qdir, changes, ids, lines); err == nil {
				fmt.Fprintf(warn, "git nudge: if you made these changes yourself, git nudge guard accept puts them back in place and clears them from %s\n", strings.Join(ids, ", "))
			}
		}
		for _, p := range problems {
			fmt.Fprintf(warn, "git nudge: could not put back %s\n", p)
			lines = append(lines, "NOT put back: "+p)
		}
		fmt.Fprintf(warn, "git nudge: git nudge apply refuses %s until you have looked: git nudge apply ID --accept-config-change applies it anyway.\n", strings.Join(ids, ", "))
	} else {
		// Nothing of ours was running: most likely the user's own change,
		// but a task worktree was handed out, so its apply waits too.
		trust()
		fmt.Fprintf(warn, "git nudge: no task was running, so they are kept as yours; git nudge apply refuses %s until you have looked (--accept-config-change applies it anyway).\n", strings.Join(ids, ", "))
	}
	for _, t := range suspects {
		t.ConfigChanges = append(t.ConfigChanges, lines...)
		if (t == own && kind == CheckOwn) || !w.live(t) {
			t.GuardPending = false
		}
		if t == own && (t.State == StatePreparing || t.State == StateRunning) {
			continue // its caller saves it, with its next state
		}
		if err := w.Save(t); err != nil {
			fmt.Fprintf(warn, "git nudge: WARNING: recording this in %s: %v\n", t.ID, err)
		}
	}
	w.settlePending(own, kind, warn, g.pending)
}

// GuardReason is apply's refusal while t has config changes not accepted.
func GuardReason(t *Task) (string, string) {
	if len(t.ConfigChanges) == 0 {
		return "", ""
	}
	return fmt.Sprintf("the repository's shared git settings (config, hooks, info/ or shallow) were changed while %s could change them: %s", t.ID, strings.Join(t.ConfigChanges, "; ")),
		fmt.Sprintf("They were put back (what was found is in .nudgethis/quarantine/). Look at them, then git nudge apply %s --accept-config-change applies the task anyway.", t.ID)
}

// recordGuard adds line to own's record, so that its apply refuses.
func (w *Workspace) recordGuard(own *Task, line string, warn io.Writer) {
	if own == nil {
		return
	}
	own.ConfigChanges = append(own.ConfigChanges, line)
	if err := w.Save(own); err != nil {
		fmt.Fprintf(warn, "git nudge: WARNING: recording this in %s: %v\n", own.ID, err)
	}
}

// worktreeOf is the folder of t's worktree, "" when t is nil or has none.
func worktreeOf(t *Task) string {
	if t == nil || t.Worktree == nil {
		return ""
	}
	return *t.Worktree
}
