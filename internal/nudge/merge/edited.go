package merge

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/nudge/patchfiles"
	"github.com/nudgethis/git-nudge/internal/worktree"
)

// Merging a task's change into files the user edited since its snapshot
// (apply --merge, docs/nudge.md "Some paths, and merging into your
// edits"), with git's own three-way file merge.

// mergeLabels name the three sides on conflict markers.
func mergeLabels(id string) []string {
	return []string{"workspace", "snapshot", id}
}

// Edited merges, three-way, each step whose file was edited since
// the snapshot (base: the snapshot's version, ours: the work tree's,
// theirs: the result's), turning it into a step from what the work tree
// holds to the merged content. reasons and verdicts are FileOps.CheckEach's;
// edited returns the sentences of the paths that still refuse (not a
// plain edit, or a file that cannot be merged) and the paths that cannot
// be written, conflicts one sentence per path whose merge conflicts,
// with the lines (none when keepConflicts: then the merge with diff3
// markers is written).
func Edited(ctx context.Context, w *nudge.Workspace, ops *patchfiles.FileOps, t *nudge.Task, steps []patchfiles.Step, reasons []string, verdicts []patchfiles.Verdict, cur []patchfiles.Seen, keepConflicts bool) (edited, conflicts []string, err error) {
	var idx []int
	var paths []string
	for i, s := range steps {
		if verdicts[i] == patchfiles.Edited && nudge.Present(s.From) && nudge.Present(s.To) && cur[i].Entry.Kind == worktree.File {
			idx = append(idx, i)
			paths = append(paths, s.Path)
		}
	}
	skip := map[int]bool{}
	if len(idx) > 0 {
		if err := mergeSteps(ctx, w, ops, t, steps, idx, paths, reasons, cur, keepConflicts, skip, &conflicts); err != nil {
			return nil, nil, err
		}
	}
	for i, r := range reasons {
		if r != "" && !skip[i] {
			edited = append(edited, r)
		}
	}
	return edited, conflicts, nil
}

// conflictLines says where the conflicts of a merge written with diff3
// markers are: "lines 3-9, 20-26".
func conflictLines(data []byte) string {
	var ranges []string
	start := 0
	for n, line := range bytes.SplitAfter(data, []byte("\n")) {
		switch {
		case bytes.HasPrefix(line, []byte("<<<<<<< ")) && start == 0:
			start = n + 1
		case bytes.HasPrefix(line, []byte(">>>>>>> ")) && start != 0:
			ranges = append(ranges, fmt.Sprintf("%d-%d", start, n+1))
			start = 0
		}
	}
	if len(ranges) == 1 {
		return "lines " + ranges[0]
	}
	return "lines " + strings.Join(ranges, ", ")
}

// hasConflictMarkers reports whether data holds a line of each of the
// three conflict markers git writes.
func hasConflictMarkers(data []byte) bool {
	var open, mid, end bool
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		switch {
		case bytes.HasPrefix(line, []byte("<<<<<<< ")):
			open = true
		case bytes.HasPrefix(line, []byte("=======")) && open:
			mid = true
		case bytes.HasPrefix(line, []byte(">>>>>>> ")) && mid:
			end = true
		}
	}
	return end
}

// ResolvedConflicts looks at the paths an apply --conflicts of t wrote
// with conflict markers: a sentence for each that still holds them, and
// the state (as git would store it) of each that no longer does.
func ResolvedConflicts(ctx context.Context, w *nudge.Workspace, t *nudge.Task) (map[string]nudge.PathState, []string, error) {
	if len(t.Conflicts) == 0 || t.Undo == nil {
		return nil, nil, nil
	}
	var reasons, done []string
	for _, p := range t.Conflicts {
		if worktree.ValidPath(p) != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join(w.Repo.WorkTree, filepath.FromSlash(p)))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // judged with the others: deleted since it was applied
			}
			return nil, nil, err
		}
		if hasConflictMarkers(data) {
			reasons = append(reasons, fmt.Sprintf("%s still holds conflict markers from git nudge apply --conflicts %s", nudge.QuotePath(p), t.ID))
			continue
		}
		done = append(done, p)
	}
	if len(reasons) > 0 || len(done) == 0 {
		return nil, reasons, nil
	}
	ids, err := w.Repo.WriteFilesFiltered(ctx, done)
	if err != nil {
		return nil, nil, err
	}
	out := map[string]nudge.PathState{}
	for i, p := range done {
		fi, err := os.Lstat(filepath.Join(w.Repo.WorkTree, filepath.FromSlash(p)))
		if err != nil {
			return nil, nil, err
		}
		mode := nudge.ModeFile
		if fi.Mode()&0o111 != 0 {
			mode = nudge.ModeExec
		}
		id := ids[i]
		out[p] = nudge.PathState{Path: p, Mode: &mode, Blob: &id}
	}
	return out, nil, nil
}

// mergeSteps is Edited's merge of steps idx (at paths): the work
// tree's versions are read (in this process where git converts nothing,
// else stored by git hash-object as git add would), the merges are done
// together (Repo.MergeFiles: one git process for the clean ones), and the
// new blobs are stored in one batch.
func mergeSteps(ctx context.Context, w *nudge.Workspace, ops *patchfiles.FileOps, t *nudge.Task, steps []patchfiles.Step, idx []int, paths, reasons []string, cur []patchfiles.Seen, keepConflicts bool, skip map[int]bool, conflicts *[]string) error {
	r := w.Repo
	reader := r.NewBlobReader()
	read := func(id string) ([]byte, error) {
		if d, ok := reader.Read(id); ok {
			return d, nil
		}
		return r.ReadBlob(ctx, id)
	}
	ours := make([]string, len(idx))
	oursData := make([][]byte, len(idx))
	plain := ops.PlainFor(paths)
	if plain {
		for j := range idx {
			var buf bytes.Buffer
			if err := ops.Tree.ReadFile(paths[j], func(int64) io.Writer { return &buf }); err != nil {
				return fmt.Errorf("reading %s: %w", nudge.QuotePath(paths[j]), err)
			}
			oursData[j], ours[j] = buf.Bytes(), r.BlobID(buf.Bytes())
		}
	} else {
		ids, err := r.WriteFilesFiltered(ctx, paths)
		if err != nil {
			return fmt.Errorf("reading the edited files: %w", err)
		}
		ours = ids
		for j, id := range ids {
			if oursData[j], err = read(id); err != nil {
				return err
			}
		}
	}
	stage, err := w.NewStage()
	if err != nil {
		return err
	}
	defer func() { _ = w.RemoveStage(filepath.Base(stage)) }()
	ins := make([]git.MergeInput, len(idx))
	for j, i := range idx {
		base, err := read(*steps[i].From.Blob)
		if err != nil {
			return err
		}
		theirs, err := read(*steps[i].To.Blob)
		if err != nil {
			return err
		}
		ins[j] = git.MergeInput{Ours: oursData[j], Base: base, Theirs: theirs, BaseID: *steps[i].From.Blob, TheirsID: *steps[i].To.Blob}
		if !plain {
			ins[j].OursID = ours[j] // stored by git above
		}
	}
	results, err := r.MergeFiles(ctx, stage, ins, mergeLabels(t.ID))
	if err != nil {
		return fmt.Errorf("merging the edited files: %w", err)
	}
	var made [][]byte
	var madeFor []int // step index; -1-j: the work tree's version of idx[j]
	for j, i := range idx {
		s, res := steps[i], results[j]
		switch {
		case res.Binary:
			reasons[i] = fmt.Sprintf("%s was edited since the snapshot and is binary: it cannot be merged", nudge.QuotePath(s.Path))
			continue
		case res.Conflicts > 0 && !keepConflicts:
			*conflicts = append(*conflicts, fmt.Sprintf("%s: your edits and the task's change overlap (%s of the merged file)", nudge.QuotePath(s.Path), conflictLines(res.Data)))
			reasons[i], skip[i] = "", true
			continue
		}
		mode := nudge.ModeFile
		if cur[i].Entry.Exec {
			mode = nudge.ModeExec
		}
		to := mode
		if *s.From.Mode != *s.To.Mode {
			to = *s.To.Mode // the task changed the mode
		}
		oursID := ours[j]
		steps[i].From = nudge.PathState{Path: s.Path, Mode: &mode, Blob: &oursID}
		steps[i].To = nudge.PathState{Path: s.Path, Mode: &to}
		steps[i].Merged, steps[i].Conflicted = true, res.Conflicts > 0
		reasons[i] = ""
		if plain {
			cur[i].Blob = oursID
			made = append(made, oursData[j])
			madeFor = append(madeFor, -1-j)
		}
		made = append(made, res.Data)
		madeFor = append(madeFor, i)
	}
	if len(made) == 0 {
		return nil
	}
	ids, err := r.WriteBlobsData(ctx, made)
	if err != nil {
		return err
	}
	for k, i := range madeFor {
		if i < 0 {
			if ids[k] != ours[-1-i] {
				return fmt.Errorf("git stored %s as %s, expected %s", nudge.QuotePath(paths[-1-i]), ids[k], ours[-1-i])
			}
			continue
		}
		id := ids[k]
		steps[i].To.Blob = &id
	}
	return nil
}
