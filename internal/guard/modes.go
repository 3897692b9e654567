package guard

import (
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"

	"github.com/nudgethis/git-nudge/internal/pathenc"
	"github.com/nudgethis/git-nudge/internal/refusal"
	"github.com/nudgethis/git-nudge/internal/shquote"
)

// This file checks, before a snapshot, a start or a run, that no other
// user of the machine can write what git and git-nudge trust (docs/SECURITY.md): the
// repository's git folder, its config, object store and hooks, and the
// state folders .nudgethis and .autodev. A .git/config that another user
// can write lets that user plant core.fsmonitor, which the next snapshot's
// git status runs as this user; the guard compares contents, which that
// user can change between two checks. So such a mode is refused, with the
// command that fixes it, and nothing is done.
//
// Group write is accepted when the group is the user's own private group
// (named like the user and the user's primary group: the user-private-group
// convention, where umask 002 is the default and the group holds nobody
// else). Files owned by root are accepted (root can write anything anyway).

// modeProblem is one path whose owner or mode lets another user write it.
type modeProblem struct {
	path   string
	reason string
	fix    string
}

// modeChecker knows the user; the user's name and private group are
// looked up only when a path needs them (reading the user and group
// databases cost most of a check that finds nothing).
type modeChecker struct {
	uid int
}

func newModeChecker() modeChecker { return modeChecker{uid: os.Geteuid()} }

// userName is the user's login name (the uid when it has none).
func (c modeChecker) userName() string {
	if u, err := user.LookupId(strconv.Itoa(c.uid)); err == nil {
		return u.Username
	}
	return strconv.Itoa(c.uid)
}

// ownGroup reports whether gid is the user's private group: the user's
// primary group, named like the user.
func (c modeChecker) ownGroup(gid int) bool {
	if gid != os.Getegid() {
		return false
	}
	u, err := user.LookupId(strconv.Itoa(c.uid))
	if err != nil || u.Gid != strconv.Itoa(gid) {
		return false
	}
	g, err := user.LookupGroupId(u.Gid)
	return err == nil && g.Name == u.Username
}

// check reports what is wrong with the path abs (nil when nothing is, or
// when it does not exist). A symlink is judged by its target's folder
// only through the caller; its own mode means nothing.
func (c modeChecker) check(abs string) *modeProblem {
	st, err := os.Lstat(abs)
	if err != nil {
		return nil
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		return nil
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if int(sys.Uid) != c.uid && sys.Uid != 0 {
		owner := strconv.Itoa(int(sys.Uid))
		if u, err := user.LookupId(owner); err == nil {
			owner = u.Username
		}
		return &modeProblem{path: abs, reason: fmt.Sprintf("it is owned by %s, not by you", owner),
			fix: fmt.Sprintf("chown %s %s (as root), or move the repository to a folder of your own", c.userName(), shquote.Word(abs))}
	}
	perm := st.Mode().Perm()
	bad := perm & 0o002
	if perm&0o020 != 0 && !c.ownGroup(int(sys.Gid)) {
		bad |= 0o020
	}
	if bad == 0 {
		return nil
	}
	who := "other users"
	if bad&0o002 == 0 {
		who = "its group"
	}
	return &modeProblem{path: abs, reason: fmt.Sprintf("it is writable by %s (mode %04o)", who, perm),
		fix: "chmod go-w " + shquote.Word(abs)}
}

// modePaths are the paths checked: the common git folder, its config,
// object store, hooks folder and every hook, the workspace's own git
// folder when it is a linked worktree, and .nudgethis and .autodev.
func (g *Guard) modePaths() []string {
	cd := g.Repo.CommonDir
	paths := []string{cd, filepath.Join(cd, "config"), filepath.Join(cd, "objects"), filepath.Join(cd, "hooks")}
	if ents, err := os.ReadDir(filepath.Join(cd, "hooks")); err == nil {
		for i, e := range ents {
			if i >= ScanLimit {
				break
			}
			paths = append(paths, filepath.Join(cd, "hooks", e.Name()))
		}
	}
	if g.Repo.GitDir != cd {
		paths = append(paths, g.Repo.GitDir)
	}
	paths = append(paths, g.Dir, filepath.Join(g.Repo.WorkTree, ".autodev"))
	return paths
}

// CheckModes refuses when another user can write what git and git-nudge
// trust (see the top of this file); what is an empty error otherwise.
func (g *Guard) CheckModes(what string) error {
	c := newModeChecker()
	var probs []*modeProblem
	for _, p := range g.modePaths() {
		if pr := c.check(p); pr != nil {
			probs = append(probs, pr)
		}
	}
	if len(probs) == 0 {
		return nil
	}
	sort.SliceStable(probs, func(i, j int) bool { return probs[i].path < probs[j].path })
	ref := &refusal.Refusal{What: what}
	var fixes []string
	for _, p := range probs {
		ref.Reasons = append(ref.Reasons, fmt.Sprintf("%s: %s, so another user could change what git runs as you", pathenc.Quote(p.path), p.reason))
		fixes = append(fixes, p.fix)
	}
	ref.Next = "Make them yours alone, then try again:"
	for _, f := range fixes {
		ref.Next += "\n  " + f
	}
	return ref
}
