package nudge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/journal"
)

// This file guards the repository's shared git settings against tasks.
//
// A task's linked worktree shares the repository's git folder: its config
// (nudge.protect, nudge.setup, core.hooksPath, core.fsmonitor, filter
// drivers...), hooks and info/exclude and info/attributes. A task that
// changes them changes what protects the user and what runs in the user's
// workspace. So git-nudge keeps the trusted state of these files
// (.nudgethis/guard.json, their contents pinned as a commit by
// refs/nudgethis/guard) and compares the repository with it whenever a
// snapshot is taken, a run ends, a result is captured and a task is
// applied. While no task can be writing (none is preparing, prepared or
// running, and the command's own task has no worktree), the state found is
// simply trusted from then on: it is the user's. Otherwise every
// difference is reported on stderr, each file is put back as it was (the
// version found is kept in .nudgethis/quarantine/), and the changes are
// recorded in the records of the tasks that could have made them, whose
// apply refuses until --accept-config-change. docs/SECURITY.md says what
// this does and does not stop.

// GuardRef pins the contents of the trusted state so that gc keeps them.
const GuardRef = "refs/nudgethis/guard"

// guardFile is one file of the shared git settings: its path from the
// repository's common git folder ("config", "hooks/pre-commit"), its mode
// ("100644", "100755", "120000" for a symlink) and blob.
type guardFile struct {
	Path string `json:"path"`
	Mode string `json:"mode"`
	Blob string `json:"blob"`

	data []byte // what was read (scans only)
}

// guardState is .nudgethis/guard.json.
type guardState struct {
	Version int         `json:"version"`
	Commit  string      `json:"commit"`
	Files   []guardFile `json:"files"`
}

func (w *Workspace) guardPath() string { return filepath.Join(w.Dir, "guard.json") }

// guardRoots are the watched paths, from the common git folder.
func (w *Workspace) guardRoots() []string {
	// Version 2 watches all of info/ (grafts, sparse-checkout, refs as
	// well as exclude and attributes) and shallow, besides version 1's.
	roots := []string{"config", "config.worktree", "hooks", "info", "shallow"}
	if w.Repo.GitDir != w.Repo.CommonDir {
		// The workspace is itself a linked worktree: its own settings.
		if rel, err := filepath.Rel(w.Repo.CommonDir, w.Repo.GitDir); err == nil && !strings.HasPrefix(rel, "..") {
			roots = append(roots, filepath.ToSlash(filepath.Join(rel, "config.worktree")))
		}
	}
	return roots
}

// guardScanLimit bounds how many files a scan reads (a hooks folder with
// more is reported as such rather than read to the end).
const guardScanLimit = 2000

// scanGuard reads the watched files as they are now.
func (w *Workspace) scanGuard() ([]guardFile, error) {
	var out []guardFile
	var walk func(rel string, depth int) error
	walk = func(rel string, depth int) error {
		abs := filepath.Join(w.Repo.CommonDir, filepath.FromSlash(rel))
		st, err := os.Lstat(abs)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if len(out) >= guardScanLimit {
			return fmt.Errorf("more than %d files under %s: too many to compare; remove what does not belong there", guardScanLimit, filepath.Join(w.Repo.CommonDir, "hooks"))
		}
		f := guardFile{Path: rel}
		switch {
		case st.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(abs)
			if err != nil {
				return err
			}
			f.Mode, f.data = git.ModeSymlink, []byte(target)
		case st.IsDir():
			if depth > 4 {
				return fmt.Errorf("%s: folders nested too deep to compare", abs)
			}
			ents, err := os.ReadDir(abs)
			if err != nil {
				return err
			}
			for _, e := range ents {
				if err := walk(rel+"/"+e.Name(), depth+1); err != nil {
					return err
				}
			}
			return nil
		case st.Mode().IsRegular():
			if st.Size() > git.MaxFileSize {
				return fmt.Errorf("%s is over 16 MiB: too large to compare", abs)
			}
			data, err := journal.ReadRegular(abs) // never blocks on a fifo swapped in
			if err != nil {
				return err
			}
			f.Mode, f.data = git.ModeFile, data
			if st.Mode()&0o111 != 0 {
				f.Mode = git.ModeExec
			}
		default:
			// A fifo or device: nothing to read, but not what was there.
			f.Mode, f.data = "special", []byte(st.Mode().String())
		}
		f.Blob = w.Repo.BlobID(f.data)
		out = append(out, f)
		return nil
	}
	for _, r := range w.guardRoots() {
		if err := walk(r, 0); err != nil {
			return nil, err
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// trust records files as the trusted state: their contents go into the
// object store, pinned by GuardRef, and their list into guard.json.
func (w *Workspace) trust(ctx context.Context, files []guardFile) error {
	r := w.Repo
	var edits []git.TreeEdit
	var paths []string
	for _, f := range files {
		if f.Mode == "special" {
			continue // nothing to keep; never written back
		}
		if f.Mode == git.ModeSymlink {
			id, err := r.WriteBlob(ctx, f.data)
			if err != nil {
				return err
			}
			edits = append(edits, git.TreeEdit{Path: f.Path, Mode: f.Mode, Object: id})
			continue
		}
		paths = append(paths, filepath.Join(r.CommonDir, filepath.FromSlash(f.Path)))
		edits = append(edits, git.TreeEdit{Path: f.Path, Mode: f.Mode, Object: f.Blob})
	}
	// One process stores the files; what it read must be what was compared.
	ids, err := r.WriteBlobs(ctx, paths)
	if err != nil {
		return err
	}
	k := 0
	for _, e := range edits {
		if e.Mode == git.ModeSymlink {
			continue
		}
		if ids[k] != e.Object {
			return fmt.Errorf("%s changed while it was being recorded; the next git nudge command records it", paths[k])
		}
		k++
	}
	tree := r.EmptyTree()
	if len(edits) > 0 {
		if tree, _, err = r.EditTree(ctx, "", edits); err != nil {
			return err
		}
	} else if _, err := r.WriteEmptyTree(ctx); err != nil {
		return err
	}
	// Each trusted state's commit has the previous one as parent, so that
	// every workspace of the repository (they share the ref) keeps its own
	// state's contents reachable.
	old, ok, err := r.ReadRef(ctx, GuardRef)
	if err != nil {
		return err
	}
	var parents []string
	if ok {
		parents = []string{old}
	} else {
		old = r.ZeroID()
	}
	commit, err := r.CommitTree(ctx, git.CommitRequest{
		Tree: tree, Parents: parents, Message: "nudge guard: the repository's shared git settings as trusted",
		Author: Identity, Committer: Identity,
	})
	if err != nil {
		return err
	}
	if err := r.SetRef(ctx, git.SetRefRequest{Name: GuardRef, New: commit, Old: old}); err != nil {
		return err
	}
	st := guardState{Version: guardVersion, Commit: commit, Files: make([]guardFile, 0, len(files))}
	for _, f := range files {
		st.Files = append(st.Files, guardFile{Path: f.Path, Mode: f.Mode, Blob: f.Blob})
	}
	return journal.Write(w.guardPath(), st)
}

// guardVersion is the version of guard.json written: 2 watches info/
// whole and shallow (guardRoots).
const guardVersion = 2

// upgradeTrusted takes, from a trusted state of version 1, the files now
// present in what version 2 watches besides (info/ other than exclude and
// attributes, shallow) as trusted: the user's from before the upgrade,
// not a change. It reports whether it did.
func upgradeTrusted(prev *guardState, now []guardFile) bool {
	if prev.Version >= guardVersion {
		return false
	}
	have := map[string]bool{}
	for _, f := range prev.Files {
		have[f.Path] = true
	}
	for _, f := range now {
		isNew := f.Path == "shallow" || strings.HasPrefix(f.Path, "info/") && f.Path != "info/exclude" && f.Path != "info/attributes"
		if isNew && !have[f.Path] {
			prev.Files = append(prev.Files, guardFile{Path: f.Path, Mode: f.Mode, Blob: f.Blob})
		}
	}
	sort.Slice(prev.Files, func(i, j int) bool { return prev.Files[i].Path < prev.Files[j].Path })
	return true
}

// guardChange is one watched file that differs from the trusted state.
type guardChange struct {
	Path     string
	Old, New *guardFile // nil: no such file
}

func diffGuard(trusted, now []guardFile) []guardChange {
	old := map[string]*guardFile{}
	for i := range trusted {
		old[trusted[i].Path] = &trusted[i]
	}
	seen := map[string]bool{}
	var out []guardChange
	for i := range now {
		n := &now[i]
		seen[n.Path] = true
		if o := old[n.Path]; o == nil || o.Mode != n.Mode || o.Blob != n.Blob {
			out = append(out, guardChange{Path: n.Path, Old: o, New: n})
		}
	}
	for i := range trusted {
		if !seen[trusted[i].Path] {
			out = append(out, guardChange{Path: trusted[i].Path, Old: &trusted[i]})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// taskWorktreeConfig finds a config.worktree in the git admin folder of
// own's worktree. It would apply to the git commands git nudge runs there
// to capture the result (a filter driver, for one), and nothing a task
// needs: it is reported as added, so that it is kept aside and removed.
// The one exception is what git worktree add itself writes there in a
// sparse checkout (core.sparseCheckout and core.sparseCheckoutCone, which
// run nothing): that is the worktree as git made it.
func (w *Workspace) taskWorktreeConfig(ctx context.Context, own *Task) []guardChange {
	if own == nil || own.Worktree == nil {
		return nil
	}
	want := filepath.Join(*own.Worktree, ".git")
	if real, err := filepath.EvalSymlinks(*own.Worktree); err == nil {
		want = filepath.Join(real, ".git")
	}
	ents, err := os.ReadDir(filepath.Join(w.Repo.CommonDir, "worktrees"))
	if err != nil {
		return nil
	}
	for _, e := range ents {
		admin := filepath.Join(w.Repo.CommonDir, "worktrees", e.Name())
		b, err := journal.ReadRegular(filepath.Join(admin, "gitdir"))
		if err != nil {
			continue
		}
		got := filepath.Clean(strings.TrimSpace(string(b)))
		if real, err := filepath.EvalSymlinks(filepath.Dir(got)); err == nil {
			got = filepath.Join(real, ".git")
		}
		if got != want {
			continue
		}
		if c := w.adminConfigChange(ctx, e.Name()); c != nil {
			return []guardChange{*c}
		}
		return nil
	}
	return nil
}

// adminConfigChange is the config.worktree in the git admin folder
// worktrees/<name>, reported as added (nil when there is none, or when it
// holds only the sparse-checkout keys git worktree add writes there).
func (w *Workspace) adminConfigChange(ctx context.Context, name string) *guardChange {
	rel := "worktrees/" + name + "/config.worktree"
	abs := filepath.Join(w.Repo.CommonDir, filepath.FromSlash(rel))
	st, err := os.Lstat(abs)
	if err != nil {
		return nil
	}
	f := guardFile{Path: rel, Mode: git.ModeFile}
	if st.Mode()&fs.ModeSymlink != 0 {
		target, _ := os.Readlink(abs)
		f.Mode, f.data = git.ModeSymlink, []byte(target)
	} else if st.Mode().IsRegular() && st.Size() <= git.MaxFileSize {
		f.data, _ = journal.ReadRegular(abs)
	} else {
		f.Mode, f.data = "special", []byte(st.Mode().String())
	}
	if f.Mode == git.ModeFile && onlySparseKeys(ctx, w.Repo, abs) {
		return nil
	}
	f.Blob = w.Repo.BlobID(f.data)
	return &guardChange{Path: rel, New: &f}
}

// safeTaskWorktree checks, before git nudge runs any git command in the
// task worktree wr (opened from the task's worktree folder), that its git
// folder is the worktree's own admin folder (worktrees/<name> of the
// common folder, naming this worktree back), and sets aside a
// config.worktree found there: with extensions.worktreeConfig on, git
// reads it as configuration in that worktree, so a filter driver a task
// wrote there would run as the user (outside any sandbox) in capture,
// drop or validation. The guard puts it back at the end of a run; this
// holds also when the run was killed (a sandboxed command can kill its
// git-nudge) and for worktrees handed out by git nudge start.
func (w *Workspace) safeTaskWorktree(ctx context.Context, t *Task, wr *git.Repo) error {
	admin := filepath.Join(w.Repo.CommonDir, "worktrees")
	rel, err := filepath.Rel(admin, wr.GitDir)
	own := err == nil && rel != "." && !strings.HasPrefix(rel, "..") && !strings.ContainsRune(rel, filepath.Separator)
	if own {
		b, err := journal.ReadRegular(filepath.Join(wr.GitDir, "gitdir"))
		own = err == nil && samePathOnDisk(filepath.Dir(filepath.Clean(strings.TrimSpace(string(b)))), wr.WorkTree)
	}
	if !own {
		return fmt.Errorf("the worktree of %s uses %s as its git folder, not its own folder in %s (its .git file was rewritten); no git command was run there. git nudge drop --force %s removes it", t.ID, wr.GitDir, admin, t.ID)
	}
	c := w.adminConfigChange(ctx, rel)
	if c == nil {
		return nil
	}
	qdir, problems := w.putBack(ctx, []guardChange{*c})
	if len(problems) > 0 {
		return fmt.Errorf("the worktree of %s has a config.worktree in its git folder (%s), which git would read as configuration there, and it could not be set aside: %s", t.ID, w.displayGuardPath(c.Path), strings.Join(problems, "; "))
	}
	if warn := w.Warn; warn != nil {
		fmt.Fprintf(warn, "git nudge: removed %s, which git would read as configuration in the worktree of %s (a task has no use for it); what was found is kept in %s\n", w.displayGuardPath(c.Path), t.ID, qdir)
	}
	return nil
}

// privateGitDir makes, in a fresh stage folder of .nudgethis (which a
// sandboxed task cannot write), the git folder the capture's git commands
// use for the task worktree wr instead of the worktree's own: a copy of
// its HEAD and index, a commondir naming the repository, and its
// config.worktree only when that holds nothing but the sparse-checkout
// keys (checked on the copy). The worktree's own folder stays writable by
// the task, and a process it left running could rewrite config.worktree
// (a filter driver) between any check and the git commands that read it;
// the copy cannot be. The caller removes it (removeStage).
func (w *Workspace) privateGitDir(ctx context.Context, wr *git.Repo) (string, error) {
	dir, err := w.NewStage()
	if err != nil {
		return "", err
	}
	fail := func(err error) (string, error) {
		_ = w.RemoveStage(filepath.Base(dir))
		return "", err
	}
	root, err := os.OpenRoot(wr.GitDir)
	if err != nil {
		return fail(err)
	}
	defer root.Close()
	head, err := readPlain(root, "HEAD", 4096)
	if err != nil {
		return fail(fmt.Errorf("the HEAD of the worktree %s: %w", wr.WorkTree, err))
	}
	if err := os.WriteFile(filepath.Join(dir, "HEAD"), head, 0o600); err != nil {
		return fail(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "commondir"), []byte(w.Repo.CommonDir+"\n"), 0o600); err != nil {
		return fail(err)
	}
	if err := copyPlain(root, "index", filepath.Join(dir, "index")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fail(fmt.Errorf("the index of the worktree %s: %w", wr.WorkTree, err))
	}
	cw := filepath.Join(dir, "config.worktree")
	if err := copyPlain(root, "config.worktree", cw); err == nil && !onlySparseKeys(ctx, w.Repo, cw) {
		if err := os.Remove(cw); err != nil {
			return fail(err)
		}
	}
	return dir, nil
}

// copyPlain copies name in root, a regular file (see openPlain), to dst.
func copyPlain(root *os.Root, name, dst string) error {
	f, st, err := openPlain(root, name)
	if err != nil {
		return err
	}
	defer f.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, f); err != nil {
		out.Close()
		return err
	}
	// The copy keeps the index's mtime: git compares it with the files'
	// to tell racily clean entries.
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chtimes(dst, st.ModTime(), st.ModTime())
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
	prev    guardState
	prevErr error
	now     []guardFile
	nowErr  error
	pending []string
}

// guardRead makes the reading guardCheck of kind starts with (nothing
// more once it is known that guardCheck returns at once). pending, when
// not nil, are the tasks with a pending check as already read under the
// lock held since (Workspace.pendingAtLock).
func (w *Workspace) guardRead(kind guardCheckKind, pending []string) *guardReading {
	g := &guardReading{}
	g.prevErr = journal.Read(w.guardPath(), &g.prev)
	if g.prevErr == nil || errors.Is(g.prevErr, fs.ErrNotExist) && kind != CheckApply {
		g.now, g.nowErr = w.scanGuard()
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
	prev, err := g.prev, g.prevErr
	havePrev := err == nil
	if !havePrev && kind == CheckApply {
		return // nothing trusted yet, and apply records none
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(warn, "git nudge: WARNING: %v\n", err)
		w.recordGuard(own, fmt.Sprintf("the record of the trusted git settings is unreadable (%v); check .git/config and .git/hooks by hand, then delete %s", err, w.guardPath()), warn)
		return
	}
	now, err := g.now, g.nowErr
	if err != nil {
		fmt.Fprintf(warn, "git nudge: WARNING: cannot compare the repository's shared git settings: %v\n", err)
		w.recordGuard(own, "the repository's shared git settings could not be compared: "+err.Error(), warn)
		return
	}
	upgraded := havePrev && upgradeTrusted(&prev, now)
	changes := diffGuard(prev.Files, now)
	if kind == CheckOwn && havePrev {
		changes = append(changes, w.taskWorktreeConfig(ctx, own)...)
	}
	if havePrev && len(changes) == 0 {
		if upgraded && kind != CheckApply {
			if err := w.trust(ctx, now); err != nil {
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
		if err := w.trust(ctx, now); err != nil {
			fmt.Fprintf(warn, "git nudge: WARNING: recording the repository's git settings as trusted: %v\n", err)
		}
	}
	if !havePrev && kind == CheckOwn && own.Rules != nil {
		// The task was made by a version that records the trusted state
		// at every snapshot: its record is gone since, which a task can do.
		msg := fmt.Sprintf("the record of the trusted git settings (%s) disappeared while %s could change it; compare .git/config and .git/hooks with what you expect", w.guardPath(), own.ID)
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
	lines := w.describeGuard(ctx, changes)
	fmt.Fprintf(warn, "git nudge: WARNING: the repository's shared git settings changed while %s could change them:\n", strings.Join(w.suspectNames(suspects), ", "))
	for _, l := range lines {
		fmt.Fprintf(warn, "  %s\n", l)
	}
	if len(active) > 0 {
		qdir, problems := w.putBack(ctx, changes)
		if qdir != "" {
			fmt.Fprintf(warn, "git nudge: put them back as they were; what was found is kept in %s\n", qdir)
			if err := w.writeQuarantineManifest(qdir, changes, ids, lines); err == nil {
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
