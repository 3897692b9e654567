package nudge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/proc"
	"github.com/nudgethis/git-nudge/internal/worktree"
)

// The pool of task worktrees: drop parks a task's worktree in
// .nudgethis/pool/<name> instead of deleting it, and the next start takes
// it and brings it to its snapshot, which writes only the files that
// differ instead of every file.
//
// What makes a reused worktree start as a fresh one is a trusted index:
// a copy of the worktree's own index made by git-nudge right after the
// worktree was made or reset (pool/tasks/<id>.index while a task has it,
// pool/<name>.index once parked), before any task ran there. Its stat
// data (ctime and inode included, which a task cannot set back) tells
// which files the task touched; those are written afresh, everything the
// index does not hold is removed, the admin folder and .git file are
// rewritten, and git must then find nothing the index lacks (git
// ls-files --others over every folder; read-tree itself has compared
// every tracked file). A worktree without a trusted index, or one that
// fails any step, is discarded.

// PoolDirName is the pool's folder inside .nudgethis.
const PoolDirName = "pool"

// DefaultPool is nudge.pool's default.
const DefaultPool = 2

func (w *Workspace) poolDir() string { return filepath.Join(w.Dir, PoolDirName) }

// trustedIndex is the trusted index of task id's worktree.
func (w *Workspace) trustedIndex(id string) string {
	return filepath.Join(w.poolDir(), "tasks", id+".index")
}

// reuseIndex is where a claimed pool entry's trusted index waits until the
// worktree is reset.
func (w *Workspace) reuseIndex(id string) string {
	return filepath.Join(w.poolDir(), "tasks", id+".reuse")
}

// PoolBound is nudge.pool: how many worktrees the pool keeps (0: none).
func (w *Workspace) PoolBound(ctx context.Context) (int, error) {
	n, err := w.Repo.ConfigInt(ctx, "nudge.pool", DefaultPool)
	if err != nil {
		return 0, fmt.Errorf("reading nudge.pool: %w", err)
	}
	if n < 0 {
		n = 0
	}
	return int(n), nil
}

// PoolEntry is one parked worktree.
type PoolEntry struct {
	Name string `json:"name"`
	Path string `json:"path"`
	// Bytes is what it takes on disk, ignored files included (set by
	// PoolSizes).
	Bytes int64 `json:"bytes"`
}

// Pool lists the parked worktrees ready to be taken, by name. It creates
// nothing.
func (w *Workspace) Pool() ([]PoolEntry, error) {
	out, _, err := w.poolEntries()
	return out, err
}

// PoolLeftovers counts the folders in the pool that are not entries ready
// to be taken: left by an interrupted command (or being filled now).
func (w *Workspace) PoolLeftovers() int {
	_, n, _ := w.poolEntries()
	return n
}

func (w *Workspace) poolEntries() (out []PoolEntry, leftovers int, _ error) {
	ents, err := os.ReadDir(w.poolDir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	for _, e := range ents {
		if !e.IsDir() || e.Name() == "tasks" || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		st, err := os.Lstat(filepath.Join(w.poolDir(), e.Name()+".index"))
		if err != nil || !st.Mode().IsRegular() {
			leftovers++ // being filled, or left by an interrupted command
			continue
		}
		out = append(out, PoolEntry{Name: e.Name(), Path: filepath.Join(w.poolDir(), e.Name())})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, leftovers, nil
}

// adminOf returns the administrative folder (.git/worktrees/<name>) whose
// gitdir file names dir's .git: the one git uses for the worktree at dir,
// found without reading dir/.git.
func (w *Workspace) adminOf(dir string) (string, error) {
	base := filepath.Join(w.Repo.CommonDir, "worktrees")
	ents, err := os.ReadDir(base)
	if err != nil {
		return "", err
	}
	want := filepath.Join(dir, ".git")
	var found []string
	for _, e := range ents {
		b, err := journal.ReadRegular(filepath.Join(base, e.Name(), "gitdir"))
		if err != nil {
			continue
		}
		got := filepath.Clean(strings.TrimRight(string(b), "\r\n"))
		if got == want || samePathOnDisk(filepath.Dir(got), dir) && filepath.Base(got) == ".git" {
			found = append(found, filepath.Join(base, e.Name()))
		}
	}
	if len(found) != 1 {
		return "", fmt.Errorf("%d git administrative folders name %s", len(found), dir)
	}
	return found[0], nil
}

// freshAdmin are the entries git worktree add --detach makes in a
// worktree's administrative folder.
var freshAdmin = map[string]bool{"HEAD": true, "ORIG_HEAD": true, "commondir": true, "gitdir": true, "index": true, "logs": true}

// trustIndex records dir's own index, just made or reset by git-nudge, as the
// trusted index at dst. It records nothing (and says why) for a worktree
// git made with more than a fresh worktree's state (a sparse checkout's
// settings, say): such a worktree is never pooled.
func (w *Workspace) trustIndex(ctx context.Context, dir, dst string) error {
	admin, err := w.adminOf(dir)
	if err != nil {
		return err
	}
	ents, err := os.ReadDir(admin)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if !freshAdmin[e.Name()] {
			return fmt.Errorf("its git folder holds %s, which a reset would not make again", e.Name())
		}
	}
	index := filepath.Join(admin, "index")
	if plain, err := w.Repo.IndexPlain(ctx, index); err != nil || !plain {
		if err == nil {
			err = errors.New("its index holds conflicts, skip-worktree or assume-unchanged entries")
		}
		return err
	}
	return copyKeepingTime(index, dst)
}

// copyKeepingTime copies regular file src to dst (replaced atomically),
// keeping src's modification time: git reads an index's mtime to tell
// racily clean entries.
func copyKeepingTime(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a file", src)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".tmp-*")
	if err != nil {
		return err
	}
	_, err = io.Copy(tmp, in)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chtimes(tmp.Name(), st.ModTime(), st.ModTime())
	}
	if err == nil {
		err = os.Rename(tmp.Name(), dst)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
	}
	return err
}

// writeNew replaces path (whatever it is: a link or folder is removed,
// never followed) with a new file holding data, mode 0666 less the umask
// as git makes its files.
func writeNew(path string, data []byte) error {
	if err := os.RemoveAll(path); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// discardWorktree removes a worktree folder that git-nudge made (in the
// pool or in worktrees/) without following any link, and git's record of
// it (removeTaskTree); one that a live process still uses stays.
func (w *Workspace) discardWorktree(dir string) error {
	if hs, ok := proc.Holders(dir); !ok || len(hs) > 0 {
		reason, next := proc.DescribeHolders(dir, hs, ok)
		return fmt.Errorf("%s. %s", reason, next)
	}
	return w.removeTaskTree(dir)
}

// park moves task id's worktree dir into the pool, when the pool has room,
// the worktree has a trusted index and no process works in it. The caller
// (drop) holds the workspace lock, has found the task idle and its
// worktree holding nothing uncaptured. parked is false when the worktree
// stays where it is (the caller removes it).
func (w *Workspace) park(ctx context.Context, id, dir string) (parked bool) {
	bound, err := w.PoolBound(ctx)
	if err != nil || bound == 0 {
		return false
	}
	maxBytes, err := w.PoolMaxBytes(ctx)
	if err != nil {
		return false
	}
	trusted := w.trustedIndex(id)
	if st, err := os.Lstat(trusted); err != nil || !st.Mode().IsRegular() {
		return false
	}
	if st, err := os.Lstat(dir); err != nil || !st.IsDir() {
		return false
	}
	if proc.InDir(dir) {
		return false
	}
	admin, err := w.adminOf(dir)
	if err != nil {
		return false
	}
	// Room under nudge.pool and nudge.pool.maxBytes, the oldest pooled
	// worktrees evicted first.
	var size int64
	if maxBytes > 0 {
		size = w.taskTreeBytes(id, dir, trusted)
	}
	if !w.makeRoom(bound, maxBytes, size) {
		return false
	}
	if _, err := worktree.RealDir(w.Repo.WorkTree, StateDirName+"/"+PoolDirName, true); err != nil {
		return false
	}
	name := filepath.Base(admin)
	for i := 2; ; i++ {
		_, err1 := os.Lstat(filepath.Join(w.poolDir(), name))
		_, err2 := os.Lstat(filepath.Join(w.poolDir(), name+".index"))
		if errors.Is(err1, fs.ErrNotExist) && errors.Is(err2, fs.ErrNotExist) && name != "tasks" {
			break
		}
		name = fmt.Sprintf("%s-%d", filepath.Base(admin), i)
	}
	dst := filepath.Join(w.poolDir(), name)
	_ = os.Remove(dst + ".bytes")
	if err := os.Rename(dir, dst); err != nil {
		return false
	}
	// Its time is when it was parked: the oldest is evicted first.
	now := time.Now()
	_ = os.Chtimes(dst, now, now)
	if maxBytes > 0 {
		_ = writeNew(dst+".bytes", []byte(strconv.FormatInt(size, 10)+"\n"))
	}
	// From here on the worktree is out of worktrees/: whatever fails, it
	// is discarded rather than put back.
	if err := writeNew(filepath.Join(admin, "gitdir"), []byte(gitdirLine(dst))); err != nil {
		_ = w.discardWorktree(dst)
		return true
	}
	FaultPoint("pool-park")
	if err := os.Rename(trusted, dst+".index"); err != nil {
		_ = w.discardWorktree(dst)
	}
	return true
}

// gitdirLine is what git writes in an administrative folder's gitdir file
// for the worktree at dir (which may not exist yet).
func gitdirLine(dir string) string {
	if real, err := filepath.EvalSymlinks(filepath.Dir(dir)); err == nil {
		dir = filepath.Join(real, filepath.Base(dir))
	}
	return filepath.Join(dir, ".git") + "\n"
}

// poolClaim is a pool entry taken for a task: its worktree already moved
// to the task's worktree folder, not yet reset.
type poolClaim struct {
	admin string // the worktree's administrative folder
	index string // its trusted index
}

// claimPooled takes a parked worktree for task id, moving it to dir; nil
// when the pool is off or empty. The caller holds the workspace lock, so
// that no two tasks take the same one.
func (w *Workspace) claimPooled(ctx context.Context, id, dir string) *poolClaim {
	if _, err := os.Lstat(dir); err == nil {
		return nil // left by an earlier attempt: prepare removes it
	}
	bound, err := w.PoolBound(ctx)
	if err != nil || bound == 0 {
		return nil
	}
	// The pool folder itself must be a plain folder inside .nudgethis.
	if ok, err := worktree.RealDir(w.Repo.WorkTree, StateDirName+"/"+PoolDirName, false); err != nil || !ok {
		return nil
	}
	entries, err := w.Pool()
	if err != nil {
		return nil
	}
	for _, e := range entries {
		if proc.InDir(e.Path) {
			continue // a process still uses it: never reused (nor removed)
		}
		admin, err := w.adminOf(e.Path)
		if err != nil {
			_ = w.discardEntry(e)
			continue
		}
		c := &poolClaim{admin: admin, index: w.reuseIndex(id)}
		if err := os.MkdirAll(filepath.Dir(c.index), 0o755); err != nil {
			return nil
		}
		if err := os.Rename(e.Path+".index", c.index); err != nil {
			continue
		}
		_ = os.Remove(e.Path + ".bytes")
		// git's record first: interrupted here, the worktree is either
		// still in the pool (an entry without its index: pool clear
		// removes it) or a record of a missing folder at dir, which
		// drop and the next start forget.
		err = os.MkdirAll(filepath.Dir(dir), 0o755)
		if err == nil {
			err = writeNew(filepath.Join(admin, "gitdir"), []byte(gitdirLine(dir)))
		}
		if err != nil {
			_ = os.Remove(c.index)
			_ = w.discardWorktree(e.Path)
			return nil
		}
		if err := os.Rename(e.Path, dir); err != nil {
			_ = os.Remove(c.index)
			_ = w.discardWorktree(e.Path)
			continue
		}
		FaultPoint("pool-claim")
		return c
	}
	return nil
}

// discardEntry removes a pool entry: its worktree and trusted index.
func (w *Workspace) discardEntry(e PoolEntry) error {
	_ = os.Remove(e.Path + ".bytes")
	err := os.Remove(e.Path + ".index")
	if errors.Is(err, fs.ErrNotExist) {
		err = nil
	}
	return errors.Join(err, w.discardWorktree(e.Path))
}

// resetPooled brings the claimed worktree at dir to commit, as git
// worktree add --detach would have made it. Any error means it could not
// be proved clean: the caller discards it.
func (w *Workspace) resetPooled(ctx context.Context, dir string, c *poolClaim, commit string) error {
	defer os.Remove(c.index)
	st, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is not a folder", dir)
	}
	// The administrative folder: only what a fresh one holds, written
	// afresh (the task may have added config.worktree, refs, hooks...).
	ents, err := os.ReadDir(c.admin)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if err := os.RemoveAll(filepath.Join(c.admin, e.Name())); err != nil {
			return err
		}
	}
	for name, data := range map[string]string{
		"commondir": "../..\n", "gitdir": gitdirLine(dir), "HEAD": commit + "\n", "ORIG_HEAD": commit + "\n",
	} {
		if err := writeNew(filepath.Join(c.admin, name), []byte(data)); err != nil {
			return err
		}
	}
	kinds, plain, err := w.Repo.IndexKinds(ctx, c.index)
	if err != nil {
		return err
	}
	if !plain {
		return errors.New("its trusted index is not a fresh worktree's")
	}
	// The trusted index becomes the worktree's (moved: it is not needed
	// after this; copied where the git folder is on another filesystem).
	if err := os.Rename(c.index, filepath.Join(c.admin, "index")); err != nil {
		if err := copyKeepingTime(c.index, filepath.Join(c.admin, "index")); err != nil {
			return err
		}
	}
	admin := c.admin
	if real, err := filepath.EvalSymlinks(admin); err == nil {
		admin = real
	}
	if err := writeNew(filepath.Join(dir, ".git"), []byte("gitdir: "+admin+"\n")); err != nil {
		return err
	}
	if err := pruneUntracked(dir, kinds); err != nil {
		return fmt.Errorf("removing what the last task left: %w", err)
	}
	FaultPoint("pool-reset")
	wt := w.Repo.WorktreeRepo(dir, c.admin)
	// read-tree compares every entry's file with the trusted stat data
	// (ctime and inode included), writes afresh each one that differs or
	// is missing and fails if it cannot: the tracked files are proved by
	// it. It keeps the stat data of every entry it finds unchanged and
	// records that of every file it writes, so no refresh follows.
	if err := wt.ResetWorktreeTo(ctx, commit); err != nil {
		return err
	}
	// What is not tracked: git lists every folder once more, after the
	// reset, and must find nothing the index lacks.
	clean, err := wt.NothingUntracked(ctx)
	if err != nil {
		return err
	}
	if !clean {
		return errors.New("git still finds files the snapshot does not hold after the reset")
	}
	return nil
}

// pruneUntracked removes from the worktree at dir everything that the
// index (kinds: path -> mode) does not hold as what it is on disk: an
// untracked or ignored file or folder (a nested repository included), a
// symlink or folder where the index has a file, a symlink where it has a
// folder. Nothing is followed: it works through an os.Root at dir. Kept
// folders get the mode git would give a new one; a submodule's folder is
// emptied, as a fresh worktree has it.
func pruneUntracked(dir string, kinds map[string]string) error {
	dirs := map[string]bool{"": true}
	for p := range kinds {
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			if dirs[d] {
				break
			}
			dirs[d] = true
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	top, err := root.Open(".")
	if err != nil {
		return err
	}
	defer top.Close()
	dirMode := 0o777 &^ proc.Umask()
	// Each folder is opened relative to its parent's handle (openDirAt,
	// never through a symlink), its mode read and set through its own
	// handle; only removals go through root.
	var walk func(f *os.File, rel string, gitlink bool) error
	walk = func(f *os.File, rel string, gitlink bool) error {
		st, err := f.Stat()
		if err != nil {
			return err
		}
		if !st.IsDir() {
			return fmt.Errorf("%s is not a folder", rel)
		}
		if st.Mode().Perm() != dirMode || st.Mode()&(fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky) != 0 {
			if err := f.Chmod(dirMode); err != nil {
				return err
			}
		}
		ents, err := worktree.ReadDirTypes(f)
		if err != nil {
			return err
		}
		for _, e := range ents {
			p := e.Name()
			if rel != "" {
				p = rel + "/" + e.Name()
			}
			if rel == "" && e.Name() == ".git" {
				continue // rewritten by the caller
			}
			keep, sub, link := false, false, false
			if !gitlink {
				switch mode := kinds[p]; {
				case mode == git.ModeSymlink:
					keep = e.Type() == fs.ModeSymlink
				case mode == "160000":
					keep, sub, link = e.Type() == fs.ModeDir, true, true
				case mode != "":
					keep = e.Type().IsRegular()
				case dirs[p]:
					keep, sub = e.Type() == fs.ModeDir, true
				}
			}
			if !keep {
				if err := root.RemoveAll(p); err != nil {
					return err
				}
				continue
			}
			if sub {
				c, err := openDirAt(f, e.Name())
				if err != nil {
					return err
				}
				err = walk(c, p, link)
				c.Close()
				if err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(top, "", false)
}

// startFromPool prepares task t's worktree at dir from the claimed pool
// entry c; on any failure the worktree is discarded and the caller makes
// a fresh one. out, when set, is told why.
func (w *Workspace) startFromPool(ctx context.Context, t *Task, dir string, c *poolClaim, out io.Writer) bool {
	err := w.resetPooled(ctx, dir, c, t.Snapshot)
	if err == nil {
		return true
	}
	if ctx.Err() == nil && out != nil {
		fmt.Fprintf(out, "git nudge: the pooled worktree could not be proved clean (%v); making a fresh one\n", err)
	}
	_ = w.discardWorktree(dir)
	return false
}

// FillPool adds one fresh worktree, on HEAD's commit, to the pool when it
// has room; full is true (and nothing is added) when it has none.
func (w *Workspace) FillPool(ctx context.Context) (e *PoolEntry, full bool, err error) {
	bound, err := w.PoolBound(ctx)
	if err != nil {
		return nil, false, err
	}
	if bound == 0 {
		return nil, false, &RefusedError{What: "cannot fill the worktree pool", Reasons: []string{"nudge.pool is 0: the pool is off"},
			Next: "git config nudge.pool 2 turns it on (2 worktrees)."}
	}
	if _, err := worktree.RealDir(w.Repo.WorkTree, StateDirName+"/"+PoolDirName, true); err != nil {
		return nil, false, err
	}
	l, err := journal.Acquire(ctx, filepath.Join(w.poolDir(), "lock"), LockTimeout, "git-nudge pool")
	if err != nil {
		return nil, false, err
	}
	defer l.Release()
	entries, err := w.Pool()
	if err != nil {
		return nil, false, err
	}
	if len(entries) >= bound {
		return nil, true, nil
	}
	head, err := w.Repo.Head(ctx)
	if err != nil {
		return nil, false, err
	}
	if head.Unborn() {
		return nil, false, &RefusedError{What: "cannot fill the worktree pool", Reasons: []string{"HEAD has no commit yet"},
			Next: "Commit something first; a task's worktree comes from its snapshot either way."}
	}
	var name string
	for i := 1; ; i++ {
		name = fmt.Sprintf("p%d", i)
		_, err1 := os.Lstat(filepath.Join(w.poolDir(), name))
		_, err2 := os.Lstat(filepath.Join(w.poolDir(), name+".index"))
		if errors.Is(err1, fs.ErrNotExist) && errors.Is(err2, fs.ErrNotExist) {
			break
		}
	}
	dir := filepath.Join(w.poolDir(), name)
	_ = w.Repo.ForgetWorktree(dir)
	if err := w.Repo.AddWorktree(ctx, dir, head.Commit); err != nil {
		_ = w.discardWorktree(dir)
		return nil, false, fmt.Errorf("adding a worktree to the pool: %w", err)
	}
	admin, err := w.adminOf(dir)
	if err == nil {
		err = w.Repo.WorktreeRepo(dir, admin).RefreshIndex(ctx)
	}
	if err == nil {
		err = w.trustIndex(ctx, dir, dir+".index")
	}
	if err != nil {
		_ = w.discardWorktree(dir)
		return nil, false, fmt.Errorf("this repository's worktrees cannot be pooled: %w", err)
	}
	return &PoolEntry{Name: name, Path: dir}, false, nil
}

// ClearPool removes every parked worktree (and anything an interrupted
// pool command left there) and returns how many worktrees it removed.
func (w *Workspace) ClearPool(ctx context.Context) (int, error) {
	ents, err := os.ReadDir(w.poolDir())
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	l, err := w.Lock(ctx, "git-nudge pool clear")
	if err != nil {
		return 0, err
	}
	defer l.Release()
	pl, err := journal.Acquire(ctx, filepath.Join(w.poolDir(), "lock"), LockTimeout, "git-nudge pool")
	if err != nil {
		return 0, err
	}
	defer pl.Release()
	n := 0
	var errs []error
	for _, e := range ents {
		p := filepath.Join(w.poolDir(), e.Name())
		switch {
		case e.Name() == "tasks" || e.Name() == "lock":
		case e.IsDir():
			n++
			errs = append(errs, w.discardWorktree(p))
		default:
			errs = append(errs, os.Remove(p))
		}
	}
	return n, errors.Join(errs...)
}
