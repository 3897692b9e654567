package guard

import (
	"bytes"
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

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/pathenc"
)

// Display is a watched file's path for people: from the work
// tree's top when the git folder is inside it (".git/config").
func (g *Guard) Display(rel string) string {
	abs := filepath.Join(g.Repo.CommonDir, filepath.FromSlash(rel))
	if r, err := filepath.Rel(g.Repo.WorkTree, abs); err == nil && !strings.HasPrefix(r, "..") {
		return pathenc.Quote(filepath.ToSlash(r))
	}
	return pathenc.Quote(abs)
}

// isConfigFile reports whether rel is a git config file.
func isConfigFile(rel string) bool {
	b := path.Base(rel)
	return b == "config" || b == "config.worktree"
}

// Describe turns changes into lines for people: each config key with
// its old and new values, each other file added, changed or removed.
func (g *Guard) Describe(ctx context.Context, changes []Change) []string {
	var lines []string
	for _, c := range changes {
		name := g.Display(c.Path)
		if isConfigFile(c.Path) && (c.Old == nil || c.Old.Mode != git.ModeSymlink) && (c.New == nil || c.New.Mode != git.ModeSymlink) {
			if kl, ok := g.configDiff(ctx, c); ok {
				if len(kl) == 0 {
					kl = []string{"changed (comments or layout only)"}
				}
				for _, k := range kl {
					lines = append(lines, name+": "+k)
				}
				continue
			}
		}
		switch {
		case c.Old == nil:
			lines = append(lines, name+" was added"+linkNote(c.New))
		case c.New == nil:
			lines = append(lines, name+" was removed")
		default:
			lines = append(lines, name+" was changed"+linkNote(c.New))
		}
	}
	return lines
}

func linkNote(f *File) string {
	if f != nil && f.Mode == git.ModeSymlink {
		return " (a symlink to " + strconv.Quote(string(f.data)) + ")"
	}
	return ""
}

// configDiff lists the keys of a config file whose values differ.
func (g *Guard) configDiff(ctx context.Context, c Change) ([]string, bool) {
	read := func(f *File, abs string) (map[string][]string, []string, bool) {
		vals := map[string][]string{}
		var order []string
		if f == nil {
			return vals, nil, true
		}
		src := abs
		if abs == "" {
			src = "blob:" + f.Blob
		}
		es, err := g.Repo.ConfigFileEntries(ctx, src)
		if err != nil {
			return nil, nil, false
		}
		for _, e := range es {
			if _, ok := vals[e.Key]; !ok {
				order = append(order, e.Key)
			}
			vals[e.Key] = append(vals[e.Key], e.Value)
		}
		return vals, order, true
	}
	oldV, oldOrder, ok1 := read(c.Old, "")
	newV, newOrder, ok2 := read(c.New, filepath.Join(g.Repo.CommonDir, filepath.FromSlash(c.Path)))
	if !ok1 || !ok2 {
		return nil, false
	}
	var out []string
	keys := append(append([]string{}, oldOrder...), newOrder...)
	done := map[string]bool{}
	for _, k := range keys {
		if done[k] {
			continue
		}
		done[k] = true
		o, n := oldV[k], newV[k]
		if strings.Join(o, "\x00") == strings.Join(n, "\x00") && len(o) == len(n) {
			continue
		}
		qk := pathenc.Quote(k)
		switch {
		case len(o) == 0:
			out = append(out, fmt.Sprintf("%s = %s was added", qk, quoteVals(n)))
		case len(n) == 0:
			out = append(out, fmt.Sprintf("%s = %s was removed", qk, quoteVals(o)))
		default:
			out = append(out, fmt.Sprintf("%s changed from %s to %s", qk, quoteVals(o), quoteVals(n)))
		}
	}
	return out, true
}

func quoteVals(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = strconv.Quote(v)
	}
	return strings.Join(q, ", ")
}

// PutBack restores every changed file to its trusted version (removing
// what was added), keeping each version found in a new folder under
// .nudgethis/quarantine/. Every write stays inside the common git folder
// (os.Root), config files are replaced under git's own lock file
// (<file>.lock), others through a temp file and rename. It returns the
// quarantine folder and what it could not do.
func (g *Guard) PutBack(ctx context.Context, changes []Change) (string, []string) {
	var problems []string
	root, err := os.OpenRoot(g.Repo.CommonDir)
	if err != nil {
		return "", []string{fmt.Sprintf("anything: %v", err)}
	}
	defer root.Close()
	qdir, err := g.newQuarantine()
	if err != nil {
		return "", []string{fmt.Sprintf("anything (no quarantine folder: %v)", err)}
	}
	keep := func(f *File) error {
		dst := filepath.Join(qdir, filepath.FromSlash(f.Path))
		if f.Mode == git.ModeSymlink {
			dst += ".symlink-target"
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
			return err
		}
		return os.WriteFile(dst, f.data, 0o600)
	}
	// First what is there now and should not be (kept, then removed),
	// deepest first; then the trusted versions, shallowest first.
	sort.SliceStable(changes, func(i, j int) bool { return changes[i].Path > changes[j].Path })
	for _, c := range changes {
		if c.New == nil {
			continue
		}
		if err := keep(c.New); err != nil {
			problems = append(problems, fmt.Sprintf("%s (keeping a copy: %v)", g.Display(c.Path), err))
			continue
		}
		if c.Old != nil && c.Old.Mode != git.ModeSymlink && c.New.Mode != git.ModeSymlink {
			continue // replaced in place below
		}
		if err := root.Remove(filepath.FromSlash(c.Path)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			problems = append(problems, fmt.Sprintf("%s (removing it: %v)", g.Display(c.Path), err))
		}
		// Folders an added file left empty (a hooks folder made by the
		// task) go too; a folder still holding something stays.
		for d := path.Dir(c.Path); d != "." && d != "hooks" && d != "info"; d = path.Dir(d) {
			if root.Remove(filepath.FromSlash(d)) != nil {
				break
			}
		}
	}
	sort.SliceStable(changes, func(i, j int) bool { return changes[i].Path < changes[j].Path })
	for _, c := range changes {
		if c.Old == nil {
			continue
		}
		if err := g.writeTrusted(ctx, root, c.Old); err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", g.Display(c.Path), err))
		}
	}
	return qdir, problems
}

// newQuarantine makes .nudgethis/quarantine/<n>/, n one past the highest.
func (g *Guard) newQuarantine() (string, error) {
	base := filepath.Join(g.Dir, "quarantine")
	if err := os.MkdirAll(base, 0o700); err != nil {
		return "", err
	}
	ents, _ := os.ReadDir(base)
	n := 0
	for _, e := range ents {
		if k, err := strconv.Atoi(e.Name()); err == nil && k > n {
			n = k
		}
	}
	for i := n + 1; ; i++ {
		d := filepath.Join(base, strconv.Itoa(i))
		if err := os.Mkdir(d, 0o700); err == nil {
			return d, nil
		} else if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
	}
}

// writeTrusted writes f's trusted content at its path inside root.
func (g *Guard) writeTrusted(ctx context.Context, root *os.Root, f *File) error {
	if f.Mode == "special" {
		return errors.New("it was not a file; nothing to put back")
	}
	data, err := g.Repo.ReadBlob(ctx, f.Blob)
	if err != nil {
		return fmt.Errorf("its trusted content (blob %s, also in %s) cannot be read: %v", f.Blob, Ref, err)
	}
	return writeFile(root, f, data)
}

// writeFile writes data as f (its path, mode: a symlink's data is
// its target) inside root, through a temporary file (git's own lock file
// for a config file) renamed into place.
func writeFile(root *os.Root, f *File, data []byte) error {
	p := filepath.FromSlash(f.Path)
	if err := root.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	if st, err := root.Lstat(p); err == nil && st.IsDir() {
		// A folder took the file's place: its files were kept and removed
		// above; an empty folder goes.
		if err := root.Remove(p); err != nil {
			return fmt.Errorf("a folder is in its place: %v", err)
		}
	}
	tmp := p + ".nudge-restore"
	if isConfigFile(f.Path) {
		tmp = p + ".lock" // git's own lock: no git config writes meanwhile
	} else {
		_ = root.Remove(tmp)
	}
	if f.Mode == git.ModeSymlink {
		if err := root.Symlink(string(data), tmp); err != nil {
			return err
		}
	} else {
		perm := os.FileMode(0o644)
		if f.Mode == git.ModeExec {
			perm = 0o755
		}
		out, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if err != nil {
			if errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("%s exists: git is writing it (or crashed doing so); try again when it is done", tmp)
			}
			return err
		}
		_, werr := io.Copy(out, bytes.NewReader(data))
		if werr == nil {
			werr = out.Sync()
		}
		if cerr := out.Close(); werr == nil {
			werr = cerr
		}
		if werr == nil {
			werr = root.Chmod(tmp, perm)
		}
		if werr != nil {
			_ = root.Remove(tmp)
			return werr
		}
	}
	if err := root.Rename(tmp, p); err != nil {
		_ = root.Remove(tmp)
		return err
	}
	return nil
}

// OnlySparseKeys reports whether the config file at abs holds nothing but
// the sparse-checkout settings git worktree add copies into a new
// worktree's config.worktree.
func OnlySparseKeys(ctx context.Context, r *git.Repo, abs string) bool {
	es, err := r.ConfigFileEntries(ctx, abs)
	if err != nil || len(es) == 0 {
		return false
	}
	for _, e := range es {
		switch strings.ToLower(e.Key) {
		case "core.sparsecheckout", "core.sparsecheckoutcone":
		default:
			return false
		}
	}
	return true
}
