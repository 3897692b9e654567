package snapshot

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/nudgethis/git-nudge/internal/git"
)

// Skipped is a path a capture left out, and why.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
	// Size is the file's size when Reason is ReasonTooLarge (not
	// written into records).
	Size int64 `json:"-"`
}

// Result is a captured work tree.
type Result struct {
	// Head is HEAD as the capture saw it.
	Head git.Head
	// Tree is the captured tree; "" when Clean and HEAD has a commit and
	// the capture was not made in the index (the tree is HEAD's, not
	// looked up).
	Tree    string
	Skipped []Skipped // what was left out (besides ignored files), sorted by path
	Clean   bool      // Tree is HEAD's tree (the empty tree on an unborn branch)
	// Untracked is how many untracked files were captured.
	Untracked int
	// Index is, for a capture in the index (Policy.InIndex), the private
	// copy of the user's index that holds Tree: the caller installs it
	// (git.Repo.InstallIndex) or removes it (Discard). Zero otherwise.
	Index git.Index
	// IndexTree is, for a capture in the index, the tree of the user's
	// index as it was before the capture ("" when it has none: no index
	// file, or unmerged entries).
	IndexTree string
}

// Discard removes the private index of a capture made in the index, if
// any.
func (r *Result) Discard() {
	if r != nil && r.Index.Path != "" {
		os.Remove(r.Index.Path)
		r.Index = git.Index{}
	}
}

// TooManyUntrackedError refuses a capture that would take more untracked
// files than Options.MaxUntracked. Nothing was written.
type TooManyUntrackedError struct {
	Limit int
	// Folders are the top-level folders holding the most untracked files,
	// with their counts, largest first (at most five).
	Folders []FolderCount
}

// FolderCount is a folder and how many untracked files it holds.
type FolderCount struct {
	Folder string
	Files  int
	// AtLeast is true when counting stopped inside the folder (the limit
	// was passed there): it holds Files or more.
	AtLeast bool
}

func (e *TooManyUntrackedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "more than %d untracked files would be captured (git config nudge.maxUntracked); nothing was recorded.\n", e.Limit)
	if len(e.Folders) > 0 {
		b.WriteString("Most of them are in:\n")
		for _, f := range e.Folders {
			n := fmt.Sprintf("%d files", f.Files)
			if f.Files == 1 {
				n = "1 file"
			}
			if f.AtLeast {
				n = "at least " + n
			}
			fmt.Fprintf(&b, "  %s (%s)\n", f.Folder, n)
		}
	}
	b.WriteString("Add the folders that are not source to .gitignore (or .git/info/exclude), or raise the limit with git config nudge.maxUntracked N, then try again.")
	return b.String()
}

// Request is one capture: the policy, and what the caller already read.
type Request struct {
	Policy Policy
	// Options are the capture's rules; nil: read from git config under
	// Policy (Policy.LoadOptions), while git works.
	Options *Options
	// Head and HeadTree are HEAD and its tree as the caller read them
	// (HeadTree "" on an unborn branch). A capture in the index starts
	// from them; a capture on HEAD's tree reads HEAD with git status and
	// does not look at them.
	Head     git.Head
	HeadTree string
}

// CaptureWith captures the work tree of repo under req.Policy, and
// returns the options it went by. A capture in the index reads the
// options only when there are untracked files to sort (zero Options
// otherwise). The work tree, the user's index and HEAD are only read.
func CaptureWith(ctx context.Context, repo *git.Repo, req Request) (Result, Options, error) {
	if err := req.Policy.check(); err != nil {
		return Result{}, Options{}, err
	}
	var opts Options
	load := func() (Options, error) {
		var err error
		if req.Options != nil {
			opts = *req.Options
		} else {
			opts, err = req.Policy.LoadOptions(ctx, repo)
		}
		if opts.MaxFileSize <= 0 {
			opts.MaxFileSize = MaxFileSize
		}
		return opts, err
	}
	if req.Policy.InIndex {
		res, err := captureInIndex(ctx, repo, req, load)
		return res, opts, err
	}
	res, err := capture(ctx, repo, req.Policy, load)
	return res, opts, err
}

// Capture records the work tree of repo as it is now into a tree: tracked
// files with their local edits (staged or not; deleted files absent) and
// untracked files, leaving out ignored files, untracked dependency folders,
// untracked files over the size limit and nested repositories, and keeping
// protected paths at HEAD's version (absent when HEAD has none). It works
// the same on the user's workspace and on a task's linked worktree (whose
// HEAD is the detached snapshot commit). The work tree, the index and HEAD
// are only read. It is CaptureWith under SnapshotPolicy.
//
// The cost follows `git status`: one status call finds what differs from
// HEAD; only those paths are hashed (in a small index of its own, never the
// user's), and only the folders on those paths are rewritten on top of
// HEAD's tree.
func Capture(ctx context.Context, repo *git.Repo, opts Options) (Result, error) {
	res, _, err := CaptureWith(ctx, repo, Request{Policy: SnapshotPolicy, Options: &opts})
	return res, err
}

// CaptureConfigured is Capture with the options read from git config
// (LoadOptions) while git status runs.
func CaptureConfigured(ctx context.Context, repo *git.Repo) (Result, Options, error) {
	return CaptureWith(ctx, repo, Request{Policy: SnapshotPolicy})
}

// capture is the capture on HEAD's tree, with the options loaded by
// loadOpts while git status runs: status sorted into edits and paths to
// hash (sortStatus), the untracked folders listed (listUntracked), then
// the tree written on top of HEAD's (writeTree).
func capture(ctx context.Context, repo *git.Repo, policy Policy, loadOpts func() (Options, error)) (Result, error) {
	var res Result
	head, entries, opts, err := statusWithOptions(ctx, repo, loadOpts)
	if err != nil {
		return res, err
	}
	res.Head = head
	c := newCollector(repo, policy, opts)
	p := c.sortStatus(entries)
	if err := c.unpopulatedSubmodules(ctx); err != nil {
		return res, err
	}
	if err := c.listUntracked(ctx, p.dirs); err != nil {
		return res, err
	}
	res.Skipped = c.sortedSkipped()
	res.Untracked = len(c.files)

	if len(p.edits) == 0 && len(p.hash) == 0 && len(c.files) == 0 {
		// Nothing but protected or skipped paths differ: HEAD's tree.
		res.Clean = true
		if head.Unborn() {
			res.Tree = repo.EmptyTree()
		}
		return res, nil
	}
	p.hash = append(p.hash, c.files...)
	tree, baseTree, err := writeTree(ctx, repo, head, p, entries)
	if err != nil {
		return res, err
	}
	res.Tree, res.Clean = tree, tree == baseTree
	return res, nil
}

// statusWithOptions is git status of the work tree, with the options
// loadOpts reads meanwhile.
func statusWithOptions(ctx context.Context, repo *git.Repo, loadOpts func() (Options, error)) (git.Head, []git.StatusEntry, Options, error) {
	type loaded struct {
		opts Options
		err  error
	}
	optsc := make(chan loaded, 1)
	go func() {
		o, err := loadOpts()
		optsc <- loaded{o, err}
	}()
	head, entries, err := repo.Status(ctx)
	lo := <-optsc
	if err != nil {
		return head, nil, lo.opts, err
	}
	if lo.err != nil {
		return head, nil, lo.opts, lo.err
	}
	return head, entries, lo.opts, nil
}

// capturePlan is what git status says a capture must do.
type capturePlan struct {
	edits []git.TreeEdit   // paths whose new entry is known already
	seeds []git.IndexEntry // index entries of the paths to hash
	hash  []string         // tracked paths to take from the work tree
	dirs  []string         // untracked folders to list file by file
}

// sortStatus sorts git status's entries into the plan, skipping protected
// paths and submodules' insides, and collecting untracked files (c.files).
func (c *collector) sortStatus(entries []git.StatusEntry) capturePlan {
	var p capturePlan
	for _, e := range entries {
		switch e.Kind {
		case '1', 'u':
			if c.policy.ProtectTracked && c.prot.Protected(e.Path) {
				// HEAD's version stays: the tree is built on HEAD's.
				c.skip(e.Path, ReasonProtected)
				continue
			}
			if len(e.Sub) == 4 && e.Sub[0] == 'S' && (e.Sub[2] == 'M' || e.Sub[3] == 'U') {
				// Edits or new files inside a submodule: never captured,
				// but named. Its gitlink (the commit it has checked out)
				// is recorded as usual when that commit changed.
				c.skip(e.Path, ReasonSubmodule)
				if e.Sub[1] != 'C' && e.X == '.' {
					continue
				}
			}
			if e.Y == 'D' {
				// git status does not list untracked files in a folder
				// that took the place of a tracked file: look for one.
				if st, err := os.Lstat(filepath.Join(c.repo.WorkTree, filepath.FromSlash(e.Path))); err == nil && st.IsDir() && c.classify(e.Path+"/") {
					p.dirs = append(p.dirs, e.Path+"/")
				}
			}
			switch {
			case e.Kind == 'u':
				p.hash = append(p.hash, e.Path)
			case e.Y == 'D':
				// Gone from the work tree (possibly behind a symlink that
				// replaced a folder, which update-index refuses to look at).
				p.edits = append(p.edits, git.TreeEdit{Path: e.Path})
			case e.Y != '.':
				p.hash = append(p.hash, e.Path)
				if !git.AbsentMode(e.ModeI) {
					p.seeds = append(p.seeds, git.IndexEntry{Mode: e.ModeI, Blob: e.HashI, Path: e.Path})
				}
			default:
				// Staged only: the work tree holds what the index holds.
				p.edits = append(p.edits, git.TreeEdit{Path: e.Path, Mode: e.ModeI, Object: e.HashI})
			}
		case '?':
			if strings.HasSuffix(e.Path, "/") && c.classify(e.Path) {
				p.dirs = append(p.dirs, e.Path)
				continue
			}
			c.untracked(e.Path)
		}
	}
	return p
}

// listUntracked collects the untracked files under dirs, stopping (with a
// *TooManyUntrackedError naming the top folders) past opts.MaxUntracked.
func (c *collector) listUntracked(ctx context.Context, dirs []string) error {
	limited := c.policy.LimitUntracked && c.opts.MaxUntracked > 0
	cutIn := "" // the top folder where the untracked listing stopped, if it did
	if len(dirs) > 0 {
		limit := -1 // no limit
		if limited {
			limit = max(c.opts.MaxUntracked-len(c.files), 0)
		}
		paths, err := c.repo.UntrackedUnder(ctx, dirs, limit, func(p string) bool {
			return !strings.HasSuffix(p, "/") && c.quickKeep(p)
		})
		if err != nil && !errors.Is(err, git.ErrTooMany) {
			return err
		}
		if errors.Is(err, git.ErrTooMany) && len(paths) > 0 {
			// The listing (in path order) stopped inside this folder.
			cutIn = topFolder(paths[len(paths)-1])
		}
		for _, p := range paths {
			c.untracked(p)
		}
	}
	return c.checkLimit(cutIn)
}

// checkLimit refuses, under a policy that limits untracked files, more of
// them than opts.MaxUntracked, naming the top folders; cutIn is the top
// folder where the listing stopped counting, if it did.
func (c *collector) checkLimit(cutIn string) error {
	if !c.policy.LimitUntracked || c.opts.MaxUntracked <= 0 || len(c.files) <= c.opts.MaxUntracked {
		return nil
	}
	folders := topFolders(c.files)
	for i := range folders {
		folders[i].AtLeast = folders[i].Folder == cutIn
	}
	return &TooManyUntrackedError{Limit: c.opts.MaxUntracked, Folders: folders}
}

// writeTree is HEAD's tree (empty when unborn) with the plan's edits and
// its paths hashed from the work tree (a path with no file removed), and
// the tree it started from.
func writeTree(ctx context.Context, repo *git.Repo, head git.Head, p capturePlan, entries []git.StatusEntry) (tree, baseTree string, err error) {
	base := ""
	if !head.Unborn() {
		base = head.Commit + "^{tree}"
	}
	// The tree editor's processes start while the paths are hashed.
	ed, err := repo.StartTreeEdit(ctx, base)
	if err != nil {
		return "", "", err
	}
	defer ed.Close()
	edits := p.edits
	touched := make([]string, 0, len(edits)+len(p.hash))
	for _, e := range edits {
		touched = append(touched, e.Path)
	}
	ed.Preload(append(touched, p.hash...))
	attrsChanged := false
	for _, e := range entries {
		attrsChanged = attrsChanged || path.Base(strings.TrimSuffix(e.Path, "/")) == ".gitattributes"
	}
	hashed, err := repo.HashWorkTreePaths(ctx, p.seeds, p.hash, attrsChanged)
	if err != nil {
		return "", "", err
	}
	found := make(map[string]bool, len(hashed))
	for _, h := range hashed {
		found[h.Path] = true
		edits = append(edits, git.TreeEdit{Path: h.Path, Mode: h.Mode, Object: h.Blob})
	}
	for _, q := range p.hash {
		if !found[q] {
			edits = append(edits, git.TreeEdit{Path: q}) // no file: removed
		}
	}
	return ed.Apply(edits)
}

// collector sorts untracked paths into captured files and skipped paths,
// under a policy: the one place that decides what a capture leaves out.
type collector struct {
	repo    *git.Repo
	policy  Policy
	opts    Options
	prot    Protection
	files   []string
	skipped map[string]Skipped
}

func newCollector(repo *git.Repo, policy Policy, opts Options) *collector {
	return &collector{repo: repo, policy: policy, opts: opts, prot: opts.Protection(), skipped: map[string]Skipped{}}
}

func (c *collector) skip(path, reason string) {
	if _, ok := c.skipped[path]; !ok {
		c.skipped[path] = Skipped{Path: path, Reason: reason}
	}
}

// classify decides an untracked path by name alone: false when it is
// skipped (and recorded as such).
func (c *collector) classify(path string) bool {
	if c.prot.Protected(path) {
		c.skip(path, ReasonProtected)
		return false
	}
	if !c.policy.SkipDependencyDirs {
		return true
	}
	if dep, ok := c.opts.dependencyDir(path); ok {
		c.skip(dep, ReasonDependency)
		return false
	}
	return true
}

// unpopulatedSubmodules names the submodules that are not checked out (a
// task worktree's, typically) but hold files: git status does not look
// inside them, and what was written there is not captured.
func (c *collector) unpopulatedSubmodules(ctx context.Context) error {
	subs, err := c.repo.SubmodulePaths(ctx)
	if err != nil {
		return err
	}
	for _, p := range subs {
		dir := filepath.Join(c.repo.WorkTree, filepath.FromSlash(p))
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			continue // checked out: git status reported it
		}
		if st, err := os.Lstat(dir); err != nil || !st.IsDir() {
			continue
		}
		if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
			c.skip(p, ReasonSubmodule)
		}
	}
	return nil
}

// quickKeep is classify without recording, for counting while listing.
func (c *collector) quickKeep(path string) bool {
	if c.prot.Protected(path) {
		return false
	}
	if !c.policy.SkipDependencyDirs {
		return true
	}
	_, dep := c.opts.dependencyDir(path)
	return !dep
}

// untracked takes one untracked path reported by git: a file, or a folder
// holding a nested repository ("dir/").
func (c *collector) untracked(path string) {
	if c.policy.Excluded(path) || !c.classify(path) {
		return
	}
	if strings.HasSuffix(path, "/") {
		if c.policy.TakeNestedRepos {
			c.files = append(c.files, path)
		} else {
			c.skip(path, ReasonNestedRepo)
		}
		return
	}
	st, err := os.Lstat(filepath.Join(c.repo.WorkTree, filepath.FromSlash(path)))
	if errors.Is(err, fs.ErrNotExist) {
		return // gone since git listed it
	}
	if err == nil && st.Mode().IsRegular() && st.Size() > c.opts.MaxFileSize {
		if _, ok := c.skipped[path]; !ok {
			c.skipped[path] = Skipped{Path: path, Reason: ReasonTooLarge, Size: st.Size()}
		}
		return
	}
	c.files = append(c.files, path)
}

func (c *collector) sortedSkipped() []Skipped {
	out := make([]Skipped, 0, len(c.skipped))
	for _, s := range c.skipped {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// topFolder is the top-level folder of path ("gen/"), "." for a file at
// the top.
func topFolder(path string) string {
	dir, _, ok := strings.Cut(path, "/")
	if !ok {
		return "."
	}
	return dir + "/"
}

// topFolders counts files per top-level folder ("." for files at the top),
// largest first, at most five.
func topFolders(files []string) []FolderCount {
	counts := map[string]int{}
	for _, f := range files {
		counts[topFolder(f)]++
	}
	var out []FolderCount
	for d, n := range counts {
		out = append(out, FolderCount{Folder: d, Files: n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Files != out[j].Files {
			return out[i].Files > out[j].Files
		}
		return out[i].Folder < out[j].Folder
	})
	if len(out) > 5 {
		out = out[:5]
	}
	return out
}
