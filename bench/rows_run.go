package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Rows of starting and running tasks: the pool, the sandbox and the runners.

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
		if *containerImage != "" {
			if err := b.mixedRows(dir, n, *containerImage); err != nil {
				return err
			}
		}
	}
	if !*attemptsRow {
		return nil
	}
	return b.attemptRows(dir, n, last, keep, dropLast)
}

// attemptRows: git nudge run --attempts 8 against --attempts 1, each
// attempt taking a pooled worktree that pool fill made (the pool
// emptied and filled to the number of attempts before each round,
// untimed: a pool over its bound would have the run evict and delete
// the extra worktrees inside the timed command). The row the target names is the
// start: from the launch until the last attempt's command has begun,
// each command appending a nanosecond timestamp to a file outside the
// worktrees, the launch one written by date just before git nudge
// starts. The whole run (start, command, capture and record of every
// attempt) is an (info) row beside it.
func (b *bench) attemptRows(dir string, n int, last, keep, dropLast string) error {
	fill := func(k int) func(int) error {
		return func(int) error {
			return b.must(dir, fmt.Sprintf("%s && git nudge pool clear >/dev/null && git config nudge.pool %d && while git nudge pool fill | grep -q '^Added'; do :; done && [ $(git nudge pool --json | grep -o '\"name\"' | wc -l) -ge %d ] || { echo 'the pool holds fewer than %d worktrees'; exit 1; }", dropLast, k, k, k))
		}
	}
	steps := make([]step, 2)
	starts := make([]sample, 2)
	for i, k := range []int{1, 8} {
		launch := filepath.Join(b.work, fmt.Sprintf("attempts-launch-%d-%d", n, k))
		began := filepath.Join(b.work, fmt.Sprintf("attempts-began-%d-%d", n, k))
		steps[i] = step{prep: fill(k),
			cmd:     fmt.Sprintf("rm -f %s && date +%%s%%N > %s && git nudge run --attempts %d -- sh -c 'date +%%s%%N >> %s'%s", began, launch, k, began, keep),
			extra:   &starts[i],
			measure: func() (time.Duration, error) { return latestSince(launch, began, k) }}
	}
	got, err := b.alternate(dir, steps...)
	if err != nil {
		return err
	}
	b.rows = append(b.rows, row{name: fmt.Sprintf("run --attempts 8: all 8 commands started, pooled worktrees, %d files", n), ours: starts[1], base: starts[0],
		baseName: "run --attempts 1: its command started", target: "< 2x"})
	b.rows = append(b.rows, row{name: fmt.Sprintf("run --attempts 8 -- CMD, whole run, pooled worktrees, %d files", n), ours: got[1], base: got[0],
		baseName: "run --attempts 1 -- CMD, whole run", target: "(info)"})
	return nil
}

// latestSince reads the launch timestamp (nanoseconds, one line) and
// the k start timestamps appended to began, and returns the time from
// the launch to the latest start.
func latestSince(launch, began string, k int) (time.Duration, error) {
	read := func(name string) ([]int64, error) {
		b, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		var out []int64
		for _, f := range strings.Fields(string(b)) {
			v, err := strconv.ParseInt(f, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", name, err)
			}
			out = append(out, v)
		}
		return out, nil
	}
	l, err := read(launch)
	if err != nil || len(l) != 1 {
		return 0, fmt.Errorf("reading the launch time: %v", err)
	}
	s, err := read(began)
	if err != nil {
		return 0, err
	}
	if len(s) != k {
		return 0, fmt.Errorf("%d of %d attempts' commands started", len(s), k)
	}
	return time.Duration(slices.Max(s) - l[0]), nil
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

// mixedSleep is how long each task of the mixed rows sleeps: long enough
// that the tasks' wall time is mostly their commands'.
const mixedSleep = 5

// mixedRows: four tasks of one workspace at once across both runners, two
// in Podman containers and two over ssh, each a sleep-bound command, run
// by git nudge work --max 4, against one such task alone on each runner
// run by git nudge work (target: the four in under 2x one). Every task
// takes a pooled worktree; the queueing is not timed. A task that does
// not end ready fails the bench.
func (b *bench) mixedRows(dir string, n int, image string) error {
	last := filepath.Join(b.work, fmt.Sprintf("mixed-last-%d", n))
	out := filepath.Join(b.work, fmt.Sprintf("mixed-out-%d", n))
	dropLast := "{ [ ! -s " + last + " ] || git nudge drop $(cat " + last + ") >/dev/null; }"
	if err := b.must(dir, "git config nudge.runner.box.type container && git config nudge.runner.box.engine podman && git config nudge.runner.box.image "+image); err != nil {
		return err
	}
	defer b.must(dir, dropLast+" 2>&1; git config --unset nudge.pool")
	task := fmt.Sprintf(" -- sleep %d >/dev/null", mixedSleep)
	queue := func(runners ...string) func(int) error {
		return func(int) error {
			script := fmt.Sprintf("%s && : > %s && git config nudge.pool %d && git nudge pool fill >/dev/null", dropLast, last, len(runners))
			for _, r := range runners {
				script += " && git nudge queue --on " + r + task
			}
			return b.must(dir, script)
		}
	}
	// The ids of the tasks work ran, for the next round to drop; work's
	// own exit status is kept (1 when a task did not end ready).
	work := func(max int) string {
		return fmt.Sprintf("git nudge work --max %d >%s 2>&1; s=$?; sed -n 's/^git nudge work: \\(t[0-9]*\\) started$/\\1/p' %s > %s; [ $s = 0 ] || cat %s; exit $s", max, out, out, last, out)
	}
	got, err := b.alternate(dir,
		step{prep: queue("far"), cmd: work(1)},
		step{prep: queue("box"), cmd: work(1)},
		step{prep: queue("box", "box", "far", "far"), cmd: work(4)})
	if err != nil {
		return err
	}
	name := fmt.Sprintf("work --max 4: 2 podman + 2 ssh tasks of sleep %d at once, pooled worktrees, %d files", mixedSleep, n)
	b.rows = append(b.rows, row{name: name, ours: got[2], base: got[0],
		baseName: "one ssh task alone (work)", target: "< 2x"})
	b.rows = append(b.rows, row{name: name, ours: got[2], base: got[1],
		baseName: "one podman task alone (work)", target: "< 2x"})
	return nil
}
