package nudge

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/pathenc"
)

// A save commits exactly the reviewed change: for each saved
// path, HEAD's version with the change each task made to it merged in
// (three-way: base = the path as the task found it, ours = HEAD's, theirs
// = as the task left it), so that the user's own edits of the file stay
// out of the commit. The user's index entry of the path gets the same
// change merged into it, so a staged edit stays staged; a path whose index
// holds HEAD's version gets the commit's.
//
// The change a task made is its undo record's before -> after: for a plain
// apply that is the snapshot's version -> the result, exactly the task's
// patch; for a path that apply merged it is the change as written onto the
// work tree.

// SaveIndexEntry is one re-based index entry of a save, in saves.json: the
// entry the save sets (Mode, Blob) where it is not the commit's, and the
// entry the index held before (OldMode, OldBlob), so that an interrupted
// save is finished with it and a commit made meanwhile is recognised.
type SaveIndexEntry struct {
	Path    string  `json:"path"`
	Mode    *string `json:"mode"`
	Blob    *string `json:"blob"`
	OldMode *string `json:"old_mode"`
	OldBlob *string `json:"old_blob"`
}

// MarshalJSON writes the path as bytes survive JSON.
func (e SaveIndexEntry) MarshalJSON() ([]byte, error) {
	type plain SaveIndexEntry
	p, b := pathenc.Encode(e.Path)
	return pathenc.Marshal(struct {
		Path    string `json:"path"`
		PathB64 string `json:"path_b64,omitempty"`
		plain
	}{p, b, plain(e)})
}

// UnmarshalJSON reads the path back, from path_b64 when present.
func (e *SaveIndexEntry) UnmarshalJSON(data []byte) error {
	type plain SaveIndexEntry
	var v struct {
		Path    string  `json:"path"`
		PathB64 *string `json:"path_b64"`
		plain
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	p, err := pathenc.Decode(v.Path, v.PathB64)
	*e = SaveIndexEntry(v.plain)
	e.Path = p
	return err
}

// Ent is one version of a path: mode and blob, both "" when absent.
type Ent struct{ Mode, Blob string }

func (e Ent) Present() bool { return e.Blob != "" }

func EntOf(ps PathState) Ent {
	if ps.Blob == nil || ps.Mode == nil {
		return Ent{}
	}
	return Ent{Mode: *ps.Mode, Blob: *ps.Blob}
}

func EntOfIndex(e git.IndexEntry) Ent {
	if e.Blob == "" || git.AbsentMode(e.Mode) {
		return Ent{}
	}
	return Ent{Mode: e.Mode, Blob: e.Blob}
}

func (e Ent) pathState(p string) PathState {
	if !e.Present() {
		return PathState{Path: p}
	}
	return PathState{Path: p, Mode: StrPtr(e.Mode), Blob: StrPtr(e.Blob)}
}

// taskChange is one task's change to a path.
type taskChange struct{ before, after Ent }

// savePlan is what a save commits and stages, path by path (in the order
// of the save's paths).
type savePlan struct {
	Commit   []Ent
	Index    []Ent // the user's index entry after the save
	oldIndex []Ent // and before it
	// Whole: the paths committed as they are in the work tree
	// (--whole-files) because the task's change could not be separated
	// from the user's edits; kept: the paths whose commit is not the
	// work tree's version (the user's own edits stay out of it).
	Whole, Kept []string
	// made: merged contents not yet in the object store, by blob id.
	made map[string][]byte
}

// Rebased lists the saved paths whose index entry after the save is not
// the commit's, with the entry before, for the journal.
func (p *savePlan) Rebased(paths []string) []SaveIndexEntry {
	var out []SaveIndexEntry
	for i, path := range paths {
		if p.Index[i] != p.Commit[i] {
			n, o := p.Index[i].pathState(path), p.oldIndex[i].pathState(path)
			out = append(out, SaveIndexEntry{Path: path, Mode: n.Mode, Blob: n.Blob, OldMode: o.Mode, OldBlob: o.Blob})
		}
	}
	return out
}

// overlapNext is the advice when a task's change cannot be separated from
// the user's own edits.
const overlapNext = "Nothing was committed. git nudge save --whole-files commits such files as they are now in the work tree, your own edits in them included (and sets their index entries to the commit's); or save the other tasks by naming them (git nudge save ID...)."

// PlanSave works out the commit's and the index's entry of every saved
// path (tasks in the order they were applied; want is what the work tree
// holds, checked by the caller). Paths whose change overlaps the user's
// edits add a reason to refuse, unless wholeFiles: then they are
// committed and staged as they are in the work tree.
func (w *Workspace) PlanSave(ctx context.Context, head git.Head, tasks []*Task, paths []string, want map[string]PathState, wholeFiles bool, refuse *RefusedError) (*savePlan, error) {
	r := w.Repo
	changes := make(map[string][]taskChange, len(paths))
	for _, t := range tasks {
		before := make(map[string]PathState, len(t.Undo.Before))
		for _, b := range t.Undo.Before {
			before[b.Path] = b
		}
		for _, a := range t.Undo.After {
			b, ok := before[a.Path]
			if !ok {
				b = PathState{Path: a.Path} // a record without one: treated as added
			}
			changes[a.Path] = append(changes[a.Path], taskChange{before: EntOf(b), after: EntOf(a)})
		}
	}
	heads := make([]git.IndexEntry, len(paths))
	for i, p := range paths {
		heads[i] = git.IndexEntry{Path: p}
	}
	if !head.Unborn() {
		var err error
		if heads, err = r.TreeEntriesAt(ctx, head.Commit+"^{tree}", paths); err != nil {
			return nil, err
		}
	}
	idx, unmerged, err := r.IndexEntriesAt(ctx, paths)
	if err != nil {
		return nil, err
	}
	plan := &savePlan{Commit: make([]Ent, len(paths)), Index: make([]Ent, len(paths)), oldIndex: make([]Ent, len(paths)), made: map[string][]byte{}}
	m := NewMerger(ctx, w, r, plan.made)
	reasons := make([]string, len(paths))
	var wg sync.WaitGroup
	var firstErr error
	var errOnce sync.Once
	m.Join() // this loop, until every path's goroutine is counted
	for i, p := range paths {
		plan.oldIndex[i] = EntOfIndex(idx[i])
		wg.Add(1)
		m.Join()
		go func(i int, p string) {
			defer wg.Done()
			reason, err := m.plan(p, EntOfIndex(heads[i]), plan.oldIndex[i], unmerged[p], changes[p], &plan.Commit[i], &plan.Index[i])
			if err != nil {
				errOnce.Do(func() { firstErr = err })
				return
			}
			reasons[i] = reason
		}(i, p)
	}
	m.Leave()
	wg.Wait()
	m.Close()
	if firstErr != nil {
		return nil, firstErr
	}
	for i, p := range paths {
		now := EntOf(want[p])
		switch {
		case reasons[i] != "" && !wholeFiles:
			refuse.Reasons = append(refuse.Reasons, reasons[i])
			refuse.Next = overlapNext
		case reasons[i] != "":
			plan.Commit[i], plan.Index[i] = now, now
			plan.Whole = append(plan.Whole, p)
		case plan.Commit[i] != now:
			plan.Kept = append(plan.Kept, p)
		}
	}
	return plan, nil
}

// Write stores the merged contents the plan's entries name (one batch).
func (p *savePlan) Write(ctx context.Context, r *git.Repo) error {
	used := map[string]bool{}
	for i := range p.Commit {
		used[p.Commit[i].Blob], used[p.Index[i].Blob] = true, true
	}
	var ids []string
	var data [][]byte
	for id, d := range p.made {
		if used[id] {
			ids = append(ids, id)
			data = append(data, d)
		}
	}
	if len(data) == 0 {
		return nil
	}
	got, err := r.WriteBlobsData(ctx, data)
	if err != nil {
		return err
	}
	for i := range got {
		if got[i] != ids[i] {
			return fmt.Errorf("git stored a merged file as %s, expected %s", got[i], ids[i])
		}
	}
	return nil
}

// Merger merges the tasks' changes into HEAD's and the index's versions.
// The paths' merges run side by side (one goroutine for each path's
// commit chain and one for its index chain, each a participant); the
// content merges they ask for are gathered and done together by one
// Repo.MergeFiles call as soon as every participant still at work is
// waiting for one, so that a save's merges cost one git process rather
// than one each.
type Merger struct {
	r      *git.Repo
	ctx    context.Context
	dir    string // a stage folder for the merges' files, made when first needed
	dirErr error
	ws     *Workspace
	mu     sync.Mutex
	reader *git.BlobReader
	made   map[string][]byte
	// read: the stored blobs read so far (a path's commit and index
	// chains read the same base and task versions).
	read map[string][]byte

	bmu     sync.Mutex
	active  int         // participants at work
	pending []*mergeAsk // merges asked for, not yet started
	batches int         // MergeFiles calls started
}

// NewMerger is a merger of files of repository r (w's, or a task's
// worktree repository) that notes the blobs it writes in made.
func NewMerger(ctx context.Context, w *Workspace, r *git.Repo, made map[string][]byte) *Merger {
	return &Merger{r: r, ws: w, ctx: ctx, made: made, reader: r.NewBlobReader()}
}

// mergeAsk is one content merge a participant waits for.
type mergeAsk struct {
	in   git.MergeInput
	res  git.MergeResult
	err  error
	done chan struct{}
}

// Join counts a new participant, before it starts (and before the one
// starting it leaves, so that the merges already asked for wait for it).
func (m *Merger) Join() {
	m.bmu.Lock()
	m.active++
	m.bmu.Unlock()
}

// Leave says a participant asks for no more merges.
func (m *Merger) Leave() {
	m.bmu.Lock()
	m.active--
	m.flushLocked()
	m.bmu.Unlock()
}

// mergeContent merges in (a participant's call) and waits for the answer.
func (m *Merger) mergeContent(in git.MergeInput) (git.MergeResult, error) {
	a := &mergeAsk{in: in, done: make(chan struct{})}
	m.bmu.Lock()
	m.pending = append(m.pending, a)
	m.flushLocked()
	m.bmu.Unlock()
	<-a.done
	return a.res, a.err
}

// flushLocked starts the pending merges once every participant at work
// waits for one.
func (m *Merger) flushLocked() {
	if len(m.pending) == 0 || len(m.pending) < m.active {
		return
	}
	batch := m.pending
	m.pending = nil
	m.batches++
	go func() {
		ins := make([]git.MergeInput, len(batch))
		for i, a := range batch {
			ins[i] = a.in
		}
		dir, err := m.stageDir()
		var res []git.MergeResult
		if err == nil {
			res, err = m.r.MergeFiles(m.ctx, dir, ins, nil)
		}
		for i, a := range batch {
			if err != nil {
				a.err = err
			} else {
				a.res = res[i]
			}
			close(a.done)
		}
	}()
}

func (m *Merger) Close() {
	if m.dir != "" && m.ws != nil {
		_ = m.ws.RemoveStage(lastElem(m.dir))
	}
}

func lastElem(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

// Why a change could not be merged (merge3).
const (
	ClashLines  = "lines"  // both changed the same lines
	ClashDelete = "delete" // the task deletes a file changed besides
	ClashCreate = "create" // the task creates a file that is there, otherwise
	ClashAbsent = "absent" // the task changes a file that is not there
	ClashMode   = "mode"   // both changed the mode
	clashBinary = "binary" // binary content, not merged line by line
)

// commitClash says why path qp's change cannot be committed on its own.
func commitClash(qp, why string) string {
	var s string
	switch why {
	case ClashLines:
		s = "the task's change and your own uncommitted edits of the file touch the same lines"
	case ClashDelete:
		s = "the task deletes the file, and it has your own uncommitted edits"
	case ClashCreate:
		s = "the task creates the file, and HEAD now has another version of it"
	case ClashAbsent:
		s = "the file is not in HEAD (it is new in your work tree), and the task changes it"
	case ClashMode:
		s = "the task changes the file's mode, and so did you"
	default:
		s = "it is a binary file with your own uncommitted edits besides the task's change (binary files are not merged line by line)"
	}
	return fmt.Sprintf("%s: %s, so save cannot commit the task's change without yours", qp, s)
}

// indexClash says why path qp's staged version cannot take its change.
func indexClash(qp, why string) string {
	var s string
	switch why {
	case ClashLines:
		s = "they touch the same lines"
	case ClashDelete:
		s = "the task deletes the file"
	case ClashCreate:
		s = "the task creates the file"
	case ClashAbsent:
		s = "you staged its removal"
	case ClashMode:
		s = "both change its mode"
	default:
		s = "it is binary, and binary files are not merged line by line"
	}
	return fmt.Sprintf("%s: the version you staged cannot take the task's change (%s), so your staged change cannot stay staged apart from it", qp, s)
}

// plan sets the commit's and the index's entry of path p (HEAD holds
// head, the index idx) and returns the reason it cannot be saved apart
// from the user's edits ("" when it can).
//
// The caller has counted it as a participant (join); it leaves once its
// commit chain is merged, and its index chain runs as a participant of its
// own.
func (m *Merger) plan(p string, head, idx Ent, unmerged bool, chain []taskChange, commit, index *Ent) (string, error) {
	qp := QuotePath(p)
	left := false
	leave := func() {
		if !left {
			left = true
			m.Leave()
		}
	}
	defer leave()
	// The index's chain runs beside the commit's (they do not depend on
	// each other), so that their merge-file processes overlap.
	type indexAnswer struct {
		e   Ent
		why string
		err error
	}
	var indexc chan indexAnswer
	if !unmerged && idx != head {
		indexc = make(chan indexAnswer, 1)
		m.Join()
		go func() {
			defer m.Leave()
			ix := idx
			for _, ch := range chain {
				got, why, err := m.Merge3(ch.before, ix, ch.after)
				if err != nil || why != "" {
					indexc <- indexAnswer{err: err, why: why}
					return
				}
				ix = got
			}
			indexc <- indexAnswer{e: ix}
		}()
	}
	c := head
	var commitWhy string
	for _, ch := range chain {
		got, why, err := m.Merge3(ch.before, c, ch.after)
		if err != nil {
			return "", err
		}
		if why != "" {
			commitWhy = why
			break
		}
		c = got
	}
	leave() // no more merges here: waiting for the index's must not hold them up
	var ia indexAnswer
	if indexc != nil {
		ia = <-indexc
	}
	switch {
	case ia.err != nil:
		return "", ia.err
	case commitWhy != "":
		return commitClash(qp, commitWhy), nil
	}
	*commit = c
	if unmerged {
		return fmt.Sprintf("%s has unresolved conflicts in your index (git status shows them), so there is no staged version to keep", qp), nil
	}
	if idx == head {
		// Nothing of it staged: the index gets the commit's version.
		*index = c
		return "", nil
	}
	if ia.why != "" {
		return indexClash(qp, ia.why), nil
	}
	*index = ia.e
	return "", nil
}

// Merge3 merges the change base -> theirs into ours (the content, when
// all three differ, by git's three-way file merge: mergeContent); why says
// what could not be merged ("" when it could).
func (m *Merger) Merge3(base, ours, theirs Ent) (Ent, string, error) {
	switch {
	case ours == base:
		return theirs, "", nil
	case ours == theirs || base == theirs:
		return ours, "", nil
	}
	switch {
	case !theirs.Present():
		return Ent{}, ClashDelete, nil
	case !base.Present():
		return Ent{}, ClashCreate, nil
	case !ours.Present():
		return Ent{}, ClashAbsent, nil
	}
	mode := ours.Mode
	switch {
	case ours.Mode == base.Mode:
		mode = theirs.Mode
	case theirs.Mode == base.Mode || theirs.Mode == ours.Mode:
	default:
		return Ent{}, ClashMode, nil
	}
	switch {
	case ours.Blob == base.Blob:
		return Ent{Mode: mode, Blob: theirs.Blob}, "", nil
	case theirs.Blob == base.Blob || ours.Blob == theirs.Blob:
		return Ent{Mode: mode, Blob: ours.Blob}, "", nil
	}
	var in git.MergeInput
	for _, v := range []struct {
		id   string
		data *[]byte
		to   *string
	}{{ours.Blob, &in.Ours, &in.OursID}, {base.Blob, &in.Base, &in.BaseID}, {theirs.Blob, &in.Theirs, &in.TheirsID}} {
		d, stored, err := m.content(v.id)
		if err != nil {
			return Ent{}, "", err
		}
		*v.data = d
		if stored {
			*v.to = v.id
		}
	}
	res, err := m.mergeContent(in)
	if err != nil {
		return Ent{}, "", err
	}
	switch {
	case res.Binary:
		return Ent{}, clashBinary, nil
	case res.Conflicts > 0:
		return Ent{}, ClashLines, nil
	}
	id := m.r.BlobID(res.Data)
	m.mu.Lock()
	m.made[id] = res.Data
	m.mu.Unlock()
	return Ent{Mode: mode, Blob: id}, "", nil
}

// content is the bytes of blob id (one the merger made, or a stored one:
// stored says which).
func (m *Merger) content(id string) (data []byte, stored bool, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if d, ok := m.made[id]; ok {
		return d, false, nil
	}
	if d, ok := m.read[id]; ok {
		return d, true, nil
	}
	d, ok := m.reader.Read(id)
	if !ok {
		if d, err = m.r.ReadBlob(m.ctx, id); err != nil {
			return nil, true, err
		}
	}
	if m.read == nil {
		m.read = map[string][]byte{}
	}
	m.read[id] = d
	return d, true, nil
}

func (m *Merger) stageDir() (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.dir == "" && m.dirErr == nil {
		m.dir, m.dirErr = m.ws.NewStage()
	}
	return m.dir, m.dirErr
}

// SavedIndexEntries are the index entries save e sets for its paths: the
// commit's, except where the journal names a re-based one.
func (w *Workspace) SavedIndexEntries(ctx context.Context, e *SaveEntry) ([]git.IndexEntry, error) {
	entries, err := w.Repo.TreeEntries(ctx, e.Commit, e.Paths)
	if err != nil {
		return nil, err
	}
	if len(e.Index) == 0 {
		return entries, nil
	}
	byPath := make(map[string]SaveIndexEntry, len(e.Index))
	for _, x := range e.Index {
		byPath[x.Path] = x
	}
	for i := range entries {
		if x, ok := byPath[entries[i].Path]; ok {
			n := EntOf(PathState{Mode: x.Mode, Blob: x.Blob})
			entries[i].Mode, entries[i].Blob = n.Mode, n.Blob
		}
	}
	return entries, nil
}

// PreSaveIndex is the index entry of path p before save e, where the
// journal recorded it (a re-based path); ok is false otherwise.
func PreSaveIndex(e *SaveEntry, p string) (git.IndexEntry, bool) {
	for _, x := range e.Index {
		if x.Path == p {
			o := EntOf(PathState{Mode: x.OldMode, Blob: x.OldBlob})
			return git.IndexEntry{Path: p, Mode: o.Mode, Blob: o.Blob}, true
		}
	}
	return git.IndexEntry{}, false
}

// ClashingLines are the line ranges of ours (the workspace's version) that
// changed where theirs changed too: each hunk base -> ours that overlaps
// or touches a hunk base -> theirs, as git merge-file sees a conflict.
func ClashingLines(ctx context.Context, r *git.Repo, base, ours, theirs string) ([]LineRange, error) {
	mine, err := r.DiffBlobLines(ctx, base, ours)
	if err != nil {
		return nil, err
	}
	task, err := r.DiffBlobLines(ctx, base, theirs)
	if err != nil {
		return nil, err
	}
	// span is a hunk's old lines as [from, to) in base; an insertion
	// (count 0 after line s) is the empty span at s+1.
	span := func(start, count int) (int, int) {
		if count == 0 {
			return start + 1, start + 1
		}
		return start, start + count
	}
	var out []LineRange
	for _, h := range mine {
		a0, a1 := span(h.OldStart, h.OldCount)
		for _, k := range task {
			b0, b1 := span(k.OldStart, k.OldCount)
			if a0 <= b1 && b0 <= a1 { // overlapping or adjacent
				if h.NewCount == 0 {
					out = append(out, LineRange{Start: h.NewStart + 1, End: h.NewStart})
				} else {
					out = append(out, LineRange{Start: h.NewStart, End: h.NewStart + h.NewCount - 1})
				}
				break
			}
		}
	}
	return out, nil
}
