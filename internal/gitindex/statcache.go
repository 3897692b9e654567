package gitindex

// This file holds the stat cache: a private copy of the index whose
// refreshed stat data status may use, and when it can be trusted.

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/nudgethis/git-nudge/internal/gitstore"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// The stat cache is a private copy of the user's index whose stat data git
// status refreshes, so that after a mass touch (every file's mtime new,
// content the same) only the first snapshot pays for re-reading every file:
// git status given --no-optional-locks (as every git child here is) never
// writes the refreshed stat data back to the user's index, which this suite
// must not write anyway.
//
// A copy decides what a snapshot sees: a stat entry that matches a changed
// file hides the change, and its entries (staged blobs) would become the
// snapshot's content. So a copy is used only when both hold:
//   - the user's index is the one it was copied from (the index file's
//     trailing checksum, which git verifies on every read, equals the one
//     recorded at copy time), so its entries are the user's;
//   - the copy is the very file git last wrote for us: its device, inode,
//     size, mtime and ctime equal those recorded right after. The kernel
//     sets ctime on every change of a file and no process can set it back,
//     so an edited or replaced copy never matches.
// The copy and its record live in this worktree's git folder, which a
// sandboxed task cannot write; a task that is not sandboxed can write the
// user's own index as well (and forge it the same way), see
// docs/SECURITY.md. The copy starts with the user's index's mtime, so
// entries git treats as racily clean in the user's index stay so in the
// copy. Anything unexpected falls back to the user's index, read-only.

const statCacheDir = "nudgethis-statcache"

// statCacheRecord is record.json next to the copy.
type statCacheRecord struct {
	Version int             `json:"version"`
	Source  string          `json:"source"` // trailing checksum of the user's index copied
	Copy    gitstore.FileID `json:"copy"`   // the copy as git last wrote it
}

// statCache is the copy a Status call uses, and what to record after it.
type statCache struct {
	dir, index, record string
	source             string
}

// openStatCache returns the copy to give git status, made afresh from the
// user's index when the recorded one cannot be trusted; nil when the user's
// index must be used (none yet, submodules, any error).
func (r *Files) openStatCache() *statCache {
	if r.GitDir == "" || r.WorkTree == "" {
		return nil
	}
	c := &statCache{dir: filepath.Join(r.GitDir, statCacheDir)}
	if _, err := os.Lstat(filepath.Join(r.WorkTree, ".gitmodules")); err == nil {
		// git status runs git status in each submodule, which would
		// write the submodule's own index once locks are allowed.
		return nil
	}
	if _, err := os.Lstat(filepath.Join(c.dir, "off")); err == nil {
		return nil
	}
	c.index, c.record = filepath.Join(c.dir, "index"), filepath.Join(c.dir, "record.json")
	user, err := os.Open(filepath.Join(r.GitDir, "index"))
	if err != nil {
		return nil
	}
	defer user.Close()
	ust, err := user.Stat()
	if err != nil || !ust.Mode().IsRegular() || ust.Size() < int64(12+r.HashLen()) {
		return nil
	}
	trailer := make([]byte, r.HashLen())
	if _, err := user.ReadAt(trailer, ust.Size()-int64(len(trailer))); err != nil {
		return nil
	}
	c.source = hex.EncodeToString(trailer)
	if c.source == hex.EncodeToString(make([]byte, len(trailer))) {
		return nil // index.skipHash: no checksum to tell versions apart
	}
	if rec, ok := c.load(); ok && rec.Source == c.source {
		if id, ok := gitstore.IDOfPath(c.index); ok && id == rec.Copy {
			return c
		}
	}
	// A new copy, from the open file (the index is replaced by rename,
	// never rewritten in place, so these are the bytes checked above),
	// copied by the kernel (copy_file_range: a *os.File limited by
	// io.LimitReader; the file's offset is still 0, only ReadAt read it).
	if err := os.Mkdir(c.dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil
	}
	if st, err := os.Lstat(c.dir); err != nil || !st.IsDir() {
		return nil
	}
	os.Remove(c.record) // the old record describes nothing valid now
	tmp, err := os.CreateTemp(c.dir, "index.new-")
	if err != nil {
		return nil
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.ReadFrom(io.LimitReader(user, ust.Size()))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil
	}
	// The user's index's mtime: git's racy-entry rule sees the copy as it
	// sees the user's index.
	if err := os.Chtimes(tmp.Name(), ust.ModTime(), ust.ModTime()); err != nil {
		return nil
	}
	if err := os.Rename(tmp.Name(), c.index); err != nil {
		return nil
	}
	if !c.save() {
		return nil
	}
	return c
}

func (c *statCache) load() (statCacheRecord, bool) {
	var rec statCacheRecord
	data, err := os.ReadFile(c.record)
	if err != nil || json.Unmarshal(data, &rec) != nil || rec.Version != 1 {
		return rec, false
	}
	return rec, true
}

// save records the copy as it is now (after git wrote it, or after it was
// made). Not fsynced: a record lost or older than the copy only makes the
// next snapshot copy the user's index again.
func (c *statCache) save() bool {
	id, ok := gitstore.IDOfPath(c.index)
	if !ok {
		return false
	}
	data, err := json.Marshal(statCacheRecord{Version: 1, Source: c.source, Copy: id})
	if err != nil {
		return false
	}
	tmp := fmt.Sprintf("%s.%d.tmp", c.record, os.Getpid())
	if err := os.WriteFile(tmp, append(data, '\n'), 0o600); err != nil {
		return false
	}
	if err := os.Rename(tmp, c.record); err != nil {
		os.Remove(tmp)
		return false
	}
	return true
}

// forget removes the record, so the copy is never used again as it is.
func (c *statCache) forget() { os.Remove(c.record) }

// StatusWithCache runs the status command on the copy, letting git write
// the stat data it refreshed into it, then records the copy; ok is false
// when the copy could not be used (the caller runs status as usual).
func (r *Files) StatusWithCache(run func(env []string, locks bool) ([]byte, error)) ([]byte, bool) {
	c := r.openStatCache()
	if c == nil {
		return nil, false
	}
	out, err := run([]string{"GIT_INDEX_FILE=" + c.index}, true)
	if err != nil {
		c.forget()
		return nil, false
	}
	if hasSubmoduleEntry(out) {
		// A submodule without .gitmodules: never again (see above).
		c.forget()
		os.WriteFile(filepath.Join(c.dir, "off"), []byte("submodules\n"), 0o600)
	} else if !c.save() {
		c.forget()
	}
	return out, true
}

// UntrackedCacheHere reports whether git status may keep an untracked
// cache in the stat cache copy. The untracked cache is git's own: it
// remembers each folder's untracked entries with the folder's stat data
// and the ids of the ignore files that applied, and reads a folder again
// only when its stat data or those files changed; git status's answer is
// the same with or without it, as long as creating or removing an entry
// changes its folder's mtime. Git leaves checking that to the user (`git
// update-index --test-untracked-cache`, which takes seconds), so here it is
// used only on local filesystems known to do so, and never when the
// user's config says core.untrackedCache=false or cannot be read in this
// process. The user's own index never gets one from us.
func (r *Files) UntrackedCacheHere() bool {
	v, found, ok := r.ConfigLast("core", "untrackedcache")
	if !ok || found && v == "false" {
		return false
	}
	return UntrackedCacheFS(r.WorkTree)
}

// hasSubmoduleEntry reports whether porcelain v2 output lists a submodule.
func hasSubmoduleEntry(out []byte) bool {
	for len(out) > 0 {
		rec := out
		if i := bytes.IndexByte(out, 0); i >= 0 {
			rec, out = out[:i], out[i+1:]
		} else {
			out = nil
		}
		if len(rec) > 5 && (rec[0] == '1' || rec[0] == 'u') && rec[5] == 'S' {
			return true // "1 XY S..." / "u XY S..."
		}
	}
	return false
}
