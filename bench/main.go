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
	"flag"
	"fmt"
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
	autoPruneFlag  = flag.Bool("autoprune-only", false, "measure only what automatic pruning adds to the command that triggers it: a snapshot in a workspace with -tasks tasks, due (nothing old to prune) and not due, against the same snapshot without nudge.retention; a checkpoint, due (nothing old), against one without autodev.retention")
	sandboxOnly    = flag.Bool("sandbox-only", false, "measure only git nudge run --sandbox -- true against git nudge run -- true, each with a pooled worktree")
	containerOnly  = flag.Bool("container-only", false, "measure only git nudge run --on a container runner -- true against podman run --rm IMAGE true plus git nudge run -- true (a pooled worktree)")
	containerImage = flag.String("container-image", "", "image for the container runner rows (e.g. localhost/nudge-test:1, which the runner_container scenario builds); empty: the rows are skipped unless -container-only; with -runner-only and -ssh-host, also the mixed rows: four tasks at once across a podman and an ssh runner against one alone")
	runnerOnly     = flag.Bool("runner-only", false, "measure only the runner rows: git nudge run --on an ssh runner (with -ssh-host) and run --attempts 8 against --attempts 1")
	attemptsRow    = flag.Bool("attempts", true, "with -runner-only: also measure run --attempts 8 against --attempts 1 (the time until every command has started, and the whole run)")
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
	if *autoPruneFlag {
		if err := b.autoPruneOnly(*tasksN); err != nil {
			return err
		}
		b.print(time.Since(start))
		return nil
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
	// measure, when set, is called after each timed round and its
	// figure added to extra: a time the command itself wrote down.
	measure func() (time.Duration, error)
	extra   *sample
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
			if r > 0 && s.measure != nil {
				m, err := s.measure()
				if err != nil {
					return nil, err
				}
				s.extra.add(m, 0)
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
