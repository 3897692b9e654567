package guard

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/oneline"
	"github.com/nudgethis/git-nudge/internal/refs"
)

// This file keeps what an unsandboxed task did to the repository's refs
// from being silent (docs/SECURITY.md). A task's worktree shares the repository's
// refs: a `git stash push`, `git checkout -b`, `git tag`, `git notes add`
// or `git replace` run there lands in the user's repository. Before CMD
// runs, git nudge run lists every ref (loose and packed alike, from the
// files or with git for-each-ref) outside its own namespaces; when CMD has ended, what differs is
// listed and moved aside:
//
//   - a ref the task made is moved to QuarantinePrefix<id>/<ref> and
//     removed from its place;
//   - a ref the task moved is put back to its old value, the task's value
//     kept at QuarantinePrefix<id>/<ref> (refs/stash is put back by
//     dropping the entries the task pushed, so that `git stash list` is
//     the user's again);
//   - a ref the task deleted is made again at its old value.
//
// --keep-refs keeps the task's refs (they are still listed). The task's
// own worktree HEAD is its own: when it names a ref moved aside, it is
// detached at the same commit.
//
// The limit: a ref the user changes in the workspace while the task runs
// cannot be told from the task's. One exception is made: a branch checked
// out in a worktree that is not a task's, when it moved to where that
// worktree's own HEAD log says it moved it (a commit made there), is kept
// as the user's (userHeadMoves). Everything else changed meanwhile is treated as the
// task's, listed, and kept under the quarantine ref, so nothing is lost.

// refsOutsideOwn lists the refs a task's run is compared on: every ref but
// the suite's own (refs/nudgethis/, its op log, git-autodev's checkpoints,
// which only the suite writes and whose ids are create-only).
func (g *Guard) refsOutsideOwn(ctx context.Context) (map[string]string, error) {
	// From the ref files in this process where it can (loose and
	// packed-refs, no git process), else git for-each-ref.
	all, _, err := g.Repo.RefsAndHead(ctx, "refs/")
	if err != nil {
		return nil, err
	}
	for n := range all {
		if strings.HasPrefix(n, refs.Nudge) || strings.HasPrefix(n, refs.Oplog) || strings.HasPrefix(n, refs.Autodev) {
			delete(all, n)
		}
	}
	return all, nil
}

// RefsBeforeRun lists the refs before an unsandboxed CMD runs (nil for a
// sandboxed one, which cannot write refs, or when they cannot be listed:
// said on warn).
func (g *Guard) RefsBeforeRun(ctx context.Context, sandboxed bool, warn io.Writer) map[string]string {
	if sandboxed {
		return nil
	}
	m, err := g.refsOutsideOwn(ctx)
	if err != nil {
		if warn != nil {
			fmt.Fprintf(warn, "git nudge: WARNING: cannot list the refs before the run, so what it does to them will not be compared: %v\n", err)
		}
		return nil
	}
	return m
}

// isSymref reports whether the ref name is a symbolic ref now (a loose
// file holding "ref: ..."; packed refs never are).
func (g *Guard) isSymref(name string) bool {
	for _, dir := range []string{g.Repo.GitDir, g.Repo.CommonDir} {
		root, err := os.OpenRoot(dir)
		if err != nil {
			continue
		}
		b, err := ReadPlain(root, filepath.FromSlash(name), 4096)
		root.Close()
		if err == nil {
			return strings.HasPrefix(string(b), "ref: ")
		}
	}
	return false
}

// diffRefs lists what changed from before to after, sorted by ref.
func diffRefs(before, after map[string]string) []RefChange {
	var out []RefChange
	for n, v := range after {
		if o, ok := before[n]; !ok {
			out = append(out, RefChange{Ref: n, New: v})
		} else if o != v {
			out = append(out, RefChange{Ref: n, Old: o, New: v})
		}
	}
	for n, o := range before {
		if _, ok := after[n]; !ok {
			out = append(out, RefChange{Ref: n, Old: o})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Ref < out[j].Ref })
	return out
}

// QuarantineRefs compares the refs with before (RefsBeforeRun before CMD
// ran), moves aside or puts back what the run of task id (its worktree at
// worktree, "" for none) changed (see the top of this file) unless keep,
// and returns it for the caller to report; what cannot be compared is
// said on warn. The workspace lock is held.
func (g *Guard) QuarantineRefs(ctx context.Context, id, worktree string, before map[string]string, keep bool, warn io.Writer) []RefChange {
	if warn == nil {
		warn = io.Discard
	}
	after, err := g.refsOutsideOwn(ctx)
	if err != nil {
		fmt.Fprintf(warn, "git nudge: WARNING: cannot list the refs to compare them with those before the run: %v\n", err)
		return nil
	}
	changes := diffRefs(before, after)
	// A symbolic ref (refs/remotes/origin/HEAD) follows the ref it names,
	// which is compared on its own: updating it would move that ref.
	changes = slices.DeleteFunc(changes, func(c RefChange) bool { return g.isSymref(c.Ref) })
	if len(changes) == 0 {
		return nil
	}
	r := g.Repo
	zero := r.ZeroID()
	userMoves := g.userHeadMoves()
	var aside []string // refs moved aside, for the task's HEAD
	for i := range changes {
		c := &changes[i]
		kept := g.freeQuarantineRef(ctx, QuarantinePrefix+id+"/"+c.Ref)
		switch {
		case c.New != "" && userMoves[c.Ref] == c.New:
			c.Action = "kept (a worktree of yours has it checked out and its own HEAD log moved it there: taken as your commit)"
			continue
		case keep:
			c.Action = "kept (--keep-refs)"
			continue
		}
		var err error
		switch {
		case c.Old == "": // made by the task
			c.KeptAs = kept
			err = r.UpdateRefs(ctx, "git nudge: moved aside a ref "+id+" made",
				git.RefUpdate{Name: kept, New: c.New, Old: zero},
				git.RefUpdate{Name: c.Ref, New: zero, Old: c.New})
			if err == nil {
				c.Action = "moved aside"
				aside = append(aside, c.Ref)
			}
		case c.New == "": // deleted by the task
			if ok, _ := r.HasObject(ctx, c.Old); !ok {
				err = fmt.Errorf("its old commit %s is no longer in the object store", c.Old)
			} else {
				err = r.UpdateRefs(ctx, "git nudge: put back a ref "+id+" deleted",
					git.RefUpdate{Name: c.Ref, New: c.Old, Old: zero})
			}
			if err == nil {
				c.Action = "put back"
			}
		default: // moved by the task
			c.KeptAs = kept
			err = r.UpdateRefs(ctx, "git nudge: kept a ref "+id+" moved",
				git.RefUpdate{Name: kept, New: c.New, Old: zero})
			if err == nil {
				if c.Ref == "refs/stash" {
					err = g.dropStashTo(ctx, c.Old, c.New)
				} else {
					err = r.UpdateRefs(ctx, "git nudge: put back a ref "+id+" moved",
						git.RefUpdate{Name: c.Ref, New: c.Old, Old: c.New})
				}
			}
			if err == nil {
				c.Action = "put back"
				aside = append(aside, c.Ref)
			}
		}
		if err != nil {
			c.Action = "failed: " + oneline.First(strings.TrimSpace(err.Error()))
		}
	}
	g.detachTaskHead(worktree, aside, after)
	return changes
}

// freeQuarantineRef is name, or name.2, name.3... when a run of the same
// task before already kept a value there.
func (g *Guard) freeQuarantineRef(ctx context.Context, name string) string {
	try := name
	for i := 2; i < 100; i++ {
		if _, ok, err := g.Repo.ReadRef(ctx, try); err != nil || !ok {
			return try
		}
		try = fmt.Sprintf("%s.%d", name, i)
	}
	return try
}

// userHeadMoves maps each branch checked out in a worktree that is not a
// task's (the main one, and linked worktrees outside .nudgethis) to where
// that worktree's own HEAD log last moved it: a commit made there, which
// a task's git commands in its own worktree do not log.
func (g *Guard) userHeadMoves() map[string]string {
	out := map[string]string{}
	admins := []string{g.Repo.CommonDir}
	if ents, err := os.ReadDir(filepath.Join(g.Repo.CommonDir, "worktrees")); err == nil {
		for _, e := range ents {
			admin := filepath.Join(g.Repo.CommonDir, "worktrees", e.Name())
			b, err := journal.ReadRegular(filepath.Join(admin, "gitdir"))
			if err != nil {
				continue
			}
			gd := filepath.Clean(strings.TrimSpace(string(b)))
			if rel, err := filepath.Rel(g.Dir, gd); err == nil && !strings.HasPrefix(rel, "..") {
				continue // a task's worktree (or a pooled one)
			}
			if real, err := filepath.EvalSymlinks(g.Dir); err == nil {
				if rel, err := filepath.Rel(real, gd); err == nil && !strings.HasPrefix(rel, "..") {
					continue
				}
			}
			admins = append(admins, admin)
		}
	}
	for _, admin := range admins {
		head, err := journal.ReadRegular(filepath.Join(admin, "HEAD"))
		if err != nil {
			continue
		}
		branch, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: ")
		if !ok {
			continue
		}
		if c, ok := lastLogMove(filepath.Join(admin, "logs", "HEAD")); ok {
			out[branch] = c
		}
	}
	return out
}

// lastLogMove is the new value of the last entry of the reflog file p.
// Like the gitdir and HEAD files above, p is in the shared git folder a
// task can write: a fifo or a symbolic link there reads as no move.
func lastLogMove(p string) (string, bool) {
	f, err := journal.OpenFile(p, os.O_RDONLY, 0)
	if err != nil {
		return "", false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return "", false
	}
	// The last entry is in the last 64 KiB (an entry is one line).
	off := st.Size() - 64<<10
	if off < 0 {
		off = 0
	}
	buf := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
		return "", false
	}
	lines := strings.Split(strings.TrimRight(string(buf), "\n"), "\n")
	f2 := strings.Fields(lines[len(lines)-1])
	if len(f2) < 2 {
		return "", false
	}
	return f2[1], true
}

// dropStashTo takes the stash back to old by dropping the entries pushed
// on it since (as git stash drop does), so that its log holds only the
// user's entries again; at most 1000 are dropped.
func (g *Guard) dropStashTo(ctx context.Context, old, cur string) error {
	for i := 0; i < 1000 && cur != old; i++ {
		if err := g.Repo.DropReflogTop(ctx, "refs/stash"); err != nil {
			return err
		}
		v, ok, err := g.Repo.ReadRef(ctx, "refs/stash")
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		cur = v
	}
	if cur != old {
		return g.Repo.UpdateRefs(ctx, "git nudge: put back the stash", git.RefUpdate{Name: "refs/stash", New: old, Old: ""})
	}
	return nil
}

// detachTaskHead detaches the HEAD of the task worktree at worktree when it names one of
// the refs moved aside or put back (a `git checkout -b` there), at the
// commit the task left it on, so that the worktree stays as it was. It writes the HEAD file of the
// worktree's own admin folder (found from the common folder, never from
// the worktree's .git file, which the task could rewrite).
func (g *Guard) detachTaskHead(worktree string, aside []string, values map[string]string) {
	if len(aside) == 0 || worktree == "" {
		return
	}
	admin, _ := g.AdminDir(worktree)
	if admin == "" {
		return
	}
	root, err := os.OpenRoot(admin)
	if err != nil {
		return
	}
	defer root.Close()
	head, err := ReadPlain(root, "HEAD", 4096)
	if err != nil {
		return
	}
	target, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: ")
	if !ok {
		return
	}
	for _, a := range aside {
		if a != target {
			continue
		}
		if err := root.WriteFile("HEAD.nudge-detach", []byte(values[a]+"\n"), 0o644); err == nil {
			if root.Rename("HEAD.nudge-detach", "HEAD") != nil {
				_ = root.Remove("HEAD.nudge-detach")
			}
		}
		return
	}
}

// QuarantinePrefix is where refs a task made or moved are kept.
const QuarantinePrefix = "refs/nudgethis/quarantine/"

// RefChange is one ref an unsandboxed run changed outside its own.
type RefChange struct {
	Ref string `json:"ref"`
	Old string `json:"old,omitempty"` // "" when the task made it
	New string `json:"new,omitempty"` // "" when the task deleted it
	// Action says what was done: "moved aside", "put back", "kept"
	// (--keep-refs, or the user's own commit), "failed: ...".
	Action string `json:"action"`
	// KeptAs is the quarantine ref holding the task's value.
	KeptAs string `json:"kept_as,omitempty"`
}
