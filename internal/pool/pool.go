// Package pool owns the worktrees git-nudge makes for tasks between
// tasks: the pool of parked worktrees (.nudgethis/pool/), which the next
// task takes and brings to its snapshot instead of making a new one, its
// bounds (nudge.pool, nudge.pool.maxBytes), the trusted index that proves
// a reused worktree clean, the making of a task's worktree (from the pool
// or afresh), and the removal of a worktree through the trash
// (.nudgethis/trash/). It knows nothing of task records: its callers pass
// task ids, folders and commits.
//
// drop, and a finished task giving its worktree back, park the worktree
// in .nudgethis/pool/<name> instead of deleting it, and the next start
// takes it and brings it to its snapshot, which writes only the files
// that differ instead of every file.
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
package pool

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/guard"
	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/proc"
	"github.com/nudgethis/git-nudge/internal/refs"
	"github.com/nudgethis/git-nudge/internal/refusal"
	"github.com/nudgethis/git-nudge/internal/worktree"
)

// Pool is the worktree pool and trash of one workspace.
type Pool struct {
	Repo *git.Repo
	// Dir is the workspace's state folder (.nudgethis), absolute.
	Dir string
	// Wait is how long Fill and Clear wait for the pool's lock.
	Wait time.Duration
	// Lock takes the workspace lock; Clear holds it while it removes.
	Lock func(ctx context.Context, what string) (*journal.Lock, error)
}

// DirName is the pool's folder inside .nudgethis.
const DirName = "pool"

// DefaultBound is nudge.pool's default.
const DefaultBound = 2

func (p *Pool) poolDir() string { return filepath.Join(p.Dir, DirName) }

// TrustedIndex is the trusted index of task id's worktree.
func (p *Pool) TrustedIndex(id string) string {
	return filepath.Join(p.poolDir(), "tasks", id+".index")
}

// ReuseIndex is where a claimed pool entry's trusted index waits until the
// worktree is reset.
func (p *Pool) ReuseIndex(id string) string {
	return filepath.Join(p.poolDir(), "tasks", id+".reuse")
}

// Bound is nudge.pool: how many worktrees the pool keeps (0: none).
func (p *Pool) Bound(ctx context.Context) (int, error) {
	n, err := p.Repo.ConfigInt(ctx, "nudge.pool", DefaultBound)
	if err != nil {
		return 0, fmt.Errorf("reading nudge.pool: %w", err)
	}
	if n < 0 {
		n = 0
	}
	return int(n), nil
}

// Entry is one parked worktree.
type Entry struct {
	Name string `json:"name"`
	Path string `json:"path"`
	// Bytes is what it takes on disk, ignored files included (set by
	// Sizes).
	Bytes int64 `json:"bytes"`
}

// Entries lists the parked worktrees ready to be taken, by name. It
// creates nothing.
func (p *Pool) Entries() ([]Entry, error) {
	out, _, err := p.poolEntries()
	return out, err
}

// Leftovers counts the folders in the pool that are not entries ready
// to be taken: left by an interrupted command (or being filled now).
func (p *Pool) Leftovers() int {
	_, n, _ := p.poolEntries()
	return n
}

func (p *Pool) poolEntries() (out []Entry, leftovers int, _ error) {
	ents, err := os.ReadDir(p.poolDir())
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
		st, err := os.Lstat(filepath.Join(p.poolDir(), e.Name()+".index"))
		if err != nil || !st.Mode().IsRegular() {
			leftovers++ // being filled, or left by an interrupted command
			continue
		}
		out = append(out, Entry{Name: e.Name(), Path: filepath.Join(p.poolDir(), e.Name())})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, leftovers, nil
}

// AdminOf returns the administrative folder (.git/worktrees/<name>) whose
// gitdir file names dir's .git: the one git uses for the worktree at dir,
// found without reading dir/.git.
func (p *Pool) AdminOf(dir string) (string, error) {
	base := filepath.Join(p.Repo.CommonDir, "worktrees")
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
		if got == want || guard.SamePathOnDisk(filepath.Dir(got), dir) && filepath.Base(got) == ".git" {
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
func (p *Pool) trustIndex(ctx context.Context, dir, dst string) error {
	admin, err := p.AdminOf(dir)
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
	if plain, err := p.Repo.IndexPlain(ctx, index); err != nil || !plain {
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

// DiscardWorktree removes a worktree folder that git-nudge made (in the
// pool or in worktrees/) without following any link, and git's record of
// it (RemoveWorktree); one that a live process still uses stays.
func (p *Pool) DiscardWorktree(dir string) error {
	if hs, ok := proc.Holders(dir); !ok || len(hs) > 0 {
		reason, next := proc.DescribeHolders(dir, hs, ok)
		return fmt.Errorf("%s. %s", reason, next)
	}
	return p.RemoveWorktree(dir)
}

// Park moves task id's worktree dir into the pool, when the pool has room,
// the worktree has a trusted index and no process works in it. The caller
// (drop, or a finished task giving its worktree back) holds the workspace
// lock, has found the task idle and its worktree holding nothing
// uncaptured. changed lists the paths the task's result changes (read
// only when nudge.pool.maxBytes bounds the pool: see taskTreeBytes); an
// error measures the whole folder. parked is false when the worktree
// stays where it is (the caller removes it).
func (p *Pool) Park(ctx context.Context, id, dir string, changed func() ([]string, error)) (parked bool) {
	bound, err := p.Bound(ctx)
	if err != nil || bound == 0 {
		return false
	}
	maxBytes, err := p.MaxBytes(ctx)
	if err != nil {
		return false
	}
	trusted := p.TrustedIndex(id)
	if st, err := os.Lstat(trusted); err != nil || !st.Mode().IsRegular() {
		return false
	}
	if st, err := os.Lstat(dir); err != nil || !st.IsDir() {
		return false
	}
	if proc.InDir(dir) {
		return false
	}
	admin, err := p.AdminOf(dir)
	if err != nil {
		return false
	}
	// Room under nudge.pool and nudge.pool.maxBytes, the oldest pooled
	// worktrees evicted first.
	var size int64
	if maxBytes > 0 {
		size = p.taskTreeBytes(dir, trusted, changed)
	}
	if !p.makeRoom(bound, maxBytes, size) {
		return false
	}
	if _, err := worktree.RealDir(p.Repo.WorkTree, refs.NudgeDir+"/"+DirName, true); err != nil {
		return false
	}
	name := filepath.Base(admin)
	for i := 2; ; i++ {
		_, err1 := os.Lstat(filepath.Join(p.poolDir(), name))
		_, err2 := os.Lstat(filepath.Join(p.poolDir(), name+".index"))
		if errors.Is(err1, fs.ErrNotExist) && errors.Is(err2, fs.ErrNotExist) && name != "tasks" {
			break
		}
		name = fmt.Sprintf("%s-%d", filepath.Base(admin), i)
	}
	dst := filepath.Join(p.poolDir(), name)
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
		_ = p.DiscardWorktree(dst)
		return true
	}
	faults.Point("pool-park")
	if err := os.Rename(trusted, dst+".index"); err != nil {
		_ = p.DiscardWorktree(dst)
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

// discardEntry removes a pool entry: its worktree and trusted index.
func (p *Pool) discardEntry(e Entry) error {
	_ = os.Remove(e.Path + ".bytes")
	err := os.Remove(e.Path + ".index")
	if errors.Is(err, fs.ErrNotExist) {
		err = nil
	}
	return errors.Join(err, p.DiscardWorktree(e.Path))
}

// Fill adds one fresh worktree, on HEAD's commit, to the pool when it
// has room; full is true (and nothing is added) when it has none.
func (p *Pool) Fill(ctx context.Context) (e *Entry, full bool, err error) {
	bound, err := p.Bound(ctx)
	if err != nil {
		return nil, false, err
	}
	if bound == 0 {
		return nil, false, &refusal.Refusal{What: "cannot fill the worktree pool", Reasons: []string{"nudge.pool is 0: the pool is off"},
			Next: "git config nudge.pool 2 turns it on (2 worktrees)."}
	}
	if _, err := worktree.RealDir(p.Repo.WorkTree, refs.NudgeDir+"/"+DirName, true); err != nil {
		return nil, false, err
	}
	l, err := journal.Acquire(ctx, filepath.Join(p.poolDir(), "lock"), p.Wait, "git-nudge pool")
	if err != nil {
		return nil, false, err
	}
	defer l.Release()
	entries, err := p.Entries()
	if err != nil {
		return nil, false, err
	}
	if len(entries) >= bound {
		return nil, true, nil
	}
	head, err := p.Repo.Head(ctx)
	if err != nil {
		return nil, false, err
	}
	if head.Unborn() {
		return nil, false, &refusal.Refusal{What: "cannot fill the worktree pool", Reasons: []string{"HEAD has no commit yet"},
			Next: "Commit something first; a task's worktree comes from its snapshot either way."}
	}
	var name string
	for i := 1; ; i++ {
		name = fmt.Sprintf("p%d", i)
		_, err1 := os.Lstat(filepath.Join(p.poolDir(), name))
		_, err2 := os.Lstat(filepath.Join(p.poolDir(), name+".index"))
		if errors.Is(err1, fs.ErrNotExist) && errors.Is(err2, fs.ErrNotExist) {
			break
		}
	}
	dir := filepath.Join(p.poolDir(), name)
	_ = p.Repo.ForgetWorktree(dir)
	if err := p.Repo.AddWorktree(ctx, dir, head.Commit); err != nil {
		_ = p.DiscardWorktree(dir)
		return nil, false, fmt.Errorf("adding a worktree to the pool: %w", err)
	}
	admin, err := p.AdminOf(dir)
	if err == nil {
		err = settleIndex(ctx, filepath.Join(admin, "index"))
	}
	if err == nil {
		err = p.Repo.WorktreeRepo(dir, admin).RewriteIndexRefreshed(ctx)
	}
	if err == nil {
		err = p.trustIndex(ctx, dir, dir+".index")
	}
	if err != nil {
		_ = p.DiscardWorktree(dir)
		return nil, false, fmt.Errorf("this repository's worktrees cannot be pooled: %w", err)
	}
	return &Entry{Name: name, Path: dir}, false, nil
}

// settleIndex waits until the clock is past the second of index's
// modification time (at most a second), so that an index written from
// now on is newer, by git's reckoning, than every file written before
// it. git compares stat times by the second: a file whose time is in
// the index's own second is "racily clean" and is read and hashed again
// by every command that checks it. A worktree the pool makes is checked
// out in full just before its index is written, so without this wait
// the first task that takes it would hash a second's worth of files.
func settleIndex(ctx context.Context, index string) error {
	st, err := os.Stat(index)
	if err != nil {
		return err
	}
	// The margin covers file times taken from the kernel's coarse clock,
	// which may lag the wall clock by a few milliseconds.
	wait := time.Until(st.ModTime().Truncate(time.Second).Add(time.Second + 20*time.Millisecond))
	if wait <= 0 {
		return nil
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Clear removes every parked worktree (and anything an interrupted
// pool command left there) and returns how many worktrees it removed.
func (p *Pool) Clear(ctx context.Context) (int, error) {
	ents, err := os.ReadDir(p.poolDir())
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	l, err := p.Lock(ctx, "git-nudge pool clear")
	if err != nil {
		return 0, err
	}
	defer l.Release()
	pl, err := journal.Acquire(ctx, filepath.Join(p.poolDir(), "lock"), p.Wait, "git-nudge pool")
	if err != nil {
		return 0, err
	}
	defer pl.Release()
	n := 0
	var errs []error
	for _, e := range ents {
		entry := filepath.Join(p.poolDir(), e.Name())
		switch {
		case e.Name() == "tasks" || e.Name() == "lock":
		case e.IsDir():
			n++
			errs = append(errs, p.DiscardWorktree(entry))
		default:
			errs = append(errs, os.Remove(entry))
		}
	}
	return n, errors.Join(errs...)
}
