package git

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/nudgethis/git-nudge/internal/gitindex"
	"github.com/nudgethis/git-nudge/internal/gitstore"
	"github.com/nudgethis/git-nudge/internal/linemerge"
)

// MergeInput is one file's three versions for MergeFiles. An ID, when
// given, is the id of a blob this repository already stores with exactly
// that content (it is then not written again).
type MergeInput struct {
	Ours, Base, Theirs       []byte
	OursID, BaseID, TheirsID string
}

// mergeFileProcs is how many git merge-file processes MergeFiles runs at
// once.
const mergeFileProcs = 4

// MergeFiles merges each of in (the change Base -> Theirs into Ours) and
// returns what MergeFileLabeled gives for it, in order: the same bytes for
// a clean merge, the same conflict count and diff3 markers for a conflict,
// the same refusal of a binary file.
//
// A merge whose two changes are apart is done in this process
// (linemerge.Apart), which gives merge-file's bytes without asking git. The
// others are done together by one git process (mergeApplyClean)
// wherever they come out clean there, and by one git merge-file process
// each (a few at a time) for the others: overlapping edits, binary or
// empty versions. merge-file is the one that words a conflict. If the
// batch fails as a whole, every file is merged by merge-file. dir is a
// folder of the caller's; what is made in it is removed before MergeFiles
// returns.
func (r *Repo) MergeFiles(ctx context.Context, dir string, in []MergeInput, labels []string) ([]MergeResult, error) {
	out := make([]MergeResult, len(in))
	done := make([]bool, len(in))
	var rest []int // the merges left to git
	for i := range in {
		if d, ok := linemerge.Apart(in[i].Ours, in[i].Base, in[i].Theirs); ok {
			out[i], done[i] = MergeResult{Data: d}, true
		} else {
			rest = append(rest, i)
		}
	}
	if len(rest) > 1 {
		batch := make([]MergeInput, len(rest))
		for k, i := range rest {
			batch[k] = in[i]
		}
		clean, err := r.mergeApplyClean(ctx, dir, batch, len(labels) == 3)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err == nil {
			for k, d := range clean {
				if d != nil {
					out[rest[k]], done[rest[k]] = MergeResult{Data: d}, true
				}
			}
		}
	}
	errs := make([]error, len(in))
	sem := make(chan struct{}, mergeFileProcs)
	var wg sync.WaitGroup
	for i := range in {
		if done[i] {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer func() { <-sem; wg.Done() }()
			out[i], errs[i] = r.MergeFileLabeled(ctx, dir, in[i].Ours, in[i].Base, in[i].Theirs, labels)
		}(i)
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// mergeName is the made-up name of file i in mergeApplyClean's index:
// fixed width, so that the names sort as their numbers do.
func mergeName(i int) string {
	return fmt.Sprintf("%07d", i)
}

// batchable reports whether m can be merged by mergeApplyClean: text
// that a patch carries as it is (linemerge.Text).
func batchable(m MergeInput) bool {
	return linemerge.Text(m.Ours, m.Base, m.Theirs)
}

// mergeApplyClean merges in with one `git apply --cached --3way` process
// and returns the merged content of each file that merged cleanly, nil
// for the others.
//
// The process runs in a throwaway repository made in dir, whose object
// store reads this one's and whose index holds each file's "ours" version
// under a made-up name; the patch replaces each base version with its
// "theirs" version whole. apply --3way (git 2.32 and later) merges first:
// it merges base -> theirs into the index's version with git's line merge
// (ll_merge with no options: the Myers diff, as merge-file; not
// merge-tree, whose merges use the histogram diff and so may place or
// conflict differently), and leaves the clean ones at stage 0 and the
// conflicted ones at stages 1 to 3. None of the user's configuration
// (files, or given in the environment), attributes or merge drivers is
// read (no end-of-line renormalisation,
// no driver: the built-in line merge). Where that merge is clean,
// merge-file's is too, with the same bytes: merge-file only simplifies
// conflicts further. diff3 says the conflicts are wanted in the diff3
// style (MergeFileLabeled with labels), with which git's line merge
// refines conflicts less (a change both sides made with other extents
// stays a conflict): apply is then told the same style and merges as
// merge-file --diff3 does.
func (r *Repo) mergeApplyClean(ctx context.Context, dir string, in []MergeInput, diff3 bool) ([][]byte, error) {
	gd, err := scratchRepo(dir, r.ObjectFormat)
	if gd != "" {
		defer os.RemoveAll(gd)
	}
	if err != nil {
		return nil, err
	}
	objects := filepath.Join(gd, "objects")

	var blobIDs []string
	var blobs [][]byte
	stored := func(data []byte, id string) string {
		if id == "" {
			id = r.BlobID(data)
			blobIDs, blobs = append(blobIDs, id), append(blobs, data)
		}
		return id
	}
	hl := r.HashLen()
	var index, patch bytes.Buffer
	index.WriteString("DIRC\x00\x00\x00\x02")
	var n int
	for _, m := range in {
		if batchable(m) {
			n++
		}
	}
	index.Write(binary.BigEndian.AppendUint32(nil, uint32(n)))
	for i, m := range in {
		if !batchable(m) {
			continue
		}
		name := mergeName(i)
		ours, base, theirs := stored(m.Ours, m.OursID), stored(m.Base, m.BaseID), r.BlobID(m.Theirs)
		raw, err := hex.DecodeString(ours)
		if err != nil || len(raw) != hl {
			return nil, fmt.Errorf("merging: %q is not an object id", ours)
		}
		var e [40]byte
		binary.BigEndian.PutUint32(e[24:], 0o100644)
		binary.BigEndian.PutUint32(e[36:], uint32(len(m.Ours)))
		start := index.Len()
		index.Write(e[:])
		index.Write(raw)
		index.Write(binary.BigEndian.AppendUint16(nil, uint16(len(name))))
		index.WriteString(name)
		for pad := (index.Len() - start + 8) &^ 7; index.Len()-start < pad; {
			index.WriteByte(0)
		}
		fmt.Fprintf(&patch, "diff --git a/%s b/%s\nindex %s..%s 100644\n--- a/%s\n+++ b/%s\n@@ -1,%d +1,%d @@\n",
			name, name, base, theirs, name, name, linemerge.PatchCount(m.Base), linemerge.PatchCount(m.Theirs))
		linemerge.WritePatchLines(&patch, '-', m.Base)
		linemerge.WritePatchLines(&patch, '+', m.Theirs)
	}
	if n < 2 {
		return make([][]byte, len(in)), nil
	}
	h := r.IndexHash()
	h.Write(index.Bytes())
	index.Write(h.Sum(nil))
	ixPath := filepath.Join(gd, "index")
	if err := os.WriteFile(ixPath, index.Bytes(), 0o600); err != nil {
		return nil, err
	}
	if err := gitstore.WriteLooseObjects(objects, "blob", blobIDs, blobs); err != nil {
		return nil, err
	}

	none := filepath.Join(gd, "none")
	style := "merge"
	if diff3 {
		style = "diff3"
	}
	_, err = r.run(ctx, cmd{
		Args: []string{
			"-c", "core.attributesFile=" + none,
			"-c", "merge.conflictStyle=" + style,
			"-c", "apply.whitespace=nowarn",
			"apply", "--cached", "--3way", "-",
		},
		Stdin: &patch,
		Env: []string{
			"GIT_DIR=" + gd, "GIT_WORK_TREE=" + gd, "GIT_INDEX_FILE=" + ixPath,
			"GIT_OBJECT_DIRECTORY=" + objects,
			"GIT_ALTERNATE_OBJECT_DIRECTORIES=" + filepath.Join(r.CommonDir, "objects"),
			"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + none, "GIT_ATTR_NOSYSTEM=1",
			"GIT_CONFIG_PARAMETERS=", "GIT_CONFIG_COUNT=0",
			"HOME=" + gd, "XDG_CONFIG_HOME=" + gd,
		},
		Dir: gd,
	})
	if err != nil && ExitCode(err) != 1 {
		return nil, err
	}
	data, err := os.ReadFile(ixPath)
	if err != nil {
		return nil, err
	}
	merged := map[string]string{}
	conflicted := map[string]bool{}
	if err := gitindex.WalkEntries(data, hl, func(name []byte, stage int, mode uint32, oid []byte) {
		switch {
		case name == nil:
		case stage != 0:
			conflicted[string(name)] = true
		case mode == 0o100644:
			merged[string(name)] = hex.EncodeToString(oid)
		}
	}); err != nil {
		return nil, fmt.Errorf("reading the index git apply wrote: %w", err)
	}
	scratch := &gitstore.Store{GitDir: gd, CommonDir: gd, ObjectFormat: r.ObjectFormat}
	reader := r.NewBlobReader()
	clean := make([][]byte, len(in))
	for i, m := range in {
		name := mergeName(i)
		id, ok := merged[name]
		if !batchable(m) || conflicted[name] || !ok {
			continue
		}
		var d []byte
		switch id {
		case r.BlobID(m.Ours):
			d = m.Ours
		case r.BlobID(m.Theirs):
			d = m.Theirs
		default:
			typ, got, found, err := scratch.ReadLoose(id)
			if err != nil {
				return nil, err
			}
			if !found || typ != "blob" {
				if got, found = reader.Read(id); !found {
					continue // left to merge-file
				}
			}
			d = got
		}
		if r.BlobID(d) != id {
			return nil, fmt.Errorf("git apply's merge of %s does not hash to its id", name)
		}
		clean[i] = d
	}
	return clean, nil
}

// scratchRepo makes an empty repository of the object format in a new
// folder of dir (a git dir with no work tree of its own), for
// mergeApplyClean's git apply; the caller removes gd, which is set
// whenever the folder was made.
func scratchRepo(dir, objectFormat string) (gd string, err error) {
	gd, err = os.MkdirTemp(dir, "merge-")
	if err != nil {
		return "", err
	}
	for _, d := range []string{filepath.Join(gd, "objects"), filepath.Join(gd, "refs")} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return gd, err
		}
	}
	config := "[core]\n\trepositoryformatversion = 0\n"
	if objectFormat == "sha256" {
		config = "[core]\n\trepositoryformatversion = 1\n[extensions]\n\tobjectformat = sha256\n"
	}
	if err := os.WriteFile(filepath.Join(gd, "config"), []byte(config), 0o600); err != nil {
		return gd, err
	}
	return gd, os.WriteFile(filepath.Join(gd, "HEAD"), []byte("ref: refs/heads/merge\n"), 0o600)
}
