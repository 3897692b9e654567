// Package merge holds the three-way merges of apply --merge, save and
// refresh: the merger that batches a command's content merges into one
// git process, the merge of a task's change into files edited since its
// snapshot, and the check of conflicts an apply --conflicts left.
package merge

import (
	"context"
	"strings"
	"sync"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/linemerge"
	"github.com/nudgethis/git-nudge/internal/nudge"
)

// Ent is one version of a path: mode and blob, both "" when absent.
type Ent struct{ Mode, Blob string }

func (e Ent) Present() bool { return e.Blob != "" }

func EntOf(ps nudge.PathState) Ent {
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

// PathState is e as the version of path p in a task's record.
func (e Ent) PathState(p string) nudge.PathState {
	if !e.Present() {
		return nudge.PathState{Path: p}
	}
	return nudge.PathState{Path: p, Mode: nudge.StrPtr(e.Mode), Blob: nudge.StrPtr(e.Blob)}
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
	ws     *nudge.Workspace
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

// New is a merger of files of repository r (w's, or a task's worktree
// repository) that notes the blobs it writes in made.
func New(ctx context.Context, w *nudge.Workspace, r *git.Repo, made map[string][]byte) *Merger {
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
	// A merge git would do without a conflict, and whose answer is known
	// without git, is not handed to the batch: no stage folder, no wait.
	res := git.MergeResult{}
	var err error
	if d, ok := linemerge.Apart(in.Ours, in.Base, in.Theirs); ok {
		res.Data = d
	} else if res, err = m.mergeContent(in); err != nil {
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

// ClashingLines are the line ranges of ours (the workspace's version) that
// changed where theirs changed too: each hunk base -> ours that overlaps
// or touches a hunk base -> theirs, as git merge-file sees a conflict.
func ClashingLines(ctx context.Context, r *git.Repo, base, ours, theirs string) ([]nudge.LineRange, error) {
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
	var out []nudge.LineRange
	for _, h := range mine {
		a0, a1 := span(h.OldStart, h.OldCount)
		for _, k := range task {
			b0, b1 := span(k.OldStart, k.OldCount)
			if a0 <= b1 && b0 <= a1 { // overlapping or adjacent
				if h.NewCount == 0 {
					out = append(out, nudge.LineRange{Start: h.NewStart + 1, End: h.NewStart})
				} else {
					out = append(out, nudge.LineRange{Start: h.NewStart, End: h.NewStart + h.NewCount - 1})
				}
				break
			}
		}
	}
	return out, nil
}
