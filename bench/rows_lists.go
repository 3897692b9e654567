package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Rows of checkpoints, restores, lists, the operation log and retention.

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

// taskWorkspace makes a 30-file repository whose workspace holds n
// tasks: copies of one real record (a 10-file patch, applied, so its undo
// record is filled in) under other ids, notes and states.
func (b *bench) taskWorkspace(n int) (string, error) {
	dir := filepath.Join(b.work, "tasklist")
	fmt.Fprintf(os.Stderr, "generating %d tasks\n", n)
	script := `set -e
rm -rf ` + dir + ` && git init -q ` + dir + ` && cd ` + dir + `
i=0; while [ $i -lt 30 ]; do echo "line $i" > f$i.txt; i=$((i+1)); done
git add -A && git commit -qm base
git nudge run -m 'edit ten files' -- sh -c 'for i in 0 1 2 3 4 5 6 7 8 9; do echo x >> f$i.txt; done; echo n > new.txt' >/dev/null
git nudge apply t1 >/dev/null`
	if err := b.must(b.work, script); err != nil {
		return "", err
	}
	tasks := filepath.Join(dir, ".nudgethis", "tasks")
	rec, err := os.ReadFile(filepath.Join(tasks, "t1.json"))
	if err != nil {
		return "", err
	}
	states := []string{"ready", "undone", "applied", "saved", "failed"}
	for i := 2; i <= n; i++ {
		r := strings.Replace(string(rec), `"id": "t1"`, fmt.Sprintf(`"id": "t%d"`, i), 1)
		r = strings.Replace(r, `"state": "applied"`, `"state": "`+states[i%len(states)]+`"`, 1)
		r = strings.Replace(r, `"note": "edit ten files"`, fmt.Sprintf(`"note": "task number %d"`, i), 1)
		if err := os.WriteFile(filepath.Join(tasks, fmt.Sprintf("t%d.json", i)), []byte(r), 0o644); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// taskList: git nudge list of n tasks (taskWorkspace) vs git stash list
// of n entries.
func (b *bench) taskList(n int) error {
	dir, err := b.taskWorkspace(n)
	if err != nil {
		return err
	}
	sdir := filepath.Join(b.work, "stashlist")
	fmt.Fprintf(os.Stderr, "generating %d stash entries\n", n)
	script := `set -e
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
	return b.autoPrune(dir, n)
}

// autoPrune: what automatic pruning adds to the command that triggers it:
// for nudge.retention, `git nudge snapshot` in dir (a workspace of n tasks,
// none older than the setting's 3650d): when it is due and finds nothing
// old (the daily case: the prune stamp removed before each round), and
// when it is not due (every other command), each against the same command
// without the setting, alternated round by round. The rows compare wall
// times; the CPU row (user + system of the command and its git processes)
// compares more fairly on a loaded machine. Then the same for
// autodev.retention and git autodev checkpoint.
func (b *bench) autoPrune(dir string, n int) error {
	// The setting is in the repository's config, as a user sets it (with
	// git -c every setting would be read by a git process, on both sides).
	stamp := filepath.Join(dir, ".nudgethis", "prune-stamp")
	on := func(int) error { return b.must(dir, "git config nudge.retention 3650d") }
	due := func(r int) error { os.Remove(stamp); return on(r) }
	off := func(int) error { return b.must(dir, "git config --unset nudge.retention; true") }
	defer off(0)
	got, err := b.alternate(dir,
		step{prep: due, cmd: "git nudge snapshot >/dev/null"},
		step{prep: off, cmd: "git nudge snapshot >/dev/null"})
	if err != nil {
		return err
	}
	b.pruneRows(fmt.Sprintf("snapshot with automatic pruning due (nothing old), %d tasks", n),
		fmt.Sprintf("same, CPU time (user + system, with its git processes), %d tasks", n),
		"snapshot without nudge.retention", got)
	printCPU("snapshot with automatic pruning due vs without nudge.retention", got[0], got[1])
	printPairedCPU("snapshot with automatic pruning due vs without nudge.retention", got[0], got[1])
	got, err = b.alternate(dir,
		step{prep: on, cmd: "git nudge snapshot >/dev/null"},
		step{prep: off, cmd: "git nudge snapshot >/dev/null"})
	if err != nil {
		return err
	}
	b.rows = append(b.rows, row{name: "snapshot with automatic pruning not due", ours: got[0], base: got[1],
		baseName: "snapshot without nudge.retention", target: "< 1.05x"})

	// git autodev checkpoint (one file changed) with autodev.retention
	// due, none of 50 checkpoints old, against the same without the
	// setting.
	if err := b.must(dir, `set -e
i=0; while [ $i -lt 50 ]; do echo $i > autoprune.txt; git autodev checkpoint -m 'bench setup' >/dev/null; i=$((i+1)); done`); err != nil {
		return err
	}
	adStamp := filepath.Join(dir, ".autodev", "prune-stamp")
	edits := 0
	edit := func() error {
		edits++
		return os.WriteFile(filepath.Join(dir, "autoprune.txt"), []byte(strconv.Itoa(edits)+"\n"), 0o644)
	}
	adDue := func(int) error {
		os.Remove(adStamp)
		if err := edit(); err != nil {
			return err
		}
		return b.must(dir, "git config autodev.retention 3650d")
	}
	adOff := func(int) error {
		if err := edit(); err != nil {
			return err
		}
		return b.must(dir, "git config --unset autodev.retention; true")
	}
	defer adOff(0)
	got, err = b.alternate(dir,
		step{prep: adDue, cmd: "git autodev checkpoint -m 'bench round' >/dev/null"},
		step{prep: adOff, cmd: "git autodev checkpoint -m 'bench round' >/dev/null"})
	if err != nil {
		return err
	}
	b.pruneRows("checkpoint with automatic pruning due (nothing old), 50 checkpoints",
		"same, CPU time (user + system, with its git processes)",
		"checkpoint without autodev.retention", got)
	printPairedCPU("checkpoint with automatic pruning due vs without autodev.retention", got[0], got[1])
	return nil
}

// pruneRows adds the wall-time row name and the CPU-time row cpuName of
// got (the command with automatic pruning, then baseName without it),
// each with the target of automatic pruning, under 5% more.
func (b *bench) pruneRows(name, cpuName, baseName string, got []sample) {
	b.rows = append(b.rows,
		row{name: name, ours: got[0], base: got[1], baseName: baseName, target: "< 1.05x"},
		row{name: cpuName, ours: sample{times: got[0].cpu}, base: sample{times: got[1].cpu},
			baseName: baseName + ", CPU time", target: "< 1.05x"})
}

// autoPruneOnly: the autoPrune rows alone, in a workspace of n tasks whose
// records are settled and listed in the quiet-records cache, as in a
// workspace used for a while.
func (b *bench) autoPruneOnly(n int) error {
	dir, err := b.taskWorkspace(n)
	if err != nil {
		return err
	}
	time.Sleep(3 * time.Second) // the records older than journal.Racy
	if err := b.must(dir, "git nudge snapshot >/dev/null"); err != nil {
		return err
	}
	return b.autoPrune(dir, n)
}

// printPairedCPU writes to stderr the median of the round-by-round CPU
// differences (ours minus the baseline run next to it) and its share of
// the baseline's median: pairing each round with its neighbour cancels
// most of a loaded machine's drift, which the medians of each side keep.
func printPairedCPU(name string, ours, base sample) {
	var d sample
	for i := range ours.cpu {
		if i < len(base.cpu) {
			d.times = append(d.times, ours.cpu[i]-base.cpu[i])
		}
	}
	m, b := d.median(), sample{times: base.cpu}.median()
	if b == 0 {
		return
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Fprintf(os.Stderr, "%s: median per-round CPU difference %+.1f ms (%+.1f%% of %.1f ms), %d rounds; load %s\n",
		name, float64(m)/1e6, float64(m)/float64(b)*100, float64(b)/1e6, len(d.times), strings.TrimSpace(string(load)))
}
