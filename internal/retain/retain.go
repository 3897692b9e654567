// Package retain is what git nudge and git autodev share to keep disk use
// bounded: retention ages ("30d"), the size of a folder, the bytes only
// some refs keep alive (what git gc could reclaim once they are dropped),
// and the daily stamp of automatic pruning.
package retain

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nudgethis/git-nudge/internal/git"
)

// Setting reads the retention age tool.retention (0 when unset or
// empty). The value is read in this process when the config files are
// plain (no include, nothing from the environment), else asked of git: a
// command that only checks whether its daily prune is due starts no git
// process for it.
func Setting(ctx context.Context, r *git.Repo, tool string) (time.Duration, error) {
	if !r.ConfigMayMention("retention") {
		return 0, nil
	}
	v, ok, here := r.ConfigLastRaw(tool, "retention")
	if !here {
		var err error
		if v, ok, err = r.ConfigGet(ctx, tool+".retention"); err != nil {
			return 0, err
		}
	}
	if !ok || v == "" {
		return 0, nil
	}
	d, err := ParseAge(v)
	if err != nil {
		return 0, fmt.Errorf("%s.retention: %w (git config %s.retention 30d sets it; git config --unset %s.retention turns automatic pruning off)", tool, err, tool, tool)
	}
	return d, nil
}

// ParseAge reads a retention age: a number followed by w (weeks), d
// (days), h (hours) or m (minutes), or a Go duration ("90m", "1h30m").
func ParseAge(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	bad := fmt.Errorf("%q is not an age: write a number and a unit, such as 30d, 12h or 2w", s)
	if s == "" {
		return 0, bad
	}
	unit := map[byte]time.Duration{'w': 7 * 24 * time.Hour, 'd': 24 * time.Hour}
	if u, ok := unit[s[len(s)-1]]; ok {
		n, err := strconv.ParseFloat(s[:len(s)-1], 64)
		if err != nil || n < 0 || n > 100*365 {
			return 0, bad
		}
		return time.Duration(n * float64(u)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, bad
	}
	return d, nil
}

// FormatAge writes d as ParseAge reads it, in the largest whole unit.
func FormatAge(d time.Duration) string {
	switch day := 24 * time.Hour; {
	case d >= 7*day && d%(7*day) == 0:
		return strconv.FormatInt(int64(d/(7*day)), 10) + "w"
	case d >= day && d%day == 0:
		return strconv.FormatInt(int64(d/day), 10) + "d"
	case d >= time.Hour && d%time.Hour == 0:
		return strconv.FormatInt(int64(d/time.Hour), 10) + "h"
	}
	return d.String()
}

// Folder is the size of a folder: its bytes (apparent sizes of regular
// files and symlinks) and the number of entries directly in it.
type Folder struct {
	Bytes   int64 `json:"bytes"`
	Entries int   `json:"count"`
}

// FolderSize walks dir without following symlinks; a missing folder is
// empty.
func FolderSize(dir string) Folder {
	var f Folder
	ents, err := os.ReadDir(dir)
	if err != nil {
		return f
	}
	f.Entries = len(ents)
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable parts count as empty
		}
		if d.Type().IsRegular() || d.Type()&fs.ModeSymlink != 0 {
			if info, err := d.Info(); err == nil {
				f.Bytes += info.Size()
			}
		}
		return nil
	})
	return f
}

// FileSize is the size of one file (0 when missing).
func FileSize(path string) int64 {
	info, err := os.Lstat(path)
	if err != nil {
		return 0
	}
	return info.Size()
}

// Refs are every ref of a repository, read once.
type Refs struct {
	repo *git.Repo
	all  map[string]string
}

// ReadRefs lists every ref (one git process).
func ReadRefs(ctx context.Context, r *git.Repo) (*Refs, error) {
	// In the main worktree every ref is in the common folder: read from
	// the files when they can be (no symbolic ref, no reftable), as git
	// for-each-ref would list them.
	if filepath.Clean(r.GitDir) == filepath.Clean(r.CommonDir) {
		if all, ok := r.RefsFast([]string{"refs/"}); ok {
			return &Refs{repo: r, all: all}, nil
		}
	}
	all, err := r.RefsAll(ctx)
	if err != nil {
		return nil, err
	}
	return &Refs{repo: r, all: all}, nil
}

// Under is the refs whose name starts with one of prefixes (name -> id).
func (rs *Refs) Under(prefixes ...string) map[string]string {
	m := map[string]string{}
	for name, id := range rs.all {
		for _, p := range prefixes {
			if strings.HasPrefix(name, p) {
				m[name] = id
				break
			}
		}
	}
	return m
}

// split is the ids of the refs under prefixes, and those of every other
// ref except the ones under ignore.
func (rs *Refs) split(prefixes, ignore []string) (in, out []string) {
	seenIn, seenOut := map[string]bool{}, map[string]bool{}
	for name, id := range rs.all {
		switch {
		case hasAny(name, prefixes):
			if !seenIn[id] {
				seenIn[id] = true
				in = append(in, id)
			}
		case hasAny(name, ignore):
		default:
			if !seenOut[id] {
				seenOut[id] = true
				out = append(out, id)
			}
		}
	}
	sort.Strings(in)
	sort.Strings(out)
	return in, out
}

func hasAny(name string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// Only is the bytes on disk of the objects that only the refs under
// prefixes reach: not any other ref (those under ignore aside), not
// HEAD, a reflog or the index. That is what git gc could reclaim once
// those refs are gone (and nothing under ignore pins them any more).
func (rs *Refs) Only(ctx context.Context, prefixes, ignore []string) (int64, error) {
	in, out := rs.split(prefixes, ignore)
	return rs.repo.DiskUsage(ctx, in, out)
}

// Item is one thing that holds objects (a task, a checkpoint) with the
// commits that are its own.
type Item struct {
	ID      string
	Commits []string
}

// Sized is an item and the bytes of the objects that only its commits
// reach: what dropping it alone would let git reclaim.
type Sized struct {
	ID    string `json:"id"`
	Bytes int64  `json:"bytes"`
}

// Measure is Only, and the n largest of items by the objects that only
// the refs under prefixes reach and that each item's commits add against
// their first parent (the commits themselves and the blobs they change;
// trees are left out), largest first. Three git processes, however many
// items, two of them at once.
func (rs *Refs) Measure(ctx context.Context, prefixes, ignore []string, items []Item, n int) (int64, []Sized, error) {
	in, out := rs.split(prefixes, ignore)
	var commits []string
	seen := map[string]bool{}
	for _, it := range items {
		for _, c := range it.Commits {
			if c != "" && !seen[c] {
				seen[c] = true
				commits = append(commits, c)
			}
		}
	}
	unique, err := rs.repo.UniqueObjects(ctx, in, out)
	if err != nil {
		return 0, nil, err
	}
	// Each item's objects among the unique ones: walked in this process
	// through the unique objects only, else from git's log of what each
	// commit adds.
	var objs map[string][]string
	if n > 0 && len(commits) > 0 {
		var ok bool
		if objs, ok = rs.repo.ObjectsWithinHere(commits, unique); !ok {
			if objs, err = rs.repo.CommitObjects(ctx, commits); err != nil {
				return 0, nil, err
			}
		}
	}
	var total int64
	for _, size := range unique {
		total += size
	}
	// An object two items reach is not freed by dropping either one:
	// each item counts the objects no other item reaches.
	itemObjs := make([]map[string]bool, len(items))
	owners := map[string]int{}
	for i, it := range items {
		itemObjs[i] = map[string]bool{}
		for _, c := range it.Commits {
			for _, o := range objs[c] {
				if !itemObjs[i][o] {
					itemObjs[i][o] = true
					owners[o]++
				}
			}
		}
	}
	sized := []Sized{}
	for i, it := range items {
		var b int64
		for o := range itemObjs[i] {
			if owners[o] == 1 {
				b += unique[o]
			}
		}
		if b > 0 {
			sized = append(sized, Sized{ID: it.ID, Bytes: b})
		}
	}
	sort.SliceStable(sized, func(i, j int) bool { return sized[i].Bytes > sized[j].Bytes })
	if len(sized) > n {
		sized = sized[:n]
	}
	return total, sized, nil
}

// Parallel runs fns at once and returns the first error.
func Parallel(fns ...func() error) error {
	errs := make([]error, len(fns))
	var wg sync.WaitGroup
	for i, fn := range fns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = fn()
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Stamp is the file that says when automatic pruning last finished.
type Stamp string

// Due reports whether a day has passed since the stamp was last set (or
// it was never set).
func (s Stamp) Due(now time.Time) bool {
	data, err := os.ReadFile(string(s))
	if err != nil {
		return true
	}
	t, err := time.Parse(time.RFC3339, strings.TrimSpace(string(data)))
	if err != nil {
		return true
	}
	return now.Sub(t) >= 24*time.Hour || t.After(now.Add(time.Hour))
}

// Set records now as the last time pruning finished. The stamp is a hint,
// written by rename without a flush: lost or torn by a crash, it only
// makes the next command check again.
func (s Stamp) Set(now time.Time) error {
	f, err := os.CreateTemp(filepath.Dir(string(s)), "."+filepath.Base(string(s))+".tmp-*")
	if errors.Is(err, fs.ErrNotExist) {
		return nil // the folder is gone: nothing to remember
	}
	if err != nil {
		return err
	}
	_, err = f.WriteString(now.UTC().Format(time.RFC3339) + "\n")
	if err == nil {
		err = f.Chmod(0o644)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), string(s))
	}
	if err != nil {
		_ = os.Remove(f.Name())
	}
	return err
}

// Bytes writes n for people: 0 B, 512 B, 4.2 KiB, 12 MiB, 1.5 GiB.
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	v := float64(n) / float64(div)
	suffix := []string{"KiB", "MiB", "GiB", "TiB", "PiB"}[exp]
	if v < 10 {
		return fmt.Sprintf("%.1f %s", v, suffix)
	}
	return fmt.Sprintf("%.0f %s", v, suffix)
}
