package patchfiles

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/refs"
)

// Bytes on disk, not blobs. A work-tree file can hold other
// bytes than git checkout would write for its blob while git sees no
// change: LF endings under `eol=crlf` or core.autocrlf, an unexpanded
// $Id$ under `ident`, a clean filter that drops something, another
// encoding of the same text under working-tree-encoding. Writing the blob
// back the checkout way would bring such a file back changed, so apply
// compares, for every file the patch replaces or removes, its
// bytes with what checkout would write; where they differ it keeps the
// bytes as a blob written without filters (undo.before[].raw_blob, pinned
// by refs/nudgethis/undo/<id> so that gc keeps it), and undo writes those
// bytes back unfiltered.

// KeepRawBytes fills steps[i].raw (the id of the bytes on disk of every
// path the snapshot had) and, where those bytes are not what checkout
// writes for the snapshot's blob, steps[i].From.RawBlob, writing those
// blobs and pinning them under refs/nudgethis/undo/<id>. It returns a
// sentence per path whose bytes changed while they were being read.
//
// cur is what the plan's check just saw of each step (nil if it looked at
// none): where git converts nothing, its ids are those of the bytes on
// disk, and the files are not read again.
func KeepRawBytes(ctx context.Context, w *nudge.Workspace, ops *FileOps, t *nudge.Task, steps []Step, cur []Seen, since string) ([]string, error) {
	// A task applied path by path keeps the bytes of the paths applied
	// before, too.
	prior := priorPins(t, steps)
	var idx []int
	var paths []string
	var entries []git.IndexEntry
	for i, s := range steps {
		if nudge.Present(s.From) {
			idx = append(idx, i)
			paths = append(paths, s.Path)
			entries = append(entries, git.IndexEntry{Mode: *s.From.Mode, Blob: *s.From.Blob, Path: s.Path})
		}
	}
	if len(idx) == 0 {
		return nil, pinRawBytes(ctx, w, t.ID, prior)
	}
	disk, err := ops.rawIDsSeen(paths, idx, cur, len(steps))
	if err != nil {
		return nil, err
	}
	checkout, err := ops.checkoutRawIDs(ctx, entries)
	if err != nil {
		return nil, err
	}
	var keep []int // indexes into idx
	var keepPaths []string
	for j, i := range idx {
		steps[i].raw = disk[j]
		if disk[j] != checkout[j] {
			keep = append(keep, j)
			keepPaths = append(keepPaths, paths[j])
		}
	}
	if len(keep) == 0 {
		return nil, pinRawBytes(ctx, w, t.ID, prior)
	}
	written, err := ops.repo.HashFilesRaw(ctx, keepPaths, true)
	if err != nil {
		return nil, err
	}
	var changed []string
	pins := prior
	for k, j := range keep {
		i := idx[j]
		if written[k] != disk[j] {
			changed = append(changed, Describe(Edited, steps[i].Path, Seen{}, since))
			continue
		}
		id := written[k]
		steps[i].From.RawBlob = &id
		pins = append(pins, git.TreeEdit{Path: steps[i].Path, Mode: nudge.ModeFile, Object: id})
	}
	if len(changed) > 0 {
		return changed, nil
	}
	return nil, pinRawBytes(ctx, w, t.ID, pins)
}

// priorPins are the kept bytes of the paths of a partly applied task
// that steps do not apply again.
func priorPins(t *nudge.Task, steps []Step) []git.TreeEdit {
	if t.State != nudge.StateApplied || t.Undo == nil {
		return nil
	}
	now := map[string]bool{}
	for _, s := range steps {
		now[s.Path] = true
	}
	var pins []git.TreeEdit
	for _, b := range t.Undo.Before {
		if b.RawBlob != nil && !now[b.Path] {
			pins = append(pins, git.TreeEdit{Path: b.Path, Mode: nudge.ModeFile, Object: *b.RawBlob})
		}
	}
	return pins
}

// checkoutRawIDs returns, for each entry, the id of the bytes git checkout
// would write for it into the work tree (filters, eol, ident, encoding):
// each blob is streamed through git's filters for its path and hashed
// here. Entries holding a .gitattributes, whose rules would govern the
// others in a checkout, are checked out into a temp folder by git instead.
func (o *FileOps) checkoutRawIDs(ctx context.Context, entries []git.IndexEntry) ([]string, error) {
	paths := make([]string, len(entries))
	for i, e := range entries {
		paths[i] = e.Path
	}
	if o.PlainFor(paths) {
		// Checkout writes each blob's bytes as they are.
		ids := make([]string, len(entries))
		for i, e := range entries {
			ids[i] = e.Blob
		}
		return ids, nil
	}
	reqs := make([]git.BlobRequest, len(entries))
	for i, e := range entries {
		if e.Path == ".gitattributes" || strings.HasSuffix(e.Path, "/.gitattributes") {
			return o.checkoutRawIDsByCheckout(ctx, entries)
		}
		reqs[i] = git.BlobRequest{Blob: e.Blob, Path: e.Path}
	}
	ids := make([]string, len(entries))
	var buf bytes.Buffer
	err := o.blobs.Stream(ctx, reqs,
		func(int) (io.Writer, error) { buf.Reset(); return &buf, nil },
		func(i int) error { ids[i] = o.repo.BlobID(buf.Bytes()); return nil })
	if err != nil {
		return nil, fmt.Errorf("checking how git writes the snapshot's files: %w", err)
	}
	return ids, nil
}

func (o *FileOps) checkoutRawIDsByCheckout(ctx context.Context, entries []git.IndexEntry) ([]string, error) {
	dir, err := os.MkdirTemp("", "git-nudge-raw-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	files := filepath.Join(dir, "files")
	if err := o.repo.CheckoutTo(ctx, files, entries); err != nil {
		return nil, fmt.Errorf("checking how git writes the snapshot's files: %w", err)
	}
	abs := make([]string, len(entries))
	for i, e := range entries {
		abs[i] = filepath.Join(files, filepath.FromSlash(e.Path))
	}
	return o.repo.HashFilesRaw(ctx, abs, false)
}

// pinRawBytes points refs/nudgethis/undo/<id> at a commit whose tree holds
// the kept blobs at their paths (removing the ref when there are none),
// so that gc never deletes bytes an undo needs.
func pinRawBytes(ctx context.Context, w *nudge.Workspace, id string, pins []git.TreeEdit) error {
	r := w.Repo
	ref := refs.UndoBytes + id
	old, ok, err := r.ReadRefFast(ctx, ref)
	if err != nil {
		return err
	}
	if len(pins) == 0 {
		if ok {
			return r.DeleteRef(ctx, ref, old)
		}
		return nil
	}
	tree, _, err := r.EditTree(ctx, "", pins)
	if err != nil {
		return fmt.Errorf("keeping the bytes undo needs: %w", err)
	}
	commit, err := r.CommitTree(ctx, git.CommitRequest{
		Tree: tree, Message: "nudge undo bytes " + id + "\n\nThe files' bytes as they were on disk before git nudge apply " + id + ", for its undo.\n",
		Author: nudge.Identity, Committer: nudge.Identity,
	})
	if err != nil {
		return err
	}
	if !ok {
		old = r.ZeroID()
	}
	return r.SetRef(ctx, git.SetRefRequest{Name: ref, New: commit, Old: old})
}

// rawChanged is the re-check of KeepRawBytes' reading right before any
// file is written: one sentence per path whose bytes on disk are no longer
// those the plan read (a change git's hashing does not see, such as line
// endings, would otherwise make undo bring back the older bytes).
//
// cur is what the re-check just saw of each step: where git converts
// nothing (PlainFor), the ids it hashed are those of the bytes on disk,
// and the files are not read a second time.
func (o *FileOps) rawChanged(ctx context.Context, steps []Step, cur []Seen, since string) ([]string, error) {
	var idx []int
	var paths []string
	for i, s := range steps {
		if s.raw != "" {
			idx = append(idx, i)
			paths = append(paths, s.Path)
		}
	}
	ids, err := o.rawIDsSeen(paths, idx, cur, len(steps))
	if err != nil {
		return nil, err
	}
	var reasons []string
	for j, i := range idx {
		if ids[j] != steps[i].raw {
			reasons = append(reasons, Describe(Edited, steps[i].Path, Seen{}, since))
		}
	}
	return reasons, nil
}

// rawWrong returns the paths, among steps that bring back kept bytes
// (To.RawBlob), whose bytes on disk are not those bytes.
func (o *FileOps) rawWrong(ctx context.Context, steps []Step) ([]string, error) {
	var idx []int
	var paths []string
	for i, s := range steps {
		if nudge.Present(s.To) && s.To.RawBlob != nil {
			idx = append(idx, i)
			paths = append(paths, s.Path)
		}
	}
	ids, err := o.rawIDs(paths)
	if err != nil {
		return nil, err
	}
	var wrong []string
	for j, i := range idx {
		if ids[j] != *steps[i].To.RawBlob {
			wrong = append(wrong, nudge.QuotePath(steps[i].Path))
		}
	}
	return wrong, nil
}

// StageRaw replaces, in the stage folder, the content of every step that
// brings back kept bytes (To.RawBlob) with those bytes, unfiltered.
func (o *FileOps) StageRaw(ctx context.Context, staged string, steps []Step) error {
	var raw []git.IndexEntry
	for _, s := range steps {
		if nudge.Present(s.To) && s.To.RawBlob != nil {
			raw = append(raw, git.IndexEntry{Mode: *s.To.Mode, Blob: *s.To.RawBlob, Path: s.Path})
		}
	}
	if err := o.repo.CheckoutRaw(ctx, staged, raw); err != nil {
		return fmt.Errorf("preparing the kept file contents: %w", err)
	}
	return nil
}
