package main

import (
	"fmt"
	"math/rand"
	"strings"
)

// Rows of save (with and without edits of the user's), apply --merge and the recording's cost.

// saveBySize holds the save rows by repository size, for saveRatio.
var saveBySize = map[int]row{}

// save: git nudge save of an applied 10-file task vs git commit of the
// same 10 files staged (for information; the target is saveRatio's).
func (b *bench) save(dir string, n int) error {
	task := func(seed int64) func(int) error {
		return func(i int) error {
			if err := b.edit(dir, n, 10, seed+int64(i), false); err != nil {
				return err
			}
			return b.must(dir, `set -e
git add -A && git commit -qm task && res=$(git rev-parse HEAD) && git reset -q --hard HEAD~1
id=$(git nudge snapshot --json | sed -n 's/.*"id": *"\(t[0-9]*\)".*/\1/p' | head -1)
git nudge capture "$id" --from "$res" >/dev/null && git nudge apply "$id" >/dev/null`)
		}
	}
	staged := func(seed int64) func(int) error {
		return func(i int) error {
			if err := b.edit(dir, n, 10, seed+int64(i), false); err != nil {
				return err
			}
			return b.must(dir, "git add -u")
		}
	}
	got, err := b.alternate(dir,
		step{prep: task(500), cmd: "git nudge save -m 'bench save' >/dev/null"},
		step{prep: staged(600), cmd: "git commit -q -m 'bench commit'"})
	if err != nil {
		return err
	}
	r := row{name: fmt.Sprintf("save of 10 files, %d files", n), ours: got[0], base: got[1], baseName: "git commit -q (10 files staged)", target: "(info)"}
	saveBySize[n] = r
	b.rows = append(b.rows, r)
	return nil
}

// saveEdits: a 10-file save where the user has edits of their own in every
// saved file (a staged line at the top and an unstaged one below it, taken
// into the snapshot; the task appends a line), which save keeps out of the
// commit with a three-way merge per file for the commit and one for the
// index, vs the same save of files without edits of the user's (target:
// within 1.3x). The user's edits are put back to HEAD after each
// round, untimed.
func (b *bench) saveEdits(dir string, n int) error {
	// mine: 0 no edits of the user's, 1 an unstaged line only (one merge
	// per file, for the commit), 2 a staged and an unstaged line (two:
	// the commit's and the index's).
	task := func(seed int64, mine int) func(int) error {
		return func(i int) error {
			rng := rand.New(rand.NewSource(seed + int64(i)))
			var files []string
			seen := map[int]bool{}
			for len(files) < 10 {
				k := rng.Intn(n)
				if !seen[k] {
					seen[k] = true
					files = append(files, filePath(k))
				}
			}
			list := strings.Join(files, " ")
			script := "set -e\ngit reset -q && git checkout -q -- . && git write-tree >/dev/null\n"
			switch mine {
			case 1:
				script += "for f in " + list + "; do sed -i '1i // mine, unstaged' $f; done\n"
			case 2:
				script += "for f in " + list + "; do sed -i '1i // mine, staged' $f; git add $f; sed -i '2i // mine, unstaged' $f; done\n"
			}
			script += `id=$(git nudge snapshot --json | sed -n 's/.*"id": *"\(t[0-9]*\)".*/\1/p' | head -1)
snap=$(git rev-parse "refs/nudgethis/snapshots/$id")
export GIT_INDEX_FILE="$(git rev-parse --git-dir)/bench-task-index"
git read-tree "$snap"
for f in ` + list + `; do
  blob=$( (git cat-file blob "$snap:$f"; echo "// task $id") | git hash-object -w --stdin)
  git update-index --cacheinfo "100644,$blob,$f"
done
res=$(git commit-tree "$(git write-tree)" -p "$snap" -m task)
rm -f "$GIT_INDEX_FILE"
unset GIT_INDEX_FILE
git nudge capture "$id" --from "$res" >/dev/null && git nudge apply "$id" >/dev/null`
			return b.must(dir, script)
		}
	}
	got, err := b.alternate(dir,
		step{prep: task(800, 2), cmd: "git nudge save -m 'bench save, edits kept' >/dev/null"},
		step{prep: task(700, 1), cmd: "git nudge save -m 'bench save, edits kept' >/dev/null"},
		step{prep: task(900, 0), cmd: "git nudge save -m 'bench save' >/dev/null"})
	if err != nil {
		return err
	}
	if err := b.must(dir, "git reset -q && git checkout -q -- ."); err != nil {
		return err
	}
	b.rows = append(b.rows,
		row{name: fmt.Sprintf("save of 10 files, a staged and an unstaged edit of yours in each, %d files", n), ours: got[0], base: got[2],
			baseName: "the same save, no edits of yours", target: "<= 1.3x"},
		row{name: fmt.Sprintf("save of 10 files, an unstaged edit of yours in each, %d files", n), ours: got[1], base: got[2],
			baseName: "the same save, no edits of yours", target: "<= 1.3x"})
	return nil
}

// applyMerge: apply --merge of a 50-file task where the user edited 10
// of the files since the snapshot (a line inserted at the top; the task
// appends one at the end, so each merges cleanly), vs the same 50-file
// apply with no file edited, no merge needed (target: within 1.5x). The
// work tree is put back to HEAD before each round, untimed.
func (b *bench) applyMerge(dir string, n int) error {
	task := func(seed int64, edited int) func(int) error {
		return func(i int) error {
			rng := rand.New(rand.NewSource(seed + int64(i)))
			var files []string
			seen := map[int]bool{}
			for len(files) < 50 {
				k := rng.Intn(n)
				if !seen[k] {
					seen[k] = true
					files = append(files, filePath(k))
				}
			}
			script := "set -e\ngit reset -q && git checkout -q -- . && git write-tree >/dev/null\n" +
				`id=$(git nudge snapshot --json | sed -n 's/.*"id": *"\(t[0-9]*\)".*/\1/p' | head -1)
snap=$(git rev-parse "refs/nudgethis/snapshots/$id")
export GIT_INDEX_FILE="$(git rev-parse --git-dir)/bench-task-index"
git read-tree "$snap"
for f in ` + strings.Join(files, " ") + `; do
  blob=$( (git cat-file blob "$snap:$f"; echo "// task $id") | git hash-object -w --stdin)
  git update-index --cacheinfo "100644,$blob,$f"
done
res=$(git commit-tree "$(git write-tree)" -p "$snap" -m task)
rm -f "$GIT_INDEX_FILE"
unset GIT_INDEX_FILE
git nudge capture "$id" --from "$res" >/dev/null
echo "$id" > "$(git rev-parse --git-dir)/bench-merge-id"
`
			if edited > 0 {
				script += "for f in " + strings.Join(files[:edited], " ") + "; do sed -i '1i // mine, since the snapshot' $f; done\n"
			}
			return b.must(dir, script)
		}
	}
	got, err := b.alternate(dir,
		step{prep: task(1100, 10), cmd: `git nudge apply --merge "$(cat "$(git rev-parse --git-dir)/bench-merge-id")" >/dev/null`},
		step{prep: task(1200, 0), cmd: `git nudge apply "$(cat "$(git rev-parse --git-dir)/bench-merge-id")" >/dev/null`})
	if err != nil {
		return err
	}
	if err := b.must(dir, "git reset -q && git checkout -q -- ."); err != nil {
		return err
	}
	b.rows = append(b.rows, row{name: fmt.Sprintf("apply --merge of 50 files, 10 edited since the snapshot, %d files", n), ours: got[0], base: got[1],
		baseName: "the same 50-file apply, no merge needed", target: "<= 1.5x"})
	return nil
}

// saveRatio: the same 10-file save in the largest repository vs the
// smallest (save follows the patch, not the repository).
func (b *bench) saveRatio(sizes []int) {
	if len(sizes) < 2 {
		return
	}
	small, large := saveBySize[sizes[0]], saveBySize[sizes[len(sizes)-1]]
	b.rows = append(b.rows, row{name: fmt.Sprintf("save of 10 files, %d vs %d files", sizes[len(sizes)-1], sizes[0]),
		ours: large.ours, base: small.ours, baseName: fmt.Sprintf("same in %d", sizes[0]), target: "<= 1.5x"})
}

// recordingCost: the operation log's cost (target: at most 10%): the same
// snapshot and checkpoint with recording and with it switched off
// (GIT_NUDGE_OPLOG=off, a switch for this measurement only), on equal
// amounts of change. Snapshots and checkpoints alternate separately: a
// checkpoint rewrites the user's index, and the first snapshot after that
// copies it into its stat cache and lets git status refresh the copy
// (statcache.go), a cost that has nothing to do with recording and that
// would otherwise fall on whichever snapshot came first in every round.
func (b *bench) recordingCost(dir string, n int) error {
	edits := func(seed int64) func(int) error {
		return func(i int) error { return b.edit(dir, n, 10, seed+int64(i), true) }
	}
	snap, err := b.alternate(dir,
		step{prep: edits(500), cmd: "git nudge snapshot >/dev/null"},
		step{prep: edits(600), cmd: "GIT_NUDGE_OPLOG=off git nudge snapshot >/dev/null"})
	if err != nil {
		return err
	}
	ckpt, err := b.alternate(dir,
		step{prep: edits(700), cmd: "git autodev checkpoint -m 'bench round' >/dev/null"},
		step{prep: edits(800), cmd: "GIT_NUDGE_OPLOG=off git autodev checkpoint -m 'bench round' >/dev/null"})
	if err != nil {
		return err
	}
	got := append(snap, ckpt...)
	b.rows = append(b.rows,
		row{name: fmt.Sprintf("recording cost: snapshot, %d files", n), ours: got[0], base: got[1], baseName: "same, GIT_NUDGE_OPLOG=off", target: "<= 1.1x"},
		row{name: fmt.Sprintf("recording cost: checkpoint, %d files", n), ours: got[2], base: got[3], baseName: "same, GIT_NUDGE_OPLOG=off", target: "<= 1.1x"})
	return nil
}
