// Command bench measures git-nudge and git-autodev against git's own commands
// on generated repositories, in one run, alternating rounds, and prints the
// medians, the ratios against their targets (docs/PERFORMANCE.md), and the
// peak memory of our processes.
//
//	go run ./bench                      # 10,000 and 100,000 files, 5 rounds
//	go run ./bench -sizes 10000 -rounds 3
//
// It builds both binaries from this checkout into a temporary folder, so it
// measures the code in front of you. Repositories are generated under -work
// (default: a temporary folder), committed and packed.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"
)

var (
	sizesFlag      = flag.String("sizes", "10000,100000", "comma-separated repository sizes (files)")
	roundsFlag     = flag.Int("rounds", 5, "rounds per measurement (medians are reported)")
	workFlag       = flag.String("work", "", "folder for generated repositories (default: a temporary folder, removed afterwards)")
	listN          = flag.Int("checkpoints", 10000, "checkpoints in the journal for the restore-list measurement")
	diffMB         = flag.Int("diffmb", 500, "size in MB of the change whose bounded diff is measured (0: skip)")
	bulkN          = flag.Int("bulk", 2000, "files added to one folder for the undo-vs-apply measurement (0: skip)")
	tasksN         = flag.Int("tasks", 1000, "tasks in the workspace for the git nudge list measurement (0: skip)")
	massTouch      = flag.Bool("masstouch", true, "measure snapshot and git status after touching every file")
	poolOnly       = flag.Bool("pool-only", false, "measure only task start with a pooled worktree (taskStart)")
	saveOnly       = flag.Bool("save-only", false, "measure only the save rows (save, saveRatio, saveEdits)")
	startRows      = flag.Bool("start", true, "measure task start with a pooled worktree against git worktree add (slow at 100,000 files)")
	opsN           = flag.Int("ops", 1000, "operations in the log for the op log measurement (0: skip)")
	applyOnly      = flag.Bool("apply-only", false, "measure only apply+undo of the 50-file patch (applyUndo)")
	bigApplyN      = flag.Int("bigapply", 2000, "files changed by the big-patch apply measurement, and ten times as many for the scaling one (0: skip)")
	ckptOnly       = flag.Bool("checkpoint-only", false, "measure only checkpoint against git add -A && git commit, and the recording cost rows")
	tasksOnly      = flag.Bool("tasks-only", false, "measure only the rows of a workspace with -tasks tasks (git nudge list, snapshot)")
	sandboxOnly    = flag.Bool("sandbox-only", false, "measure only git nudge run --sandbox -- true against git nudge run -- true, each with a pooled worktree")
	containerOnly  = flag.Bool("container-only", false, "measure only git nudge run --on a container runner -- true against podman run --rm IMAGE true plus git nudge run -- true (a pooled worktree)")
	containerImage = flag.String("container-image", "", "image for the container runner rows (e.g. localhost/nudge-test:1, which the runner_container scenario builds); empty: the rows are skipped unless -container-only")
	runnerOnly     = flag.Bool("runner-only", false, "measure only the runner rows: git nudge run --on an ssh runner (with -ssh-host) and run --attempts 8 against --attempts 1")
	attemptsRow    = flag.Bool("attempts", true, "with -runner-only: also measure run --attempts 8 against --attempts 1")
	sshHost        = flag.String("ssh-host", "", "an ssh destination reached without a password, for the ssh runner rows (skipped when empty)")
	mergeOnly      = flag.Bool("merge-only", false, "measure only apply --merge of a 50-file patch with 10 files edited since the snapshot (applyMerge)")
	ucOnly         = flag.Bool("untracked-cache-only", false, "measure only snapshot against git status with core.untrackedCache=true (the user's index holding git's untracked cache)")
	snapOnly       = flag.Bool("snapshot-only", false, "measure only the snapshot rows (plain, with core.fsmonitor, and after a mass touch unless -masstouch=false)")
	reuse          = flag.Bool("reuse", false, "reuse a repository an earlier run left in the -work folder (reset to its commit, untracked files and tasks' state removed) instead of generating it again; for 300,000 and 1,000,000 files")
)

func main() {
	flag.Parse()
	b := &bench{rounds: *roundsFlag}
	if err := b.run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

type bench struct {
	rounds int
	work   string
	bin    string
	env    []string
	rows   []row
	// lastCPU is the user+system CPU time of the last command sh ran,
	// its children included.
	lastCPU time.Duration
}

// row is one comparison: our command against a git baseline.
type row struct {
	name     string
	ours     sample
	base     sample
	baseName string
	target   string
}

// sample is a set of timings and the peak RSS seen, in KiB.
type sample struct {
	times []time.Duration
	maxKB int64
	// cpu holds each timed round's user+system CPU time, where measured.
	cpu []time.Duration
}

func (s *sample) add(d time.Duration, kb int64) {
	s.times = append(s.times, d)
	if kb > s.maxKB {
		s.maxKB = kb
	}
}

func (s sample) median() time.Duration {
	if len(s.times) == 0 {
		return 0
	}
	t := append([]time.Duration(nil), s.times...)
	sort.Slice(t, func(i, j int) bool { return t[i] < t[j] })
	return t[len(t)/2]
}

// run builds the binaries, then measures, for each repository size,
// the rows the flags ask for (onlyRows when a -*-only flag narrows them,
// else sizeRows), then the rows across sizes (acrossSizes), and prints
// the table.
func (b *bench) run() error {
	start := time.Now()
	cleanup, err := b.setUp()
	defer cleanup()
	if err != nil {
		return err
	}
	var sizes []int
	for _, s := range strings.Split(*sizesFlag, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return fmt.Errorf("bad -sizes: %v", err)
		}
		sizes = append(sizes, n)
	}
	if *tasksOnly {
		if err := b.taskList(*tasksN); err != nil {
			return err
		}
		b.print(time.Since(start))
		return nil
	}
	applyBySize := map[int]row{}
	for _, n := range sizes {
		dir, err := b.generate(n)
		if err != nil {
			return err
		}
		if done, err := b.onlyRows(dir, n, sizes); done || err != nil {
			if err != nil {
				return err
			}
			continue
		}
		if err := b.sizeRows(dir, n, sizes, applyBySize); err != nil {
			return err
		}
	}
	if *poolOnly || *ucOnly || *ckptOnly || *applyOnly || *snapOnly || *sandboxOnly || *mergeOnly || *containerOnly || *runnerOnly {
		b.print(time.Since(start))
		return nil
	}
	b.saveRatio(sizes)
	if *saveOnly {
		b.print(time.Since(start))
		return nil
	}
	if err := b.acrossSizes(sizes, applyBySize); err != nil {
		return err
	}
	b.print(time.Since(start))
	b.printRSS()
	return nil
}

// setUp makes the work folder (-work, or a temp folder that cleanup
// removes), builds both binaries into it and sets the environment the
// commands run in: a HOME of its own, gc.auto 0, the binaries on PATH.
func (b *bench) setUp() (cleanup func(), err error) {
	cleanup = func() {}
	work := *workFlag
	if work == "" {
		d, err := os.MkdirTemp("", "nudge-bench-")
		if err != nil {
			return cleanup, err
		}
		cleanup = func() { os.RemoveAll(d) }
		work = d
	}
	b.work = work
	b.bin = filepath.Join(work, "bin")
	for _, tool := range []string{"git-nudge", "git-autodev"} {
		out, err := exec.Command("go", "build", "-o", filepath.Join(b.bin, tool), "./cmd/"+tool).CombinedOutput()
		if err != nil {
			return cleanup, fmt.Errorf("building %s: %v\n%s", tool, err, out)
		}
	}
	home := filepath.Join(work, "home")
	os.MkdirAll(home, 0o755)
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\tname = Bench\n\temail = bench@example.com\n[init]\n\tdefaultBranch = main\n[gc]\n\tauto = 0\n"), 0o644)
	b.env = append(os.Environ(), "HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "PATH="+b.bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return cleanup, nil
}

// onlyRows measures, in the repository of n files at dir, the rows a
// -*-only flag narrows the run to; done is false when no such flag is set.
func (b *bench) onlyRows(dir string, n int, sizes []int) (done bool, err error) {
	if *poolOnly {
		if err := b.taskStart(dir, n); err != nil {
			return true, err
		}
		return true, nil
	}
	if *ucOnly {
		if err := b.untrackedCache(dir, n); err != nil {
			return true, err
		}
		return true, nil
	}
	if *containerOnly {
		if err := b.containerRun(dir, n); err != nil {
			return true, err
		}
		return true, nil
	}
	if *runnerOnly {
		if err := b.runnerRows(dir, n); err != nil {
			return true, err
		}
		return true, nil
	}
	if *sandboxOnly {
		if err := b.sandboxRun(dir, n); err != nil {
			return true, err
		}
		return true, nil
	}
	if *ckptOnly {
		if err := b.checkpoint(dir, n); err != nil {
			return true, err
		}
		if err := b.recordingCost(dir, n); err != nil {
			return true, err
		}
		return true, nil
	}
	if *applyOnly {
		if _, err := b.applyUndo(dir, n); err != nil {
			return true, err
		}
		return true, nil
	}
	if *mergeOnly {
		if err := b.applyMerge(dir, n); err != nil {
			return true, err
		}
		return true, nil
	}
	if *saveOnly {
		if err := b.save(dir, n); err != nil {
			return true, err
		}
		if n == sizes[0] {
			if err := b.saveEdits(dir, n); err != nil {
				return true, err
			}
		}
		return true, nil
	}
	return false, nil
}

// sizeRows measures every row of one repository size (n files at dir),
// keeping apply+undo's for acrossSizes.
func (b *bench) sizeRows(dir string, n int, sizes []int, applyBySize map[int]row) error {
	if err := b.snapshot(dir, n); err != nil {
		return err
	}
	if err := b.fsmonitor(dir, n); err != nil {
		return err
	}
	if *massTouch {
		if err := b.massTouch(dir, n); err != nil {
			return err
		}
	}
	if *snapOnly {
		return nil
	}
	r, err := b.applyUndo(dir, n)
	if err != nil {
		return err
	}
	applyBySize[n] = r
	if err := b.checkpoint(dir, n); err != nil {
		return err
	}
	if err := b.restore(dir, n); err != nil {
		return err
	}
	if err := b.save(dir, n); err != nil {
		return err
	}
	if n == sizes[0] {
		if err := b.saveEdits(dir, n); err != nil {
			return err
		}
		if err := b.applyMerge(dir, n); err != nil {
			return err
		}
	}
	if err := b.recordingCost(dir, n); err != nil {
		return err
	}
	if *startRows || *poolOnly {
		if err := b.taskStart(dir, n); err != nil {
			return err
		}
		if err := b.sandboxRun(dir, n); err != nil {
			return err
		}
	}
	return nil
}

// acrossSizes adds the rows that compare sizes or need no repository of
// a size: apply+undo large against small, the list, and the rows of
// -tasks, -ops, -bigapply, -bulk and -diffmb.
func (b *bench) acrossSizes(sizes []int, applyBySize map[int]row) error {
	if len(sizes) >= 2 {
		small, large := applyBySize[sizes[0]], applyBySize[sizes[len(sizes)-1]]
		if small.ours.median() > 0 {
			b.rows = append(b.rows, row{
				name:     fmt.Sprintf("apply+undo %d files vs %d files", sizes[len(sizes)-1], sizes[0]),
				ours:     large.ours,
				base:     small.ours,
				baseName: fmt.Sprintf("same in %d", sizes[0]),
				target:   "< 1.5x",
			})
		}
	}
	if err := b.list(sizes[0]); err != nil {
		return err
	}
	if *tasksN > 0 {
		if err := b.taskList(*tasksN); err != nil {
			return err
		}
	}
	if *opsN > 0 {
		if err := b.opLog(*opsN); err != nil {
			return err
		}
	}
	if *bigApplyN > 0 {
		if err := b.bigApply(sizes[len(sizes)-1], *bigApplyN); err != nil {
			return err
		}
	}
	if *bulkN > 0 {
		if err := b.bulkUndo(filepath.Join(b.work, fmt.Sprintf("repo-%d", sizes[0])), *bulkN); err != nil {
			return err
		}
	}
	if *diffMB > 0 {
		if err := b.bigDiff(*diffMB); err != nil {
			return err
		}
	}
	return nil
}

// sh runs a shell command in dir and returns its wall time and peak RSS.
func (b *bench) sh(dir, script string) (time.Duration, int64, error) {
	c := exec.Command("sh", "-c", script)
	c.Dir = dir
	c.Env = b.env
	var out strings.Builder
	c.Stdout = &out
	c.Stderr = &out
	t0 := time.Now()
	err := c.Run()
	d := time.Since(t0)
	var kb int64
	if c.ProcessState != nil {
		if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok {
			kb = ru.Maxrss
		}
		b.lastCPU = c.ProcessState.UserTime() + c.ProcessState.SystemTime()
	}
	if err != nil {
		return d, kb, fmt.Errorf("%s: %v\n%s", script, err, out.String())
	}
	return d, kb, nil
}

// step is one command of a round, with an optional preparation (edits)
// that is not timed.
type step struct {
	prep func(round int) error
	cmd  string
	// run, when set, is timed instead of cmd: work done in this process
	// (durableWrites), with no process start in it.
	run func() error
}

// alternate runs the steps in turn, round after round, so that each
// command sees the same machine state as the others; the first round is a
// warm-up (page cache, stat refresh) and is not counted. It returns one
// sample per step.
func (b *bench) alternate(dir string, steps ...step) ([]sample, error) {
	out := make([]sample, len(steps))
	for r := 0; r <= b.rounds; r++ {
		for i, s := range steps {
			if s.prep != nil {
				if err := s.prep(r); err != nil {
					return nil, err
				}
			}
			var d time.Duration
			var kb int64
			var err error
			if s.run != nil {
				t0 := time.Now()
				err = s.run()
				d = time.Since(t0)
			} else {
				d, kb, err = b.sh(dir, s.cmd)
			}
			if err != nil {
				return nil, err
			}
			if r > 0 {
				out[i].add(d, kb)
				if s.run == nil {
					out[i].cpu = append(out[i].cpu, b.lastCPU)
				}
			}
		}
	}
	return out, nil
}

// plus is the round-by-round sum of two samples (apply then undo).
func (s sample) plus(o sample) sample {
	var sum sample
	for i := range s.times {
		sum.add(s.times[i]+o.times[i], max(s.maxKB, o.maxKB))
	}
	return sum
}

func (b *bench) must(dir, script string) error {
	_, _, err := b.sh(dir, script)
	return err
}

// generate makes a repository of n files of a few KB each in nested folders,
// committed and packed, with a checked-out work tree and a fresh index.
func (b *bench) generate(n int) (string, error) {
	dir := filepath.Join(b.work, fmt.Sprintf("repo-%d", n))
	fmt.Fprintf(os.Stderr, "generating %d files in %s\n", n, dir)
	// A repository left by an earlier run with the same -work folder is
	// made again (fast-import refuses to move its branch, and its tasks,
	// checkpoints and op log would skew the rows), unless -reuse asks to
	// keep it: then only its work tree, index and the suites' state are
	// put back (generating 1,000,000 files takes many minutes).
	if _, err := os.Stat(filepath.Join(dir, ".git", "bench-generated")); err == nil && *reuse {
		fmt.Fprintf(os.Stderr, "reusing %s\n", dir)
		os.Remove(filepath.Join(b.work, fmt.Sprintf("pool-last-%d", n)))
		err := b.must(dir, "git nudge pool clear >/dev/null 2>&1; rm -rf .nudgethis .autodev && git worktree prune && git reset -q --hard main && git clean -qfdx && for r in $(git for-each-ref --format='%(refname)' refs/nudgethis refs/autodev); do git update-ref -d $r; done; git config --unset-all nudge.pool; git config --unset core.untrackedCache; git config --unset core.fsmonitor; git status --porcelain >/dev/null")
		return dir, err
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	if err := b.must(b.work, "git init -q "+dir); err != nil {
		return "", err
	}
	// fast-import is the quickest way to make n blobs and one commit.
	fi := exec.Command("git", "fast-import", "--quiet")
	fi.Dir = dir
	fi.Env = b.env
	in, err := fi.StdinPipe()
	if err != nil {
		return "", err
	}
	fi.Stderr = os.Stderr
	if err := fi.Start(); err != nil {
		return "", err
	}
	w := bufio.NewWriterSize(in, 1<<20)
	rng := rand.New(rand.NewSource(int64(n)))
	words := []string{"alpha", "beta", "gamma", "delta", "nudge", "func", "return", "value", "index", "tree"}
	for i := 0; i < n; i++ {
		var sb strings.Builder
		size := 1024 + rng.Intn(3072)
		fmt.Fprintf(&sb, "// file %d\n", i)
		for sb.Len() < size {
			sb.WriteString(words[rng.Intn(len(words))])
			if rng.Intn(8) == 0 {
				sb.WriteByte('\n')
			} else {
				sb.WriteByte(' ')
			}
		}
		sb.WriteByte('\n')
		fmt.Fprintf(w, "blob\nmark :%d\ndata %d\n%s\n", i+1, sb.Len(), sb.String())
	}
	fmt.Fprintf(w, "commit refs/heads/main\ncommitter Bench <bench@example.com> 1700000000 +0000\ndata 9\ngenerate\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(w, "M 100644 :%d %s\n", i+1, filePath(i))
	}
	w.WriteString("\n")
	if err := w.Flush(); err != nil {
		return "", err
	}
	in.Close()
	if err := fi.Wait(); err != nil {
		return "", fmt.Errorf("fast-import: %v", err)
	}
	if err := b.must(dir, "git repack -adq && git reset -q --hard main && git status --porcelain >/dev/null && touch .git/bench-generated"); err != nil {
		return "", err
	}
	return dir, nil
}

func filePath(i int) string {
	return fmt.Sprintf("src/d%03d/e%02d/file%06d.txt", i/1000, (i/50)%20, i)
}

// edit appends a line to k files chosen by seed and creates one new file.
func (b *bench) edit(dir string, n, k int, seed int64, newFile bool) error {
	rng := rand.New(rand.NewSource(seed))
	for j := 0; j < k; j++ {
		p := filepath.Join(dir, filePath(rng.Intn(n)))
		f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		fmt.Fprintf(f, "edit %d %d\n", seed, j)
		f.Close()
	}
	if newFile {
		return os.WriteFile(filepath.Join(dir, fmt.Sprintf("new-%d.txt", seed)), []byte("new file\n"), 0o644)
	}
	return nil
}

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

// checkpoint: git autodev checkpoint vs git add -A && git commit -q on equal
// amounts of change.
func (b *bench) checkpoint(dir string, n int) error {
	edits := func(seed int64) func(int) error {
		return func(i int) error { return b.edit(dir, n, 10, seed+int64(i), true) }
	}
	got, err := b.alternate(dir,
		step{prep: edits(100), cmd: "git autodev checkpoint -m 'bench round' >/dev/null"},
		step{prep: edits(200), cmd: "git add -A && git commit -q -m 'bench round'"})
	if err != nil {
		return err
	}
	ours, base := got[0], got[1]
	b.rows = append(b.rows, row{name: fmt.Sprintf("checkpoint, %d files", n), ours: ours, base: base, baseName: "git add -A && git commit -q", target: "<= 1.1x"})
	return nil
}

// restore: git autodev restore <id> of a dirty tree vs git stash -u && git reset --hard.
func (b *bench) restore(dir string, n int) error {
	edits := func(seed int64) func(int) error {
		return func(i int) error { return b.edit(dir, n, 10, seed+int64(i), true) }
	}
	got, err := b.alternate(dir,
		step{prep: edits(300), cmd: "git autodev restore c1 >/dev/null"},
		step{prep: edits(400), cmd: "git stash -u -q && git reset -q --hard"})
	if err != nil {
		return err
	}
	ours, base := got[0], got[1]
	b.rows = append(b.rows, row{name: fmt.Sprintf("restore <id>, %d files", n), ours: ours, base: base, baseName: "git stash -u && git reset --hard", target: "<= 1.0x"})
	return nil
}

// list: git autodev restore (the list) with many checkpoints in the journal.
func (b *bench) list(n int) error {
	if err := b.listJournal(n, ""); err != nil {
		return err
	}
	// Every entry with a field from a newer version: the codec keeps it,
	// and the list must stay as fast.
	return b.listJournal(n, `,"future":{"x":[1,2,"three"]}`)
}

func (b *bench) listJournal(n int, extra string) error {
	dir := filepath.Join(b.work, fmt.Sprintf("repo-%d", n))
	head, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		return err
	}
	commit := strings.TrimSpace(string(head))
	var sb strings.Builder
	sb.WriteString("[\n")
	now := time.Now().UTC()
	for i := 1; i <= *listN; i++ {
		typ, label := "task", fmt.Sprintf("thread — step %d", i)
		if i%50 == 1 {
			typ, label = "baseline", "baseline before run"
		}
		fmt.Fprintf(&sb, `  {"id":"c%d","commit":"%s","label":%q,"type":"%s","time":"%s","task":null,"mode":null%s}`,
			i, commit, label, typ, now.Add(time.Duration(i-*listN)*time.Minute).Format(time.RFC3339), extra)
		if i < *listN {
			sb.WriteString(",")
		}
		sb.WriteString("\n")
	}
	sb.WriteString("]\n")
	ldir := filepath.Join(b.work, "list-repo")
	if err := b.must(b.work, "rm -rf "+ldir+" && git clone -q --shared "+dir+" "+ldir); err != nil {
		return err
	}
	os.MkdirAll(filepath.Join(ldir, ".autodev"), 0o755)
	os.WriteFile(filepath.Join(ldir, ".autodev", ".gitignore"), []byte("*\n"), 0o644)
	if err := os.WriteFile(filepath.Join(ldir, ".autodev", "checkpoints.json"), []byte(sb.String()), 0o644); err != nil {
		return err
	}
	got, err := b.alternate(ldir,
		step{cmd: "git autodev restore >/dev/null"},
		step{cmd: "git rev-parse HEAD >/dev/null"})
	if err != nil {
		return err
	}
	ours, base := got[0], got[1]
	name := fmt.Sprintf("restore list, %d checkpoints", *listN)
	if extra != "" {
		name += " with unknown fields"
	}
	b.rows = append(b.rows, row{name: name, ours: ours, base: base, baseName: "git rev-parse HEAD", target: "< 0.2 s"})
	return nil
}

// opLog: git nudge op log with n operations in the log (target: under
// 0.2 s), made by n real snapshots of a small repository; the baseline is
// git log --oneline of the log's own ref, for scale.
func (b *bench) opLog(n int) error {
	dir := filepath.Join(b.work, "oplog")
	fmt.Fprintf(os.Stderr, "making %d operations\n", n)
	script := `set -e
rm -rf ` + dir + ` && git init -q ` + dir + ` && cd ` + dir + `
echo a > a.txt && git add -A && git commit -qm base
i=0; while [ $i -lt ` + strconv.Itoa(n) + ` ]; do echo $i >> a.txt; git nudge snapshot >/dev/null; i=$((i+1)); done`
	if err := b.must(b.work, script); err != nil {
		return err
	}
	got, err := b.alternate(dir,
		step{cmd: "git nudge op log >/dev/null"},
		step{cmd: "git log --oneline $(git for-each-ref --format='%(refname)' refs/nudgethis-oplog/ | head -1) >/dev/null"})
	if err != nil {
		return err
	}
	b.rows = append(b.rows, row{name: fmt.Sprintf("git nudge op log, %d operations", n), ours: got[0], base: got[1],
		baseName: "git log --oneline of the log's ref", target: "< 0.2 s"})
	return nil
}

func (b *bench) print(total time.Duration) {
	gv, _ := exec.Command("git", "--version").Output()
	fmt.Printf("machine: %s/%s, %d cores, %s; rounds: %d (medians); total bench time %s\n\n",
		runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), strings.TrimSpace(string(gv)), b.rounds, total.Round(time.Second))
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "| measurement\t| ours (median)\t| baseline\t| baseline (median)\t| ratio\t| target\t| met\t| our peak RSS\t|")
	fmt.Fprintln(tw, "|---\t|---\t|---\t|---\t|---\t|---\t|---\t|---\t|")
	for _, r := range b.rows {
		om, bm := r.ours.median(), r.base.median()
		ratio := "-"
		if bm > 0 {
			ratio = fmt.Sprintf("%.2fx", float64(om)/float64(bm))
		}
		fmt.Fprintf(tw, "| %s\t| %s\t| %s\t| %s\t| %s\t| %s\t| %s\t| %.1f MiB\t|\n", r.name, ms(om), r.baseName, ms(bm), ratio, r.target, met(r.target, om, bm), float64(r.ours.maxKB)/1024)
	}
	tw.Flush()
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

// met says whether a target ("<= 1.25x", "< 1x": a ratio to the baseline;
// "< 0.2 s": our median's absolute time; "(info)") is met.
func met(target string, ours, base time.Duration) string {
	f := strings.Fields(target)
	if len(f) < 2 {
		return "-"
	}
	op, num := f[0], f[1]
	var got float64
	switch {
	case strings.HasSuffix(num, "x") && base > 0:
		num = strings.TrimSuffix(num, "x")
		got = float64(ours) / float64(base)
	case len(f) == 3 && f[2] == "s":
		got = ours.Seconds()
	default:
		return "-"
	}
	want, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return "-"
	}
	if (op == "<" && got < want) || (op == "<=" && got <= want) {
		return "met"
	}
	return "NOT met"
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

// taskList: git nudge list of n tasks vs git stash list of n entries. The
// tasks are copies of one real record (a 10-file patch, applied, so its
// undo record is filled in) under other ids, notes and states.
func (b *bench) taskList(n int) error {
	dir := filepath.Join(b.work, "tasklist")
	fmt.Fprintf(os.Stderr, "generating %d tasks and %d stash entries\n", n, n)
	script := `set -e
rm -rf ` + dir + ` && git init -q ` + dir + ` && cd ` + dir + `
i=0; while [ $i -lt 30 ]; do echo "line $i" > f$i.txt; i=$((i+1)); done
git add -A && git commit -qm base
git nudge run -m 'edit ten files' -- sh -c 'for i in 0 1 2 3 4 5 6 7 8 9; do echo x >> f$i.txt; done; echo n > new.txt' >/dev/null
git nudge apply t1 >/dev/null`
	if err := b.must(b.work, script); err != nil {
		return err
	}
	tasks := filepath.Join(dir, ".nudgethis", "tasks")
	rec, err := os.ReadFile(filepath.Join(tasks, "t1.json"))
	if err != nil {
		return err
	}
	states := []string{"ready", "undone", "applied", "saved", "failed"}
	for i := 2; i <= n; i++ {
		r := strings.Replace(string(rec), `"id": "t1"`, fmt.Sprintf(`"id": "t%d"`, i), 1)
		r = strings.Replace(r, `"state": "applied"`, `"state": "`+states[i%len(states)]+`"`, 1)
		r = strings.Replace(r, `"note": "edit ten files"`, fmt.Sprintf(`"note": "task number %d"`, i), 1)
		if err := os.WriteFile(filepath.Join(tasks, fmt.Sprintf("t%d.json", i)), []byte(r), 0o644); err != nil {
			return err
		}
	}
	sdir := filepath.Join(b.work, "stashlist")
	script = `set -e
rm -rf ` + sdir + ` && git init -q ` + sdir + ` && cd ` + sdir + `
echo base > f.txt && git add -A && git commit -qm base
i=0; while [ $i -lt ` + strconv.Itoa(n) + ` ]; do echo "wip $i" >> f.txt; git stash store -m "wip $i" "$(git stash create)"; i=$((i+1)); done
git reset -q --hard`
	if err := b.must(b.work, script); err != nil {
		return err
	}
	got, err := b.alternate(dir,
		step{cmd: "git nudge list >/dev/null"},
		step{cmd: "cd " + sdir + " && git stash list >/dev/null"})
	if err != nil {
		return err
	}
	b.rows = append(b.rows, row{name: fmt.Sprintf("git nudge list, %d tasks", n), ours: got[0], base: got[1],
		baseName: fmt.Sprintf("git stash list, %d entries", n), target: "<= 1.5x"})

	// What the tasks ever made cost a mutating command (its lock's
	// reconciling, the quiet-records cache): a snapshot there against one
	// in a copy of the workspace that keeps only t1.
	one := filepath.Join(b.work, "tasklist-one")
	script = `set -e
rm -rf ` + one + ` && cp -a ` + dir + ` ` + one + `
find ` + one + `/.nudgethis/tasks -name 't*.json' ! -name t1.json -delete
rm -f ` + one + `/.nudgethis/quiet-records`
	if err := b.must(b.work, script); err != nil {
		return err
	}
	got, err = b.alternate(dir,
		step{cmd: "git nudge snapshot >/dev/null"},
		step{cmd: "cd " + one + " && git nudge snapshot >/dev/null"})
	if err != nil {
		return err
	}
	b.rows = append(b.rows, row{name: fmt.Sprintf("snapshot with %d tasks made", n), ours: got[0], base: got[1],
		baseName: "snapshot with 1 task made", target: "(info)"})
	return b.retain(dir, n)
}

// retain: git nudge du with n tasks, each with its own snapshot and
// result refs (under 1 s), against git's own measure of every object;
// and what automatic pruning (nudge.retention) adds to the command that
// triggers it, when it is due and finds nothing old (the daily case), and
// when it is not due (every other command), against the same command
// without the setting (under 5%).
func (b *bench) retain(dir string, n int) error {
	script := `set -e
base=$(git rev-parse HEAD)
i=2; while [ $i -le ` + strconv.Itoa(n) + ` ]; do
	printf 'commit refs/nudgethis/results/t%d\ncommitter B <b@example.com> 1700000000 +0000\ndata 7\nresult\nfrom %s\nM 100644 inline r%d.txt\ndata <<EOF\nresult of task %d\nEOF\n\nreset refs/nudgethis/snapshots/t%d\nfrom %s\n\n' $i $base $i $i $i $base
	i=$((i+1))
done | git fast-import --quiet`
	if err := b.must(dir, script); err != nil {
		return err
	}
	got, err := b.alternate(dir,
		step{cmd: "git nudge du >/dev/null"},
		step{cmd: "git rev-list --objects --all --disk-usage >/dev/null"})
	if err != nil {
		return err
	}
	b.rows = append(b.rows, row{name: fmt.Sprintf("git nudge du, %d tasks", n), ours: got[0], base: got[1],
		baseName: "git rev-list --objects --all --disk-usage", target: "< 1 s"})

	// The setting is in the repository's config, as a user sets it (with
	// git -c every setting would be read by a git process, on both sides).
	stamp := filepath.Join(dir, ".nudgethis", "prune-stamp")
	on := func(int) error { return b.must(dir, "git config nudge.retention 3650d") }
	due := func(r int) error { os.Remove(stamp); return on(r) }
	off := func(int) error { return b.must(dir, "git config --unset nudge.retention; true") }
	defer off(0)
	got, err = b.alternate(dir,
		step{prep: due, cmd: "git nudge snapshot >/dev/null"},
		step{prep: off, cmd: "git nudge snapshot >/dev/null"})
	if err != nil {
		return err
	}
	b.rows = append(b.rows, row{name: fmt.Sprintf("snapshot with automatic pruning due, %d tasks", n), ours: got[0], base: got[1],
		baseName: "snapshot without nudge.retention", target: "< 1.05x"})
	printCPU("snapshot with automatic pruning due vs without nudge.retention", got[0], got[1])
	got, err = b.alternate(dir,
		step{prep: on, cmd: "git nudge snapshot >/dev/null"},
		step{prep: off, cmd: "git nudge snapshot >/dev/null"})
	if err != nil {
		return err
	}
	b.rows = append(b.rows, row{name: "snapshot with automatic pruning not due", ours: got[0], base: got[1],
		baseName: "snapshot without nudge.retention", target: "< 1.05x"})
	return nil
}

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

// printRSS compares the peak memory of snapshot, apply+undo and checkpoint
// with git status's (target: under 2x), per repository size.
func (b *bench) printRSS() {
	status := map[string]int64{}
	for _, r := range b.rows {
		if strings.HasPrefix(r.name, "snapshot, ") && r.baseName == "git status --porcelain" {
			status[strings.TrimPrefix(r.name, "snapshot, ")] = r.base.maxKB
		}
	}
	fmt.Println()
	fmt.Println("| peak RSS | ours | git status --porcelain | ratio (target < 2x) |")
	fmt.Println("|---|---|---|---|")
	for _, r := range b.rows {
		for size, kb := range status {
			if !strings.HasSuffix(r.name, ", "+size) || kb == 0 || r.target == "< 1x" {
				continue
			}
			if strings.HasPrefix(r.name, "snapshot, ") || strings.HasPrefix(r.name, "apply+undo 50 files, ") || strings.HasPrefix(r.name, "checkpoint, ") {
				fmt.Printf("| %s | %.1f MiB | %.1f MiB | %.2fx |\n", r.name, float64(r.ours.maxKB)/1024, float64(kb)/1024, float64(r.ours.maxKB)/float64(kb))
			}
		}
	}
}

// taskStart: git nudge run -- true (snapshot, start, capture) taking a
// pooled worktree vs a fresh git worktree add --detach of HEAD (target:
// <= 0.3x). Between rounds, untimed, the baseline's worktree is removed
// and the task dropped, which parks its worktree for the next round.
func (b *bench) taskStart(dir string, n int) error {
	last := filepath.Join(b.work, fmt.Sprintf("pool-last-%d", n))
	base := filepath.Join(b.work, fmt.Sprintf("wt-base-%d", n))
	if err := b.must(dir, "git config nudge.pool 1 && git nudge pool clear >/dev/null && git nudge pool fill >/dev/null"); err != nil {
		return err
	}
	// The baseline's worktree stays until the work folder goes (removing
	// 100,000 files here would only delay the report).
	defer b.must(dir, "git nudge drop $(cat "+last+") >/dev/null 2>&1; git config --unset nudge.pool")
	got, err := b.alternate(dir,
		step{prep: func(int) error {
			return b.must(dir, "git worktree remove --force "+base+" 2>/dev/null; true")
		}, cmd: "git worktree add -q --detach " + base + " HEAD"},
		step{prep: func(int) error {
			return b.must(dir, "{ [ ! -s "+last+" ] || git nudge drop $(cat "+last+") >/dev/null; } && git nudge pool --json | grep -q '\"name\"' || { echo 'no pooled worktree to take'; exit 1; }")
		}, cmd: "git nudge run -- true 2>&1 | sed -n 's/^git nudge: \\(t[0-9]*\\) .*/\\1/p' | head -1 > " + last})
	if err != nil {
		return err
	}
	b.rows = append(b.rows, row{name: fmt.Sprintf("run -- true with a pooled worktree, %d files", n), ours: got[1], base: got[0],
		baseName: "git worktree add --detach", target: "<= 0.3x"})
	printCPU(fmt.Sprintf("pooled run -- true vs git worktree add, %d files", n), got[1], got[0])
	return nil
}

// printCPU writes to stderr, round by round, the user+system CPU seconds
// of ours and the baseline, their ratio and the load average: under a
// loaded machine CPU time compares more fairly than wall time.
func printCPU(name string, ours, base sample) {
	load, _ := os.ReadFile("/proc/loadavg")
	for i := range ours.cpu {
		if i >= len(base.cpu) {
			break
		}
		fmt.Fprintf(os.Stderr, "%s, round %d: wall %.1f s vs %.1f s (%.2fx); CPU %.2f s vs %.2f s (%.2fx); load %s\n",
			name, i+1, ours.times[i].Seconds(), base.times[i].Seconds(), ours.times[i].Seconds()/base.times[i].Seconds(),
			ours.cpu[i].Seconds(), base.cpu[i].Seconds(), ours.cpu[i].Seconds()/base.cpu[i].Seconds(), strings.TrimSpace(string(load)))
	}
}

// sandboxRun: git nudge run --sandbox -- true (bubblewrap, or the
// Landlock fallback where it cannot run) against git nudge run -- true,
// each taking a pooled worktree (target: <= 1.5x). Between rounds,
// untimed, the last task is dropped (an unsandboxed task's worktree is
// parked, a sandboxed one's removed) and the pool filled again.
func (b *bench) sandboxRun(dir string, n int) error {
	last := filepath.Join(b.work, fmt.Sprintf("sandbox-last-%d", n))
	if err := b.must(dir, "git config nudge.pool 1 && git nudge pool clear >/dev/null && git nudge pool fill >/dev/null"); err != nil {
		return err
	}
	defer b.must(dir, "git nudge drop $(cat "+last+") >/dev/null 2>&1; git config --unset nudge.pool")
	prep := func(int) error {
		return b.must(dir, "{ [ ! -s "+last+" ] || git nudge drop $(cat "+last+") >/dev/null; } && git nudge pool fill >/dev/null && git nudge pool --json | grep -q '\"name\"' || { echo 'no pooled worktree to take'; exit 1; }")
	}
	keep := " 2>&1 | sed -n 's/^git nudge: \\(t[0-9]*\\) .*/\\1/p' | head -1 > " + last
	got, err := b.alternate(dir,
		step{prep: prep, cmd: "git nudge run -- true" + keep},
		step{prep: prep, cmd: "git nudge run --sandbox -- true" + keep})
	if err != nil {
		return err
	}
	b.rows = append(b.rows, row{name: fmt.Sprintf("run --sandbox -- true with a pooled worktree, %d files", n), ours: got[1], base: got[0],
		baseName: "git nudge run -- true, same", target: "<= 1.5x"})
	return nil
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

// runnerRows: the ssh runner's per-task overhead (git nudge run --on an
// ssh runner -- true, a pooled worktree, the snapshot already in the
// cache there) against ssh HOST true plus git nudge run -- true, with the
// shared connection warm (a task within a minute of the last) and cold
// (closed before each round); and git nudge run --attempts 8 -- true
// against --attempts 1, each attempt taking a pooled worktree.
func (b *bench) runnerRows(dir string, n int) error {
	last := filepath.Join(b.work, fmt.Sprintf("runner-last-%d", n))
	keep := " 2>&1 | sed -n 's/^git nudge: \\(t[0-9]*\\) .*/\\1/p' | sort -u > " + last
	dropLast := "{ [ ! -s " + last + " ] || git nudge drop $(cat " + last + ") >/dev/null; }"
	fill := func(k int) func(int) error {
		return func(int) error {
			return b.must(dir, fmt.Sprintf("%s && git config nudge.pool %d && git nudge pool fill >/dev/null", dropLast, k))
		}
	}
	if err := b.must(dir, "git nudge pool clear >/dev/null"); err != nil {
		return err
	}
	defer b.must(dir, dropLast+" 2>&1; git config --unset nudge.pool")
	if host := *sshHost; host != "" {
		if err := b.must(dir, "git config nudge.runner.far.type ssh && git config nudge.runner.far.host "+host+" && git config nudge.runner.far.path .cache/git-nudge-bench && git nudge run --on far -- true >/dev/null 2>&1"); err != nil {
			return err
		}
		closeShared := func(r int) error {
			if err := fill(1)(r); err != nil {
				return err
			}
			return b.must(dir, "for s in ${TMPDIR:-/tmp}/git-nudge-ssh-$(id -u)/*; do [ -S \"$s\" ] && ssh -o ControlPath=\"$s\" -O exit x 2>/dev/null; done; true")
		}
		got, err := b.alternate(dir,
			step{prep: fill(1), cmd: "git nudge run -- true" + keep},
			step{cmd: "ssh -o BatchMode=yes " + host + " true"},
			step{prep: fill(1), cmd: "git nudge run --on far -- true" + keep},
			step{prep: closeShared, cmd: "git nudge run --on far -- true" + keep})
		if err != nil {
			return err
		}
		b.rows = append(b.rows, row{name: fmt.Sprintf("run --on an ssh runner -- true, snapshot in the cache, connection shared, %d files", n), ours: got[2], base: got[0].plus(got[1]),
			baseName: "ssh HOST true + git nudge run -- true", target: "<= 1.3x"})
		b.rows = append(b.rows, row{name: fmt.Sprintf("run --on an ssh runner -- true, snapshot in the cache, first connection, %d files", n), ours: got[3], base: got[0].plus(got[1]),
			baseName: "ssh HOST true + git nudge run -- true", target: "(info)"})
	}
	if !*attemptsRow {
		return nil
	}
	got, err := b.alternate(dir,
		step{prep: fill(1), cmd: "git nudge run --attempts 1 -- true" + keep},
		step{prep: fill(8), cmd: "git nudge run --attempts 8 -- true" + keep})
	if err != nil {
		return err
	}
	b.rows = append(b.rows, row{name: fmt.Sprintf("run --attempts 8 -- true, pooled worktrees, %d files", n), ours: got[1], base: got[0],
		baseName: "run --attempts 1 -- true", target: "< 2x"})
	return nil
}

// containerRun: git nudge run --on a podman container runner -- true
// against its parts done by hand: podman run --rm IMAGE true plus git
// nudge run -- true (the worktree start, capture and record), each task
// taking a pooled worktree (target: <= 1.3x). Podman runs with
// CONTAINERS_CONF as the caller set it.
func (b *bench) containerRun(dir string, n int) error {
	image := *containerImage
	if image == "" {
		image = "localhost/nudge-test:1"
	}
	last := filepath.Join(b.work, fmt.Sprintf("container-last-%d", n))
	if err := b.must(dir, "git config nudge.pool 1 && git nudge pool clear >/dev/null && git nudge pool fill >/dev/null && git config nudge.runner.box.type container && git config nudge.runner.box.engine podman && git config nudge.runner.box.image "+image); err != nil {
		return err
	}
	defer b.must(dir, "git nudge drop $(cat "+last+") >/dev/null 2>&1; git config --unset nudge.pool")
	prep := func(int) error {
		return b.must(dir, "{ [ ! -s "+last+" ] || git nudge drop $(cat "+last+") >/dev/null; } && git nudge pool fill >/dev/null && git nudge pool --json | grep -q '\"name\"' || { echo 'no pooled worktree to take'; exit 1; }")
	}
	keep := " 2>&1 | sed -n 's/^git nudge: \\(t[0-9]*\\) .*/\\1/p' | head -1 > " + last
	got, err := b.alternate(dir,
		step{prep: prep, cmd: "git nudge run -- true" + keep},
		step{cmd: "podman run --rm --network none " + image + " true"},
		step{prep: prep, cmd: "git nudge run --on box -- true" + keep})
	if err != nil {
		return err
	}
	b.rows = append(b.rows, row{name: fmt.Sprintf("run --on a podman runner -- true, pooled worktree, %d files", n), ours: got[2], base: got[0].plus(got[1]),
		baseName: "podman run --rm IMAGE true + git nudge run -- true", target: "<= 1.3x"})
	b.rows = append(b.rows, row{name: "podman run --rm IMAGE true alone", ours: got[1], base: got[0],
		baseName: "git nudge run -- true, pooled", target: "-"})
	return nil
}
