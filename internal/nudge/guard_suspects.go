package nudge

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/proc"
)

// guardSuspects sorts the tasks that could have changed the shared
// settings since the last check. Active ones could be writing now: being
// prepared or run, held by a live process, or own for CheckOwn. Passive
// ones have a worktree handed out (prepared) that someone may be working
// in, with no process of ours to tell.
func (w *Workspace) guardSuspects(own *Task, kind guardCheckKind) (active, passive []*Task, err error) {
	tasks, err := w.suspectRecords()
	if err != nil {
		return nil, nil, err
	}
	if own != nil && kind == CheckOwn {
		// A command of own's ran (setup, the command, validation): what
		// changed is put back. A capture of a worktree that was only
		// handed out is like any prepared task: reported, held, kept.
		switch own.State {
		case StatePreparing, StateRunning, StateValidating:
			active = append(active, own)
		default:
			passive = append(passive, own)
		}
	}
	for _, t := range tasks {
		if own != nil && t.ID == own.ID {
			// checkSnapshot with own: a queued task whose snapshot is
			// being taken now has run nothing yet.
			if kind == CheckOwn || kind == checkSnapshot {
				continue
			}
			t = own // record into the caller's copy
		}
		switch {
		case w.live(t) || t.GuardPending:
			active = append(active, t)
		case t.State == StatePrepared:
			passive = append(passive, t)
		}
	}
	return active, passive, nil
}

// suspectRecords loads, newest first, the records of the tasks that may be
// suspects: those whose bytes hold one of suspectWords, and those a live
// process holds. The others are only checked to be valid JSON (a corrupt
// record is an error naming it, as for List): a snapshot with
// core.fsmonitor asks this each time, and decoding every task ever made
// would cost more than its git status.
func (w *Workspace) suspectRecords() ([]*Task, error) {
	if s := w.suspectsAtLock; s != nil {
		w.suspectsAtLock = nil // once: what this command writes later is ours
		return w.suspectRecordsFrom(s)
	}
	tasks, err := w.scanRecords(func(id string, data []byte) (bool, error) {
		if w.Busy(id) {
			return true, nil
		}
		if hasSuspectWord(data) {
			return true, nil
		}
		return false, journal.CheckObject(w.TaskPath(id), data)
	}, w.Busy)
	newestFirst(tasks)
	return tasks, err
}

// suspectRecordsFrom is suspectRecords from a scan Reconcile made: the
// records it saw with a suspect word, and any other a live process holds
// now, are loaded again (Reconcile may have settled some since).
func (w *Workspace) suspectRecordsFrom(s *suspectScan) ([]*Task, error) {
	if s.bad != nil {
		return nil, s.bad
	}
	var tasks []*Task
	for _, id := range s.ids {
		if !s.suspect[id] && !w.Busy(id) {
			continue
		}
		t, err := w.Load(id)
		var unknown *UnknownTaskError
		if errors.As(err, &unknown) {
			continue // removed meanwhile
		}
		if err != nil {
			return nil, err
		}
		tasks = append(tasks, t)
	}
	newestFirst(tasks)
	return tasks, nil
}

// live reports whether t is being prepared or run right now.
func (w *Workspace) live(t *Task) bool {
	return t.State == StatePreparing || t.State == StateRunning || w.Busy(t.ID)
}

// settlePending clears the pending check of tasks no longer prepared or
// run (their changes, if any, were just dealt with), own's in memory.
// pending, when not nil, lists the tasks whose records mentioned a pending
// check when the guard's reading was made (guardRead); otherwise every
// record is read now.
func (w *Workspace) settlePending(own *Task, kind guardCheckKind, warn io.Writer, pending []string) {
	if own != nil && kind == CheckOwn {
		own.GuardPending = false
	}
	if pending == nil {
		pending = w.pendingRecords()
	}
	for _, id := range pending {
		if own != nil && id == own.ID {
			continue
		}
		t, err := w.Load(id)
		if err != nil || !t.GuardPending || w.live(t) {
			continue
		}
		t.GuardPending = false
		if err := w.Save(t); err != nil {
			fmt.Fprintf(warn, "git nudge: WARNING: %v\n", err)
		}
	}
}

// pendingRecords lists the tasks whose record mentions a pending check
// (never nil).
func (w *Workspace) pendingRecords() []string {
	ids, err := w.taskIDs()
	if err != nil {
		return []string{}
	}
	out := []string{}
	q := w.quietRecordsOf() // a quiet record has no pending check
	defer q.close()
	for _, id := range ids {
		if _, _, isQuiet := q.known(w, id); isQuiet {
			continue
		}
		data, err := journal.ReadRegular(w.TaskPath(id))
		if err == nil && bytes.Contains(data, guardPendingTrue) {
			out = append(out, id)
		}
	}
	return out
}

// suspectNames are the suspect tasks for people, with the processes that
// make them suspects: "t3 (running: its command, pid 4242, outlived
// git-nudge)".
func (w *Workspace) suspectNames(ts []*Task) []string {
	var out []string
	for _, t := range ts {
		var why []string
		if nudgePID, cmdPID, ok := w.Orphaned(t); ok {
			if cmdPID > 0 {
				why = append(why, fmt.Sprintf("its command (pid %d) or something it started outlived git-nudge (pid %d)", cmdPID, nudgePID))
			} else {
				why = append(why, fmt.Sprintf("something it started outlived git-nudge (pid %d)", nudgePID))
			}
		} else {
			if t.PID != nil && *t.PID != os.Getpid() && !proc.Gone(*t.PID) && (t.State == StatePreparing || t.State == StateRunning) {
				why = append(why, fmt.Sprintf("git-nudge pid %d is running it", *t.PID))
			}
			if t.CommandPID != nil {
				if proc.Gone(*t.CommandPID) {
					why = append(why, fmt.Sprintf("its command ran as pid %d", *t.CommandPID))
				} else {
					why = append(why, fmt.Sprintf("its command pid %d is running", *t.CommandPID))
				}
			}
		}
		if t.Worktree != nil && len(why) == 0 {
			why = append(why, "its worktree "+QuotePath(*t.Worktree))
		}
		name := t.ID + " (" + StateLabel(t.State)
		if len(why) > 0 {
			name += ": " + strings.Join(why, ", ")
		}
		out = append(out, name+")")
	}
	return out
}
