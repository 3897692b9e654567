package pool

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/proc"
	"github.com/nudgethis/git-nudge/internal/worktree"
)

// DefaultMaxBytes is nudge.pool.maxBytes's default: 4 GiB.
const DefaultMaxBytes = 4 << 30

// MaxBytes is nudge.pool.maxBytes: how many bytes of disk the pooled
// worktrees may take together, ignored files (dependency folders such as
// node_modules, build output) included (0: no bound but the count).
func (p *Pool) MaxBytes(ctx context.Context) (int64, error) {
	n, err := p.Repo.ConfigInt(ctx, "nudge.pool.maxBytes", DefaultMaxBytes)
	if err != nil {
		return 0, fmt.Errorf("reading nudge.pool.maxBytes: %w", err)
	}
	if n < 0 {
		n = 0
	}
	return n, nil
}

// diskUsage is what the folder at dir takes on disk (as du counts it:
// allocated blocks, each hard-linked file once), read without following
// any link.
func diskUsage(dir string) int64 {
	var total int64
	seen := map[[2]uint64]bool{}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		n, key, linked := statBlocks(info)
		if linked {
			if seen[key] {
				return nil
			}
			seen[key] = true
		}
		total += n
		return nil
	})
	return total
}

// taskTreeBytes is diskUsage of a task's worktree dir, found without an
// lstat of every file: a tracked file the task's result does not change
// (changed lists those it does) is as large as its trusted index (index,
// the worktree's index before the task ran) recorded, in whole 4 KiB
// blocks; every other entry (the result's files, untracked and ignored
// files, folders, links) is stat'ed. The caller found the worktree
// holding nothing uncaptured, so tracked files outside the result are as
// the reset left them. Anything unexpected measures the whole folder
// (diskUsage).
func (p *Pool) taskTreeBytes(dir, index string, changed func() ([]string, error)) int64 {
	paths, err := changed()
	if err != nil {
		return diskUsage(dir)
	}
	sizes, ok := p.Repo.IndexFileSizes(index)
	if !ok {
		return diskUsage(dir)
	}
	for _, f := range paths {
		delete(sizes, f)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return diskUsage(dir)
	}
	defer root.Close()
	const block = 4096
	seen := map[[2]uint64]bool{}
	var total int64
	top, err := root.Open(".")
	if err != nil {
		return diskUsage(dir)
	}
	defer top.Close()
	var walk func(f *os.File, rel string) error
	walk = func(f *os.File, rel string) error {
		if st, err := f.Stat(); err == nil {
			n, _, _ := statBlocks(st)
			total += n
		}
		ents, err := worktree.ReadDirTypes(f)
		if err != nil {
			return err
		}
		for _, e := range ents {
			name := e.Name()
			if rel != "" {
				name = rel + "/" + name
			}
			if e.Type().IsRegular() {
				if n, ok := sizes[name]; ok {
					total += (n + block - 1) / block * block
					continue
				}
			}
			if e.Type() == fs.ModeDir {
				c, err := openDirAt(f, e.Name())
				if err != nil {
					return err
				}
				err = walk(c, name)
				c.Close()
				if err != nil {
					return err
				}
				continue
			}
			n, key, linked, err := blocksAt(f, e.Name())
			if err != nil {
				return err
			}
			if linked {
				if seen[key] {
					continue
				}
				seen[key] = true
			}
			total += n
		}
		return nil
	}
	if err := walk(top, ""); err != nil {
		return diskUsage(dir)
	}
	return total
}

// entryBytes is pool entry e's disk usage: recorded in <name>.bytes when
// it was parked (a pooled worktree does not change), measured (and
// recorded) otherwise.
func (p *Pool) entryBytes(e Entry) int64 {
	if b, err := journal.ReadRegular(e.Path + ".bytes"); err == nil {
		if n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && n >= 0 {
			return n
		}
	}
	n := diskUsage(e.Path)
	_ = writeNew(e.Path+".bytes", []byte(strconv.FormatInt(n, 10)+"\n"))
	return n
}

// makeRoom evicts pooled worktrees, the oldest parked first, until one
// more of size bytes fits under both bounds; false when it cannot (one
// in use stays, and so does everything after it). The caller holds the
// workspace lock.
func (p *Pool) makeRoom(bound int, maxBytes, size int64) bool {
	if maxBytes > 0 && size > maxBytes {
		return false
	}
	entries, err := p.Entries()
	if err != nil {
		return false
	}
	type aged struct {
		e     Entry
		when  int64
		bytes int64
	}
	var all []aged
	var total int64
	for _, e := range entries {
		a := aged{e: e}
		if st, err := os.Lstat(e.Path); err == nil {
			a.when = st.ModTime().UnixNano()
		}
		if maxBytes > 0 {
			a.bytes = p.entryBytes(e)
		}
		total += a.bytes
		all = append(all, a)
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].when < all[j].when })
	for len(all) > 0 && (len(all) >= bound || maxBytes > 0 && total+size > maxBytes) {
		if proc.InDir(all[0].e.Path) || p.discardEntry(all[0].e) != nil {
			return false
		}
		total -= all[0].bytes
		all = all[1:]
	}
	return len(all) < bound && (maxBytes == 0 || total+size <= maxBytes)
}

// Sizes sets each entry's Bytes (from what was recorded when it was
// parked, or measured; nothing is written) and returns their sum.
func (p *Pool) Sizes(entries []Entry) int64 {
	var total int64
	for i := range entries {
		n := int64(-1)
		if b, err := journal.ReadRegular(entries[i].Path + ".bytes"); err == nil {
			if v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && v >= 0 {
				n = v
			}
		}
		if n < 0 {
			n = diskUsage(entries[i].Path)
		}
		entries[i].Bytes = n
		total += n
	}
	return total
}
