package autodev

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/proc"
	"github.com/nudgethis/git-nudge/internal/snapshot"
)

// indexName is the name CopyIndex gives autodev's private indexes (the
// checkpoint's capture names its copy so).
var indexName = snapshot.CheckpointPolicy.IndexName

// Leftover is a private index file, or the user's index.lock, that a
// git-autodev process left in the git dir when it was killed.
type Leftover struct {
	Path string // as shown: relative to the top level when inside it
	PID  int    // the process that left it; 0 when its name does not say
	// UserLock is the user's index.lock (an index replacement was cut).
	UserLock bool
	// Removable is true when the file is provably from a process that has
	// ended: the next checkpoint, park or restore removes it.
	Removable bool
}

// Describe says what the leftover is, for status and for the note printed
// when it is removed.
func (l Leftover) Describe() string {
	switch {
	case l.UserLock:
		return fmt.Sprintf("%s, left by git-autodev process %d (which has ended) while it replaced the index; the index is as it was before that command", l.Path, l.PID)
	case l.PID == 0:
		return fmt.Sprintf("%s, a private index of git-autodev from a version that did not record its process; remove it if no git-autodev command is running", l.Path)
	}
	return fmt.Sprintf("%s, a private index left by git-autodev process %d, which has ended", l.Path, l.PID)
}

// leftovers lists what killed git-autodev processes left in the git dir:
// each private index file (and its .lock) named with the pid of a process
// that has ended, the user's index.lock when it is a link to one of them,
// and, not removable, private indexes whose name records no pid.
// Files of live processes (a checkpoint running right now) are not listed.
func (ws *Workspace) leftovers() ([]Leftover, []git.LeftoverIndex, error) {
	all, err := ws.Repo.LeftoverIndexes(indexName)
	if err != nil {
		return nil, nil, err
	}
	// The user's index.lock first: removing it checks that it is still
	// a link to the private index, which must then still be there.
	sort.SliceStable(all, func(i, j int) bool { return all[i].UserLock && !all[j].UserLock })
	var out []Leftover
	var removable []git.LeftoverIndex
	for _, l := range all {
		gone := l.PID != 0 && l.PID != os.Getpid() && proc.Gone(l.PID)
		if l.PID != 0 && !gone {
			continue
		}
		out = append(out, Leftover{Path: ws.shown(l.Path), PID: l.PID, UserLock: l.UserLock, Removable: gone})
		if gone {
			removable = append(removable, l)
		}
	}
	return out, removable, nil
}

// clearLeftovers removes the files of leftovers that are provably from
// processes that have ended, and says so through Notify. It runs with the
// work-tree lock held, so no other git-nudge or git-autodev command is
// changing the tree meanwhile. An index.lock that is not provably ours is
// never touched: a running git may own it.
func (ws *Workspace) clearLeftovers() error {
	list, removable, err := ws.leftovers()
	if err != nil {
		return err
	}
	i := 0
	for _, l := range list {
		if !l.Removable {
			continue
		}
		if err := ws.Repo.RemoveLeftover(indexName, removable[i]); err != nil {
			return fmt.Errorf("removing %s: %w", l.Path, err)
		}
		i++
		ws.notify("removed " + l.Describe())
	}
	return nil
}

// ForeignIndexLock is the user's index.lock when it exists and is not
// provably autodev's ("" otherwise).
func (ws *Workspace) ForeignIndexLock(list []Leftover) string {
	if !ws.Repo.IndexLocked() {
		return ""
	}
	for _, l := range list {
		if l.UserLock {
			return ""
		}
	}
	return ws.shown(ws.Repo.IndexPath() + ".lock")
}

// shown is path relative to the top level when it is inside it.
func (ws *Workspace) shown(path string) string {
	if rel, err := filepath.Rel(ws.Repo.WorkTree, path); err == nil && filepath.IsLocal(rel) {
		return rel
	}
	return path
}

// notify passes a note to Notify, when set.
func (ws *Workspace) notify(msg string) {
	if ws.Notify != nil {
		ws.Notify(msg)
	}
}
