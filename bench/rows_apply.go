package main

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// Rows of the snapshot, apply and undo: their costs at each size and the durability they promise.

// snapshot: git nudge snapshot vs git status --porcelain and git stash create.
func (b *bench) snapshot(dir string, n int) error {
	if err := b.edit(dir, n, 10, 1, true); err != nil {
		return err
	}
	got, err := b.alternate(dir,
		step{cmd: "git --no-optional-locks status --porcelain >/dev/null"},
		step{cmd: "git stash create >/dev/null"},
		step{cmd: "git nudge snapshot --json >/dev/null"})
	if err != nil {
		return err
	}
	status, stash, ours := got[0], got[1], got[2]
	b.rows = append(b.rows,
		row{name: fmt.Sprintf("snapshot, %d files", n), ours: ours, base: status, baseName: "git status --porcelain", target: "<= 1.25x"},
		row{name: fmt.Sprintf("snapshot, %d files", n), ours: ours, base: stash, baseName: "git stash create", target: "< 1x"},
	)
	// Leave the tree clean for the next measurement.
	return b.must(dir, "git reset -q --hard && git clean -qfx -e .nudgethis -e .autodev")
}

// untrackedCache: git nudge snapshot vs git status, both with
// core.untrackedCache=true and the user's index holding git's untracked
// cache (written by the user's own git status after the edits), target
// <= 1.0x.
func (b *bench) untrackedCache(dir string, n int) error {
	if err := b.edit(dir, n, 10, 21, true); err != nil {
		return err
	}
	if err := b.must(dir, "git config core.untrackedCache true && git status --porcelain >/dev/null"); err != nil {
		return err
	}
	defer b.must(dir, "git config --unset core.untrackedCache; git reset -q --hard && git clean -qfx -e .nudgethis -e .autodev")
	got, err := b.alternate(dir,
		step{cmd: "git --no-optional-locks status --porcelain >/dev/null"},
		step{cmd: "git nudge snapshot --json >/dev/null"})
	if err != nil {
		return err
	}
	b.rows = append(b.rows, row{name: fmt.Sprintf("snapshot with core.untrackedCache, %d files", n), ours: got[1], base: got[0],
		baseName: "git status --porcelain (same untracked cache)", target: "<= 1.0x"})
	return nil
}

// applyUndo: git nudge apply + undo of one 50-file patch vs git apply + git apply -R.
func (b *bench) applyUndo(dir string, n int) (row, error) {
	var r row
	// The task's result is a commit changing 50 files on top of HEAD.
	if err := b.edit(dir, n, 50, 7, false); err != nil {
		return r, err
	}
	script := `set -e
git add -A && git commit -qm patch50 && git diff HEAD~1 HEAD >../patch50-` + strconv.Itoa(n) + `.diff
res=$(git rev-parse HEAD) && git reset -q --hard HEAD~1
id=$(git nudge snapshot --json | sed -n 's/.*"id": *"\(t[0-9]*\)".*/\1/p' | head -1)
git nudge capture "$id" --from "$res" >/dev/null
echo "$id" >../task-` + strconv.Itoa(n)
	if err := b.must(dir, script); err != nil {
		return r, err
	}
	idb, _ := os.ReadFile(filepath.Join(b.work, "task-"+strconv.Itoa(n)))
	id := strings.TrimSpace(string(idb))
	patch := filepath.Join(b.work, "patch50-"+strconv.Itoa(n)+".diff")
	// The same pair unrecorded gives the operation log's cost; the durable
	// writes alone, what any apply and undo that keep every journal and file
	// durable must do, give the floor under the pair on this machine.
	paths, err := patchPaths(patch)
	if err != nil {
		return r, err
	}
	got, err := b.alternate(dir,
		step{cmd: "git nudge apply " + id + " >/dev/null"},
		step{cmd: "git nudge undo " + id + " >/dev/null"},
		step{cmd: "git apply " + patch + " && git apply -R " + patch},
		step{cmd: "GIT_NUDGE_OPLOG=off git nudge apply " + id + " >/dev/null"},
		step{cmd: "GIT_NUDGE_OPLOG=off git nudge undo " + id + " >/dev/null"},
		step{run: func() error { return durableWrites(dir, paths, 2) }})
	if err != nil {
		return r, err
	}
	b.rows = append(b.rows, row{name: fmt.Sprintf("durable writes alone of apply+undo, 50 files, %d files", n), ours: got[5], base: got[2],
		baseName: "git apply + git apply -R", target: "(floor, info)"})
	ours, base := got[0].plus(got[1]), got[2]
	r = row{name: fmt.Sprintf("apply+undo 50 files, %d files", n), ours: ours, base: base, baseName: "git apply + git apply -R", target: "<= 3x"}
	b.rows = append(b.rows, r,
		row{name: fmt.Sprintf("recording cost: apply+undo 50 files, %d files", n), ours: ours, base: got[3].plus(got[4]), baseName: "same, GIT_NUDGE_OPLOG=off", target: "<= 1.1x"})
	return r, nil
}

// patchPaths lists the files a patch made by git diff changes.
func patchPaths(patch string) ([]string, error) {
	data, err := os.ReadFile(patch)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, l := range strings.Split(string(data), "\n") {
		if p, ok := strings.CutPrefix(l, "diff --git a/"); ok {
			if i := strings.Index(p, " b/"); i > 0 {
				paths = append(paths, p[:i])
			}
		}
	}
	return paths, nil
}

// durableWrites does, times commands, the writes an apply (or undo) of
// paths must make durable (journals and files written atomically and
// fsynced, see docs/RELIABILITY.md), and nothing else: the
// in-flight record (a 28 KB journal: temp file, fsync, rename, fsync of
// its folder) before any file is touched; each file's new content in a
// temp file next to it, all fsynced at once; each renamed over its file;
// each folder fsynced once; the final record. The content written is the
// file's own, so the work tree holds the same bytes afterwards.
func durableWrites(dir string, paths []string, commands int) error {
	record := filepath.Join(dir, ".git", "bench-durable-record.json")
	defer os.Remove(record)
	journal := func() error {
		tmp := record + ".tmp"
		if err := os.WriteFile(tmp, bytes.Repeat([]byte{'{'}, 28<<10), 0o644); err != nil {
			return err
		}
		if err := syncPath(tmp); err != nil {
			return err
		}
		if err := os.Rename(tmp, record); err != nil {
			return err
		}
		return syncPath(filepath.Dir(record))
	}
	for c := 0; c < commands; c++ {
		if err := journal(); err != nil {
			return err
		}
		tmps := make([]*os.File, len(paths))
		for i, p := range paths {
			full := filepath.Join(dir, filepath.FromSlash(p))
			data, err := os.ReadFile(full)
			if err != nil {
				return err
			}
			f, err := os.Create(full + ".bench-tmp")
			if err != nil {
				return err
			}
			tmps[i] = f
			if _, err := f.Write(data); err != nil {
				return err
			}
		}
		if err := inParallel(len(tmps), func(i int) error {
			if err := tmps[i].Sync(); err != nil {
				return err
			}
			return tmps[i].Close()
		}); err != nil {
			return err
		}
		folders := map[string]bool{}
		for _, p := range paths {
			full := filepath.Join(dir, filepath.FromSlash(p))
			if err := os.Rename(full+".bench-tmp", full); err != nil {
				return err
			}
			folders[filepath.Dir(full)] = true
		}
		var list []string
		for f := range folders {
			list = append(list, f)
		}
		if err := inParallel(len(list), func(i int) error { return syncPath(list[i]) }); err != nil {
			return err
		}
		if err := journal(); err != nil {
			return err
		}
	}
	return nil
}

func syncPath(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// inParallel runs f(0..n-1) on 16 goroutines and returns the first error.
func inParallel(n int, f func(i int) error) error {
	errs := make(chan error, n)
	next := make(chan int)
	for w := 0; w < 16; w++ {
		go func() {
			for i := range next {
				errs <- f(i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	var first error
	for i := 0; i < n; i++ {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// fsmonitorHook is a hook in the style of git's t7519 tests: it answers
// every query with a new token and the paths listed in the file "report"
// next to it (what a real monitor would report as changed since the
// index's token).
const fsmonitorHook = `#!/bin/sh
d=$(dirname "$0")
printf 'tok%s\0' "$(date +%s%N)"
tr '\n' '\000' < "$d/report"
`

// fsmonitor: with core.fsmonitor (a hook) and core.untrackedCache set, git
// nudge snapshot vs git status using them. git's builtin daemon is not
// available on Linux in git 2.39, so a hook stands in for it.
func (b *bench) fsmonitor(dir string, n int) error {
	hookDir := filepath.Join(b.work, fmt.Sprintf("fsmonitor-%d", n))
	os.MkdirAll(hookDir, 0o755)
	hook := filepath.Join(hookDir, "hook")
	if err := os.WriteFile(hook, []byte(fsmonitorHook), 0o755); err != nil {
		return err
	}
	os.WriteFile(filepath.Join(hookDir, "report"), nil, 0o644)
	// The user's own status records the token and untracked cache.
	if err := b.must(dir, "git config core.fsmonitor "+hook+" && git config core.untrackedCache true && git status --porcelain >/dev/null"); err != nil {
		return err
	}
	defer b.must(dir, "git config --unset core.fsmonitor; git config --unset core.untrackedCache; git reset -q --hard && git clean -qfx -e .nudgethis -e .autodev")
	if err := b.edit(dir, n, 10, 11, true); err != nil {
		return err
	}
	var report strings.Builder
	rng := rand.New(rand.NewSource(11))
	for j := 0; j < 10; j++ {
		fmt.Fprintf(&report, "%s\n", filePath(rng.Intn(n)))
	}
	report.WriteString("new-11.txt\n")
	if err := os.WriteFile(filepath.Join(hookDir, "report"), []byte(report.String()), 0o644); err != nil {
		return err
	}
	got, err := b.alternate(dir,
		step{cmd: "git --no-optional-locks status --porcelain >/dev/null"},
		step{cmd: "git nudge snapshot --json >/dev/null"})
	if err != nil {
		return err
	}
	b.rows = append(b.rows, row{name: fmt.Sprintf("snapshot with core.fsmonitor, %d files", n), ours: got[1], base: got[0],
		baseName: "git status --porcelain (same fsmonitor)", target: "<= 1.0x"})
	return nil
}

// bulkUndo: undo of a task that added k files to one folder vs its apply
// (no quadratic step: undo <= 2x apply).
func (b *bench) bulkUndo(dir string, k int) error {
	script := `set -e
mkdir -p bulk && i=0 && while [ $i -lt ` + strconv.Itoa(k) + ` ]; do echo "bulk $i" > bulk/f$i.txt; i=$((i+1)); done
git add -A && git commit -qm bulk && res=$(git rev-parse HEAD) && git reset -q --hard HEAD~1 && rm -rf bulk
id=$(git nudge snapshot --json | sed -n 's/.*"id": *"\(t[0-9]*\)".*/\1/p' | head -1)
git nudge capture "$id" --from "$res" >/dev/null
echo "$id" >../task-bulk`
	if err := b.must(dir, script); err != nil {
		return err
	}
	idb, _ := os.ReadFile(filepath.Join(b.work, "task-bulk"))
	id := strings.TrimSpace(string(idb))
	got, err := b.alternate(dir,
		step{cmd: "git nudge apply " + id + " >/dev/null"},
		step{cmd: "git nudge undo " + id + " >/dev/null"})
	if err != nil {
		return err
	}
	b.rows = append(b.rows, row{name: fmt.Sprintf("undo of %d files added to one folder", k), ours: got[1], base: got[0],
		baseName: "its apply", target: "<= 2x"})
	return nil
}

// bigDiff: git nudge diff bounded to 1 MiB (what a terminal gets) of a
// change of mb MB (files of 1 MB: larger ones are named, not printed) vs
// git diff-tree -p cut by head -c 1 MiB; target: under 1 s.
func (b *bench) bigDiff(mb int) error {
	dir := filepath.Join(b.work, "bigdiff")
	fmt.Fprintf(os.Stderr, "generating a %d MB change in %s\n", mb, dir)
	if err := b.must(b.work, "rm -rf "+dir+" && git init -q "+dir+" && cd "+dir+" && git commit -q --allow-empty -m base"); err != nil {
		return err
	}
	fi := exec.Command("git", "-c", "pack.compression=1", "fast-import", "--quiet")
	fi.Dir = dir
	fi.Env = b.env
	in, err := fi.StdinPipe()
	if err != nil {
		return err
	}
	fi.Stderr = os.Stderr
	if err := fi.Start(); err != nil {
		return err
	}
	w := bufio.NewWriterSize(in, 1<<20)
	line := strings.Repeat("x", 60)
	for i := 0; i < mb; i++ {
		var sb strings.Builder
		for j := 0; sb.Len() < 1<<20; j++ {
			fmt.Fprintf(&sb, "file %d line %d %s\n", i, j, line)
		}
		fmt.Fprintf(w, "blob\nmark :%d\ndata %d\n%s\n", i+1, sb.Len(), sb.String())
	}
	fmt.Fprintf(w, "commit refs/heads/big\ncommitter Bench <bench@example.com> 1700000000 +0000\ndata 4\nbig\nfrom refs/heads/main^0\n")
	for i := 0; i < mb; i++ {
		fmt.Fprintf(w, "M 100644 :%d big/f%04d.txt\n", i+1, i)
	}
	w.WriteString("\n")
	if err := w.Flush(); err != nil {
		return err
	}
	in.Close()
	if err := fi.Wait(); err != nil {
		return fmt.Errorf("fast-import: %v", err)
	}
	script := `set -e
id=$(git nudge snapshot --json | sed -n 's/.*"id": *"\(t[0-9]*\)".*/\1/p' | head -1)
git nudge capture "$id" --from big >/dev/null
echo "$id" >../task-bigdiff`
	if err := b.must(dir, script); err != nil {
		return err
	}
	idb, _ := os.ReadFile(filepath.Join(b.work, "task-bigdiff"))
	id := strings.TrimSpace(string(idb))
	got, err := b.alternate(dir,
		step{cmd: "git nudge diff --max-bytes 1048576 " + id + " >/dev/null 2>&1"},
		step{cmd: "git diff-tree -p main big | head -c 1048576 >/dev/null"})
	if err != nil {
		return err
	}
	b.rows = append(b.rows, row{name: fmt.Sprintf("diff of a %d MB change, first 1 MiB", mb), ours: got[0], base: got[1],
		baseName: "git diff-tree -p, first 1 MiB (head -c)", target: "< 1 s"})
	return nil
}

// massTouch: after every file is touched (contents unchanged), git status
// re-reads every file run after run (its index is never refreshed with
// --no-optional-locks); the snapshot refreshes its own stat cache, so only
// its first run (the warm-up round, not counted) is cold.
func (b *bench) massTouch(dir string, n int) error {
	if err := b.must(dir, "find src -type f -exec touch {} + && git nudge snapshot >/dev/null"); err != nil {
		return err
	}
	got, err := b.alternate(dir,
		step{cmd: "git --no-optional-locks status --porcelain >/dev/null"},
		step{cmd: "git nudge snapshot --json >/dev/null"})
	if err != nil {
		return err
	}
	b.rows = append(b.rows, row{name: fmt.Sprintf("snapshot after a mass touch (not the first), %d files", n), ours: got[1], base: got[0],
		baseName: "git --no-optional-locks status after it", target: "(info)"})
	// Refresh the user's index for the measurements after this one.
	return b.must(dir, "git status --porcelain >/dev/null")
}

// bigApply: in the largest repository, apply of a task changing k files
// spread over the tree vs git checkout <result> --pathspec-from-file (the
// same files written by git; <= 2x), its undo vs its apply, and, when the
// repository has enough files, the apply of ten times as many files vs
// the apply of k (<= 12x: no quadratic step).
func (b *bench) bigApply(n, k int) error {
	dir := filepath.Join(b.work, fmt.Sprintf("repo-%d", n))
	applyOf := map[int]sample{}
	for _, m := range []int{k, 10 * k} {
		if m > n {
			continue
		}
		fmt.Fprintf(os.Stderr, "big apply: %d files of %d\n", m, n)
		for i := 0; i < m; i++ {
			p := filepath.Join(dir, filePath(i*(n/m)))
			f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			fmt.Fprintf(f, "big apply %d\n", m)
			f.Close()
		}
		tag := strconv.Itoa(m)
		script := `set -e
git add -A && git commit -qm big` + tag + ` && git diff --name-only -z HEAD~1 HEAD >../paths-` + tag + `
res=$(git rev-parse HEAD) && echo "$res" >../res-` + tag + ` && git reset -q --hard HEAD~1
id=$(git nudge snapshot --json | sed -n 's/.*"id": *"\(t[0-9]*\)".*/\1/p' | head -1)
git nudge capture "$id" --from "$res" >/dev/null
echo "$id" >../task-big-` + tag
		if err := b.must(dir, script); err != nil {
			return err
		}
		idb, _ := os.ReadFile(filepath.Join(b.work, "task-big-"+tag))
		resb, _ := os.ReadFile(filepath.Join(b.work, "res-"+tag))
		id, res := strings.TrimSpace(string(idb)), strings.TrimSpace(string(resb))
		paths := "../paths-" + tag
		// git checkout's pathspec matching costs paths x index entries, so
		// the tree is put back with reset --hard (nothing else is dirty),
		// and git's baseline is measured for the k-file patch only.
		reset := func(int) error { return b.must(dir, "git reset -q --hard") }
		steps := []step{
			{prep: reset, cmd: "git nudge apply " + id + " >/dev/null"},
			{cmd: "git nudge undo " + id + " >/dev/null"}}
		if m == k {
			steps = append(steps, step{cmd: "git checkout -q " + res + " --pathspec-from-file=" + paths + " --pathspec-file-nul"})
		}
		got, err := b.alternate(dir, steps...)
		if err != nil {
			return err
		}
		if err := reset(0); err != nil {
			return err
		}
		applyOf[m] = got[0]
		if m == k {
			b.rows = append(b.rows, row{name: fmt.Sprintf("apply of %d files, %d files", m, n), ours: got[0], base: got[2],
				baseName: "git checkout <result> -- <paths>", target: "<= 2x"})
		}
		b.rows = append(b.rows, row{name: fmt.Sprintf("undo of %d files, %d files", m, n), ours: got[1], base: got[0],
			baseName: "its apply", target: "(info)"})
	}
	if big, ok := applyOf[10*k]; ok {
		b.rows = append(b.rows, row{name: fmt.Sprintf("apply of %d files vs %d files", 10*k, k), ours: big, base: applyOf[k],
			baseName: fmt.Sprintf("apply of %d files", k), target: "<= 12x"})
	}
	return nil
}
