// Package patchfiles is the engine apply, undo, recover, save and the
// merges of apply --merge share: looking at the work-tree files of a
// task's patch (as git would hash them), judging them against an expected
// state, keeping the bytes on disk that undo must bring back, and moving
// the files from one recorded state to another durably, never touching a
// file outside the patch or one that changed since it was judged.
package patchfiles

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/nudge/record"
	"github.com/nudgethis/git-nudge/internal/worktree"
)

// FileOps looks at and changes the work-tree files of a task's patch.
type FileOps struct {
	ws       *nudge.Workspace // where stage folders go
	repo     *git.Repo
	Tree     *worktree.Tree
	ctx      context.Context // the command's, for execBitCounts
	fileMode *bool           // core.fileMode once read (execBitCounts)
	// hasher hashes the files as git would, one git process kept for
	// every look of the command.
	hasher *git.Hasher
	// blobs streams blobs through git's filters (what checkout writes),
	// one git process kept for every stream of the command.
	blobs *git.BlobStreamer
	// plain records, per path, whether git converts nothing for it
	// (git.PlainFiles), worked out once per command like the hasher's
	// reading of the attributes: then files are hashed, and blobs read,
	// in this process, and no git process is started for them.
	plain map[string]bool
	// reader reads blobs in this process (plain paths only).
	reader *git.BlobReader
}

// PlainFor reports whether git converts nothing for any of paths (see
// git.PlainFiles), asking only about paths not seen before.
func (o *FileOps) PlainFor(paths []string) bool {
	if o.plain == nil {
		o.plain = map[string]bool{}
	}
	var fresh []string
	for _, p := range paths {
		if _, ok := o.plain[p]; !ok {
			fresh = append(fresh, p)
		}
	}
	if len(fresh) > 0 {
		v := o.repo.PlainFiles(fresh)
		for _, p := range fresh {
			o.plain[p] = v
		}
	}
	for _, p := range paths {
		if !o.plain[p] {
			return false
		}
	}
	return true
}

// Close releases the work tree and ends the hashing process.
func (o *FileOps) Close() {
	o.Tree.Close()
	_ = o.hasher.Close()
	_ = o.blobs.Close()
}

// New opens the work tree of w for a command's looks and changes; Close
// releases it.
func New(ctx context.Context, w *nudge.Workspace) (*FileOps, error) {
	tree, err := worktree.Open(w.Repo.WorkTree)
	if err != nil {
		return nil, err
	}
	return &FileOps{ws: w, repo: w.Repo, Tree: tree, ctx: ctx, hasher: w.Repo.NewHasher(), blobs: w.Repo.NewBlobStreamer(true)}, nil
}

// execBitCounts is core.fileMode: whether a file's executable bit counts.
// It is read (one git process) the first time a bit differs from the
// expected mode, which most commands never see; a config git cannot read
// makes the bit count, as git's default does (a refusal, never a file
// overwritten).
func (o *FileOps) execBitCounts() bool {
	if o.fileMode == nil {
		fm, err := o.repo.ConfigBool(o.ctx, "core.filemode", true)
		if err != nil {
			fm = true
		}
		o.fileMode = &fm
	}
	return *o.fileMode
}

// fileStates is what the look saw of each step's path, where it says for
// certain: a path judged absent, or a regular file whose raw bytes' id
// (the bytes on disk: git converts nothing for these paths) is one of
// the ids in the step's state want (its blob or kept raw bytes).
func (o *FileOps) fileStates(steps []Step, cur []Seen, want func(Step) nudge.PathState) map[string]*nudge.FileState {
	states := map[string]*nudge.FileState{}
	if len(cur) != len(steps) {
		return states
	}
	var paths []string
	for _, s := range steps {
		paths = append(paths, s.Path)
	}
	plain := o.PlainFor(paths)
	for i, s := range steps {
		e, ps := cur[i].Entry, want(s)
		switch {
		case e.Kind == worktree.Absent && !nudge.Present(ps):
			states[s.Path] = nil
		case e.Kind == worktree.File && nudge.Present(ps) && plain &&
			(cur[i].Blob == *ps.Blob || ps.RawBlob != nil && cur[i].Blob == *ps.RawBlob):
			mode := nudge.ModeFile
			if e.Exec {
				mode = nudge.ModeExec
			}
			states[s.Path] = &nudge.FileState{Mode: mode, Blob: cur[i].Blob}
		}
	}
	return states
}

// Seen is one path as found in the work tree.
type Seen struct {
	Entry worktree.Entry
	Blob  string // regular files: the blob id git would give the content
}

// Look reads the state of every path of want, hashing the regular files as
// git add would (through the command's one kept hash-object process). A
// file whose hash differs from the expected blob gets a second opinion
// with the expected entry in a
// private index, so that git's "committed CRLF stays CRLF" rule of
// core.autocrlf is honoured exactly.
func (o *FileOps) Look(ctx context.Context, want []nudge.PathState) ([]Seen, error) {
	out := make([]Seen, len(want))
	var idx []int
	var paths []string
	for i, ps := range want {
		e, err := o.Tree.Lstat(ps.Path)
		if err != nil {
			return nil, err
		}
		out[i].Entry = e
		if e.Kind == worktree.File {
			idx = append(idx, i)
			paths = append(paths, ps.Path)
		}
	}
	if o.PlainFor(paths) {
		// git would store the bytes as they are: their id is git's.
		ids, err := o.rawIDs(paths)
		if err != nil {
			return nil, err
		}
		for j, i := range idx {
			out[i].Blob = ids[j]
		}
		return out, nil
	}
	ids, err := o.hasher.HashFiles(ctx, paths)
	if err != nil {
		return nil, err
	}
	var second []git.IndexEntry
	var secondIdx []int
	for j, i := range idx {
		out[i].Blob = ids[j]
		if w := want[i]; nudge.Present(w) && *w.Blob != ids[j] && nudge.IsRegularMode(w.Mode) {
			second = append(second, git.IndexEntry{Mode: *w.Mode, Blob: *w.Blob, Path: w.Path})
			secondIdx = append(secondIdx, i)
		}
	}
	if len(second) > 0 {
		ids2, err := o.repo.HashIndexed(ctx, second)
		if err != nil {
			return nil, err
		}
		for j, i := range secondIdx {
			out[i].Blob = ids2[j]
		}
	}
	return out, nil
}

// Verdict is how a path compares with what was expected of it.
type Verdict int

const (
	AsExpected Verdict = iota // the path holds what was expected of it
	Edited                    // content differs
	vMode                     // only the executable bit differs
	vGone                     // a file was expected, nothing is there
	vCreated                  // nothing was expected, a file is there
	vKind                     // a symlink, folder or special file is there
)

func (o *FileOps) Judge(s Seen, want nudge.PathState) Verdict {
	e := s.Entry
	if !nudge.Present(want) {
		switch e.Kind {
		case worktree.Absent, worktree.Dir:
			// A folder is no file at that path, as git sees it; when a
			// file must be written there, writable decides.
			return AsExpected
		case worktree.File:
			return vCreated
		default:
			return vKind
		}
	}
	switch e.Kind {
	case worktree.Absent:
		return vGone
	case worktree.File:
		if s.Blob != *want.Blob {
			return Edited
		}
		if want.Mode != nil && e.Exec != (*want.Mode == nudge.ModeExec) && o.execBitCounts() {
			return vMode
		}
		return AsExpected
	default:
		return vKind
	}
}

// Describe says in a sentence how path differs; since is "since the
// snapshot" or "since t3 was applied".
func Describe(v Verdict, path string, s Seen, since string) string {
	path = nudge.QuotePath(path)
	switch v {
	case Edited:
		return fmt.Sprintf("%s was edited %s", path, since)
	case vMode:
		return fmt.Sprintf("%s's executable bit changed %s", path, since)
	case vGone:
		if e := s.Entry; e.Blocker != "" {
			return fmt.Sprintf("%s cannot be reached: %s is now a %s", path, nudge.QuotePath(e.Blocker), e.BlockerKind)
		}
		return fmt.Sprintf("%s was deleted %s", path, since)
	case vCreated:
		if since == "since the snapshot" {
			// The snapshot may also have left it out (ignored, over
			// 16 MiB): then a new snapshot would not help.
			return fmt.Sprintf("%s exists in the work tree but not in the snapshot (created since, or left out of it as ignored or too large); apply never overwrites it: move it aside if the task's version should win", path)
		}
		return fmt.Sprintf("%s was created %s", path, since)
	case vKind:
		return fmt.Sprintf("%s is now a %s (it changed %s)", path, s.Entry.Kind, since)
	}
	return path + " is unchanged"
}

// Step moves one path from one state to another.
type Step struct {
	Path     string
	From, To nudge.PathState
	// raw (apply) is the id of From's bytes on disk, unfiltered, when
	// the plan looked at them (see KeepRawBytes); the re-check before
	// writing makes sure they are still those bytes.
	raw string
	// Merged (apply --merge): To is the result's change merged into the
	// user's edits, From what the work tree holds; conflicted: with
	// conflict markers.
	Merged, Conflicted bool
}

// Status is what a step does to the work tree: A (creates the file), D
// (removes it) or M (changes its content or mode).
func (s Step) Status() string {
	switch {
	case !nudge.Present(s.From):
		return "A"
	case !nudge.Present(s.To):
		return "D"
	}
	return "M"
}

// writable returns a reason why the steps' new files cannot be written
// where they go (a leading folder that is a symlink or a file the patch
// does not remove; a folder holding files the patch does not remove), one
// per blocked path. cur holds the current state of each step's path.
func (o *FileOps) writable(steps []Step, cur []Seen, skip map[string]bool) ([]string, error) {
	removed := map[string]bool{}
	for _, s := range steps {
		if !nudge.Present(s.To) {
			removed[s.Path] = true
		}
	}
	var reasons []string
	for i, s := range steps {
		if !nudge.Present(s.To) || skip[s.Path] {
			continue
		}
		e := cur[i].Entry
		switch {
		case e.Blocker != "" && !(e.BlockerKind == worktree.File && removed[e.Blocker]):
			reasons = append(reasons, fmt.Sprintf("%s cannot be written: %s is a %s, not a folder", nudge.QuotePath(s.Path), nudge.QuotePath(e.Blocker), e.BlockerKind))
		case e.Kind == worktree.Dir && !nudge.Present(s.From):
			files, complete, err := o.Tree.ListFiles(s.Path, 10000)
			if err != nil {
				return nil, err
			}
			clear := complete
			for _, f := range files {
				if !removed[f] {
					clear = false
				}
			}
			if !clear {
				reasons = append(reasons, fmt.Sprintf("%s cannot be written: a folder is there that the patch does not empty (other files, or empty folders)", nudge.QuotePath(s.Path)))
			}
		}
	}
	return reasons, nil
}

// Stage writes the new content of every step that leaves a file into the
// folder files (in the command's stage folder, on the work tree's
// filesystem), exactly as git checkout would write it (filters, line
// endings, mode). Nothing in the work tree is touched.
func (o *FileOps) Stage(ctx context.Context, files string, steps []Step) error {
	var entries []git.IndexEntry
	for _, s := range steps {
		if nudge.Present(s.To) {
			entries = append(entries, git.IndexEntry{Mode: *s.To.Mode, Blob: *s.To.Blob, Path: s.Path})
		}
	}
	if err := o.repo.CheckoutTo(ctx, files, entries); err != nil {
		return fmt.Errorf("preparing the new file contents: %w", err)
	}
	return nil
}

// order puts steps in the order they run: removals that must clear the way
// for a new file (a file where a folder is needed, files in a folder that
// a file replaces) first, deepest first; then every write, .gitattributes
// files first so that later files are seen with their rules; then the
// other removals.
func order(steps []Step) []Step {
	writes := map[string]bool{}
	removes := map[string]bool{}
	for _, s := range steps {
		if nudge.Present(s.To) {
			writes[s.Path] = true
		} else {
			removes[s.Path] = true
		}
	}
	early := map[string]bool{}
	for p := range writes {
		for _, d := range LeadingDirs(p) {
			if removes[d] {
				early[d] = true
			}
		}
	}
	for p := range removes {
		for _, d := range LeadingDirs(p) {
			if writes[d] {
				early[p] = true
			}
		}
	}
	var first, mid, last []Step
	for _, s := range steps {
		switch {
		case early[s.Path]:
			first = append(first, s)
		case nudge.Present(s.To):
			mid = append(mid, s)
		default:
			last = append(last, s)
		}
	}
	sort.Slice(first, func(i, j int) bool { return first[i].Path > first[j].Path })
	attr := func(p string) bool { return p == ".gitattributes" || strings.HasSuffix(p, "/.gitattributes") }
	sort.SliceStable(mid, func(i, j int) bool {
		a, b := mid[i].Path, mid[j].Path
		if attr(a) != attr(b) {
			return attr(a)
		}
		return a < b
	})
	sort.Slice(last, func(i, j int) bool { return last[i].Path < last[j].Path })
	return append(append(first, mid...), last...)
}

// ChangedDirs lists the folders whose entries a transition changed, to be
// fsynced once each: the folder of every path written or removed, and the
// folder holding each folder made (created) or removed (pruned, and no
// longer there to flush itself). A
// leading folder whose own entries did not change holds nothing new to
// flush: its entry for the next folder down is as it was.
func ChangedDirs(steps []Step, created, pruned []string) []string {
	dirs := map[string]bool{}
	for _, s := range steps {
		dirs[parentDir(s.Path)] = true
	}
	for _, d := range append(append([]string{}, created...), pruned...) {
		dirs[parentDir(d)] = true
	}
	made := map[string]bool{}
	for _, d := range created {
		made[d] = true
	}
	for _, d := range pruned {
		if !made[d] {
			delete(dirs, d) // gone: nothing left to flush
		}
		// Pruned, then made again by a later write (a file d/x that
		// became a folder d/x/): it is there, with a new entry.
	}
	list := make([]string, 0, len(dirs))
	for d := range dirs {
		list = append(list, d)
	}
	sort.Strings(list)
	return list
}

// parentDir is the folder of p, "" at the top level.
func parentDir(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

func LeadingDirs(p string) []string {
	var out []string
	for i := 0; i < len(p); i++ {
		if p[i] == '/' {
			out = append(out, p[:i])
		}
	}
	return out
}

// Check compares every step's path with its From state and says, one
// sentence per path, what differs or what stands in the way of the new
// file. It also returns what it saw.
func (o *FileOps) Check(ctx context.Context, steps []Step, since string) ([]string, []Seen, error) {
	reasons, verdicts, cur, err := o.CheckEach(ctx, steps, since)
	if err != nil {
		return nil, nil, err
	}
	var out []string
	for i := range verdicts {
		if reasons[i] != "" {
			out = append(out, reasons[i])
		}
	}
	return append(out, reasons[len(verdicts):]...), cur, nil
}

// CheckEach is check with its findings per step: reasons[i] is step i's
// sentence ("" when it is as expected) and verdicts[i] its verdict; the
// reasons after len(steps) are the paths that cannot be written.
func (o *FileOps) CheckEach(ctx context.Context, steps []Step, since string) ([]string, []Verdict, []Seen, error) {
	from := make([]nudge.PathState, len(steps))
	for i, s := range steps {
		from[i] = s.From
	}
	cur, err := o.Look(ctx, from)
	if err != nil {
		return nil, nil, nil, err
	}
	reasons := make([]string, len(steps))
	verdicts := make([]Verdict, len(steps))
	reported := map[string]bool{}
	for i, s := range steps {
		if v := o.Judge(cur[i], s.From); v != AsExpected {
			verdicts[i] = v
			reasons[i] = Describe(v, s.Path, cur[i], since)
			reported[s.Path] = true
		}
	}
	blocked, err := o.writable(steps, cur, reported)
	if err != nil {
		return nil, nil, nil, err
	}
	return append(reasons, blocked...), verdicts, cur, nil
}

// ChangedError reports paths found not as expected by the re-check made
// after the record was written and before any file was touched.
type ChangedError struct{ Reasons []string }

func (e *ChangedError) Error() string { return strings.Join(e.Reasons, "; ") }

// UndoSteps turns a complete undo record (record.CompleteUndo) into steps
// (after -> before), or returns false when the record is missing or
// incomplete.
func UndoSteps(u *nudge.Undo) ([]Step, bool) {
	if !record.CompleteUndo(u) {
		return nil, false
	}
	steps := make([]Step, len(u.Before))
	for i, b := range u.Before {
		steps[i] = Step{Path: b.Path, From: u.After[i], To: b}
	}
	return steps, true
}
