// Package guard keeps what an untrusted task leaves in the repository's
// git folder from being trusted unchecked. A task's linked worktree shares
// the repository's git folder: its config (nudge.protect, nudge.setup,
// core.hooksPath, core.fsmonitor, filter drivers...), hooks, info/ and
// shallow, and its refs. A task that changes them changes what protects
// the user and what runs in the user's workspace.
//
// The package knows files and refs, not tasks: it records the trusted
// state of the settings (.nudgethis/guard.json, their contents pinned as a
// commit by Ref), scans them, compares the two, puts back what differs
// (keeping what was found in .nudgethis/quarantine/<n>/), sets aside the
// refs a run made or moved, checks a task worktree's git folder before
// any git command runs there, and checks modes and result trees. Which
// tasks could have made a change, and what their records say, is the
// workspace's decision (internal/nudge). docs/SECURITY.md says what this
// does and does not stop.
package guard

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

// Ref pins the contents of the trusted state so that gc keeps them.
const Ref = "refs/nudgethis/guard"

// File is one file of the shared git settings: its path from the
// repository's common git folder ("config", "hooks/pre-commit"), its mode
// ("100644", "100755", "120000" for a symlink) and blob.
type File struct {
	Path string `json:"path"`
	Mode string `json:"mode"`
	Blob string `json:"blob"`

	data []byte // what was read (scans only)
}

// State is .nudgethis/guard.json.
type State struct {
	Version int    `json:"version"`
	Commit  string `json:"commit"`
	Files   []File `json:"files"`
}

// Guard is the guard of one workspace: its repository and state folder.
type Guard struct {
	Repo *git.Repo // the workspace's repository
	Dir  string    // the state folder (.nudgethis): guard.json, quarantine/
	// Identity signs the commits that pin the trusted state.
	Identity git.Identity
	// Warn receives what the guard did on its own (a config.worktree set
	// aside); nil: nothing is said.
	Warn io.Writer
}

// Path is the record of the trusted state.
func (g *Guard) Path() string { return filepath.Join(g.Dir, "guard.json") }

// Roots are the watched paths, from the common git folder.
func (g *Guard) Roots() []string {
	// Version 2 watches all of info/ (grafts, sparse-checkout, refs as
	// well as exclude and attributes) and shallow, besides version 1's.
	roots := []string{"config", "config.worktree", "hooks", "info", "shallow"}
	if g.Repo.GitDir != g.Repo.CommonDir {
		// The workspace is itself a linked worktree: its own settings.
		if rel, err := filepath.Rel(g.Repo.CommonDir, g.Repo.GitDir); err == nil && !strings.HasPrefix(rel, "..") {
			roots = append(roots, filepath.ToSlash(filepath.Join(rel, "config.worktree")))
		}
	}
	return roots
}

// ScanLimit bounds how many files a scan reads (a hooks folder with
// more is reported as such rather than read to the end).
const ScanLimit = 2000

// Scan reads the watched files as they are now.
func (g *Guard) Scan() ([]File, error) {
	var out []File
	var walk func(rel string, depth int) error
	walk = func(rel string, depth int) error {
		abs := filepath.Join(g.Repo.CommonDir, filepath.FromSlash(rel))
		st, err := os.Lstat(abs)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if len(out) >= ScanLimit {
			return fmt.Errorf("more than %d files under %s: too many to compare; remove what does not belong there", ScanLimit, filepath.Join(g.Repo.CommonDir, "hooks"))
		}
		f := File{Path: rel}
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
		f.Blob = g.Repo.BlobID(f.data)
		out = append(out, f)
		return nil
	}
	for _, r := range g.Roots() {
		if err := walk(r, 0); err != nil {
			return nil, err
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// Trust records files as the trusted state: their contents go into the
// object store, pinned by Ref, and their list into guard.json.
func (g *Guard) Trust(ctx context.Context, files []File) error {
	r := g.Repo
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
	old, ok, err := r.ReadRef(ctx, Ref)
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
		Author: g.Identity, Committer: g.Identity,
	})
	if err != nil {
		return err
	}
	if err := r.SetRef(ctx, git.SetRefRequest{Name: Ref, New: commit, Old: old}); err != nil {
		return err
	}
	st := State{Version: Version, Commit: commit, Files: make([]File, 0, len(files))}
	for _, f := range files {
		st.Files = append(st.Files, File{Path: f.Path, Mode: f.Mode, Blob: f.Blob})
	}
	return journal.Write(g.Path(), st)
}

// Version is the version of guard.json written: 2 watches info/
// whole and shallow (Roots).
const Version = 2

// Upgrade takes, from a trusted state of version 1, the files now
// present in what version 2 watches besides (info/ other than exclude and
// attributes, shallow) as trusted: the user's from before the upgrade,
// not a change. It reports whether it did.
func Upgrade(prev *State, now []File) bool {
	if prev.Version >= Version {
		return false
	}
	have := map[string]bool{}
	for _, f := range prev.Files {
		have[f.Path] = true
	}
	for _, f := range now {
		isNew := f.Path == "shallow" || strings.HasPrefix(f.Path, "info/") && f.Path != "info/exclude" && f.Path != "info/attributes"
		if isNew && !have[f.Path] {
			prev.Files = append(prev.Files, File{Path: f.Path, Mode: f.Mode, Blob: f.Blob})
		}
	}
	sort.Slice(prev.Files, func(i, j int) bool { return prev.Files[i].Path < prev.Files[j].Path })
	return true
}

// Change is one watched file that differs from the trusted state.
type Change struct {
	Path     string
	Old, New *File // nil: no such file
}

// Diff lists the watched files that differ between trusted and now.
func Diff(trusted, now []File) []Change {
	old := map[string]*File{}
	for i := range trusted {
		old[trusted[i].Path] = &trusted[i]
	}
	seen := map[string]bool{}
	var out []Change
	for i := range now {
		n := &now[i]
		seen[n.Path] = true
		if o := old[n.Path]; o == nil || o.Mode != n.Mode || o.Blob != n.Blob {
			out = append(out, Change{Path: n.Path, Old: o, New: n})
		}
	}
	for i := range trusted {
		if !seen[trusted[i].Path] {
			out = append(out, Change{Path: trusted[i].Path, Old: &trusted[i]})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}
