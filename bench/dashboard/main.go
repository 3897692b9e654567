// Command dashboard measures the dashboard at scale: with 1,000
// tasks and 10,000 checkpoints, how long each list API takes to answer
// and how long headless Chromium takes until the page shows every row.
//
//	go run ./bench/dashboard                 # 1,000 tasks, 10,000 checkpoints, 10 rounds
//	go run ./bench/dashboard -tasks 200 -checkpoints 2000
//
// The workspace is generated in a temporary folder: one real task (a
// snapshot and a captured result) whose record is copied to make the
// others, and a checkpoint journal whose entries all point at HEAD. The
// browser part needs chromium (or google-chrome) on PATH and is skipped
// without one.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/cli/dashboardcmd"
	"github.com/nudgethis/git-nudge/internal/cli/nudgecmd"
	"github.com/nudgethis/git-nudge/internal/dashboard"
	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/proc"
)

var (
	tasksN  = flag.Int("tasks", 1000, "tasks in the workspace")
	cpN     = flag.Int("checkpoints", 10000, "checkpoints in the journal")
	rounds  = flag.Int("rounds", 10, "rounds per API measurement (the median is reported)")
	keepDir = flag.Bool("keep", false, "keep the generated workspace and print where it is")
	profile = flag.String("cpuprofile", "", "write a CPU profile of the API rounds to this file")
	noPage  = flag.Bool("no-browser", false, "skip the headless Chromium measurement")
	marks   = flag.Bool("marks", false, "print the page's performance marks and API fetches for each load")
	largeMB = flag.Int("large-mb", 3, "MB of text changes in the large task (the last one), besides a 17 MiB file; 0: no large task")
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == proc.ReapArg {
		// A task's command runs under the reaper, which re-executes the
		// running binary: this one, since the bench runs git nudge in
		// process.
		os.Exit(proc.ReapMain(os.Args[2:]))
	}
	flag.Parse()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench/dashboard:", err)
		os.Exit(1)
	}
}

func git(dir string, args ...string) (string, error) {
	c := exec.Command("git", args...)
	c.Dir = dir
	c.Env = append(os.Environ(), "GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@localhost",
		"GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@localhost")
	out, err := c.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out)), nil
}

func cliRun(main func([]string, *cli.Env) int, dir string, args ...string) error {
	var out strings.Builder
	env := &cli.Env{Ctx: context.Background(), Stdin: strings.NewReader(""), Stdout: &out, Stderr: &out,
		Dir: dir, Getenv: os.Getenv, Environ: os.Environ, Now: time.Now}
	if code := main(args, env); code != 0 {
		return fmt.Errorf("%v: exit %d\n%s", args, code, out.String())
	}
	return nil
}

func generate(dir string) error {
	if _, err := git(dir, "init", "-q"); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("old\n"), 0o644); err != nil {
		return err
	}
	if _, err := git(dir, "add", "-A"); err != nil {
		return err
	}
	if _, err := git(dir, "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "first"); err != nil {
		return err
	}
	if err := cliRun(nudgecmd.Main, dir, "run", "-m", "task 1", "--", "sh", "-c", "echo new > a.txt"); err != nil {
		return err
	}
	tasks := filepath.Join(dir, ".nudgethis", "tasks")
	b, err := os.ReadFile(filepath.Join(tasks, "t1.json"))
	if err != nil {
		return err
	}
	var rec map[string]any
	if err := json.Unmarshal(b, &rec); err != nil {
		return err
	}
	last := *tasksN
	if *largeMB > 0 {
		last-- // the large task is a real one, made last
	}
	for i := 2; i <= last; i++ {
		rec["id"] = fmt.Sprintf("t%d", i)
		rec["note"] = fmt.Sprintf("task %d", i)
		rec["worktree"] = nil
		out, _ := json.MarshalIndent(rec, "", "  ")
		if err := os.WriteFile(filepath.Join(tasks, fmt.Sprintf("t%d.json", i)), out, 0o644); err != nil {
			return err
		}
	}
	if *largeMB > 0 {
		// About largeMB MB of added lines in a few files (the first over
		// the diff API's 1 MiB, so the patch is cut) and a 17 MiB file,
		// which diff names without its content.
		lines := *largeMB * 1000000 / 80
		script := fmt.Sprintf(`seq 1 %d | sed 's/$/ line of a generated file, long enough to be a realistic source line/' > big.txt; `+
			`for f in one two three four five six; do seq 1 300 | sed "s/$/ $f/" > small-$f.txt; done; `+
			`yes 'a line of a very large generated file, over the sixteen MiB that diff shows' | head -c 17825792 > huge.txt`, lines)
		if err := cliRun(nudgecmd.Main, dir, "run", "-m", "a large change", "--", "sh", "-c", script); err != nil {
			return err
		}
		if _, err := os.Stat(filepath.Join(tasks, fmt.Sprintf("t%d.json", *tasksN))); err != nil {
			return fmt.Errorf("the large task is not t%d: %w", *tasksN, err)
		}
	}
	head, err := git(dir, "rev-parse", "HEAD")
	if err != nil {
		return err
	}
	ad := filepath.Join(dir, ".autodev")
	if err := os.MkdirAll(ad, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(ad, ".gitignore"), []byte("*\n"), 0o644); err != nil {
		return err
	}
	entries := make([]map[string]any, *cpN)
	start := time.Now().Add(-time.Duration(*cpN) * time.Minute)
	for i := range entries {
		entries[i] = map[string]any{"id": fmt.Sprintf("c%d", i+1), "commit": head, "label": fmt.Sprintf("thread — step %d", i+1),
			"type": "task", "time": start.Add(time.Duration(i) * time.Minute).UTC().Format(time.RFC3339), "task": nil, "mode": nil}
	}
	out, _ := json.Marshal(entries)
	return os.WriteFile(filepath.Join(ad, "checkpoints.json"), out, 0o644)
}

func median(d []time.Duration) time.Duration {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[len(d)/2]
}

func run() error {
	dir, err := os.MkdirTemp("", "bench-dashboard-")
	if err != nil {
		return err
	}
	if *keepDir {
		fmt.Println("workspace:", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	t0 := time.Now()
	if err := generate(dir); err != nil {
		return err
	}
	fmt.Printf("generated %d tasks and %d checkpoints in %s\n", *tasksN, *cpN, time.Since(t0).Round(time.Millisecond))

	s, err := dashboard.New(context.Background(), dashboard.Options{Dir: dir, Shapes: dashboardcmd.Shapes()})
	if err != nil {
		return err
	}
	l, err := s.Listen(0)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: s.Handler()}
	go hs.Serve(l)
	defer func() { s.Close(); _ = hs.Close() }()
	base := fmt.Sprintf("http://127.0.0.1:%d", s.Port())

	if *profile != "" {
		f, err := os.Create(*profile)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	// cpu is the CPU time (user+sys) of this process and of the git
	// processes it waited for: unlike the answer's wall time, other load
	// on the machine does not change it.
	cpu := func() time.Duration {
		var self, kids syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
		_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
		return time.Duration(self.Utime.Nano() + self.Stime.Nano() + kids.Utime.Nano() + kids.Stime.Nano())
	}
	cpuOf := map[string][]time.Duration{}
	get := func(p string) (time.Duration, int, error) {
		req, _ := http.NewRequest("GET", base+p, nil)
		req.Header.Set("Authorization", "Bearer "+s.Token())
		start, c0 := time.Now(), cpu()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, 0, err
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			return 0, 0, fmt.Errorf("%s: %d %s", p, resp.StatusCode, b)
		}
		cpuOf[p] = append(cpuOf[p], cpu()-c0)
		return time.Since(start), len(b), nil
	}
	apis := []string{"/api/nudge/tasks", "/api/autodev/checkpoints", "/api/autodev/status"}
	// The first answer after the files were written decodes them all; the
	// server keeps what it decoded while the files stay the same, once
	// they are older than journal.Racy (see internal/dashboard/cache.go).
	first := map[string]time.Duration{}
	for _, p := range apis {
		d, _, err := get(p)
		if err != nil {
			return err
		}
		first[p] = d
	}
	time.Sleep(journal.Racy + 100*time.Millisecond)
	// What a run does: one more checkpoint, one task record rewritten
	// (both by rename, as the journals are written); the answer right
	// after such a change decodes only what changed.
	after := map[string][]time.Duration{}
	firstCPU := map[string]time.Duration{}
	for _, p := range apis {
		firstCPU[p] = cpuOf[p][0]
		cpuOf[p] = nil
	}
	for i := 0; i < 5; i++ {
		if err := changeOne(dir, *cpN+1+i); err != nil {
			return err
		}
		for _, p := range apis {
			d, _, err := get(p)
			if err != nil {
				return err
			}
			after[p] = append(after[p], d)
		}
	}
	afterCPU := map[string]time.Duration{}
	for _, p := range apis {
		afterCPU[p] = median(cpuOf[p])
		cpuOf[p] = nil
	}
	time.Sleep(journal.Racy + 100*time.Millisecond)
	fmt.Printf("\nAnswer time (CPU time of the server and its git processes in brackets):\n")
	fmt.Printf("\n| API | first answer, every file new | after one checkpoint and one task changed (median of 5) | unchanged (median of %d) | size |\n|---|---|---|---|---|\n", *rounds)
	for _, p := range apis {
		var times []time.Duration
		var size int
		for i := 0; i < *rounds+1; i++ {
			d, n, err := get(p)
			if err != nil {
				return err
			}
			if i > 0 { // the first round warms up
				times = append(times, d)
			}
			size = n
		}
		r := func(d time.Duration) time.Duration { return d.Round(100 * time.Microsecond) }
		fmt.Printf("| GET %s | %s (%s) | %s (%s) | %s (%s) | %d KiB |\n", p, r(first[p]), r(firstCPU[p]), r(median(after[p])), r(afterCPU[p]),
			r(median(times)), r(median(cpuOf[p])), size/1024)
	}
	if *largeMB > 0 {
		for _, p := range []string{fmt.Sprintf("/api/nudge/tasks/t%d", *tasksN), fmt.Sprintf("/api/nudge/tasks/t%d/diff", *tasksN)} {
			var times []time.Duration
			var size int
			for i := 0; i < *rounds+1; i++ {
				d, n, err := get(p)
				if err != nil {
					return err
				}
				if i > 0 {
					times = append(times, d)
				}
				size = n
			}
			fmt.Printf("| GET %s (the large task) | | | %s (%s) | %d KiB |\n", p, median(times).Round(100*time.Microsecond), median(cpuOf[p][1:]).Round(100*time.Microsecond), size/1024)
		}
	}
	if *noPage {
		return nil
	}
	return browser(s, base)
}

func browser(s *dashboard.Server, base string) error {
	var path string
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		fmt.Println("\nno Chromium on PATH: the page measurement is skipped")
		return nil
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.WindowSize(1360, 820))
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelA()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		return err
	}
	// Log in once (the page keeps the token in its tab), then time fresh loads of each page until
	// every row is there and the page answers a script.
	if err := chromedp.Do(ctx, chromedp.Navigate(s.URL("tasks"))); err != nil {
		return err
	}
	// A page counts as interactive once its newest rows are drawn and it
	// answers a script (chromedp's poll runs on the page's main thread).
	// The tasks page draws every row; the checkpoints page draws the rows
	// in view (a window that moves as it scrolls), so it is also timed
	// scrolling to the very end until the oldest checkpoint is drawn.
	poll := func(start time.Time, expr string) error {
		for {
			err := chromedp.Do(ctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(60*time.Second)))
			// The page may still be replacing its document's context:
			// ask again when it says so.
			if err == nil || !strings.Contains(err.Error(), "Cannot find context") || time.Since(start) > time.Minute {
				return err
			}
		}
	}
	fmt.Printf("\n| page (headless Chromium, median of 5) | interactive | scrolled to the oldest row |\n|---|---|---|\n")
	for _, pg := range []struct {
		hash, ready, oldest string
		n                   int
	}{
		{"#tasks", fmt.Sprintf(`document.querySelectorAll("#tasks tbody tr").length === %d && document.querySelector('#tasks tbody tr[data-id="t%d"]') !== null`, *tasksN, *tasksN), "", *tasksN},
		{"#checkpoints", fmt.Sprintf(`document.querySelector('#checkpoints tbody tr[data-id="c%d"]') !== null && document.querySelectorAll("#checkpoints tbody tr").length >= %d`, *cpN, min(*cpN, 20)),
			`document.querySelector('#checkpoints tbody tr[data-id="c1"]') !== null`, *cpN},
	} {
		var times, scrolls []time.Duration
		for i := 0; i < 6; i++ {
			if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
				return err
			}
			start := time.Now()
			// The token travels in the address of each load (the page
			// keeps no cookie).
			if err := chromedp.Do(ctx, chromedp.Navigate(s.URL(strings.TrimPrefix(pg.hash, "#"))+pg.hash)); err != nil {
				return fmt.Errorf("%s: %w", pg.hash, err)
			}
			if err := poll(start, pg.ready); err != nil {
				return fmt.Errorf("%s: %w", pg.hash, err)
			}
			d := time.Since(start)
			if pg.oldest != "" {
				t := time.Now()
				if _, err := chromedp.Run(ctx, chromedp.Evaluate[any]("window.scrollTo(0, document.documentElement.scrollHeight)")); err != nil {
					return err
				}
				if err := poll(t, pg.oldest); err != nil {
					return fmt.Errorf("%s scrolled to the end: %w", pg.hash, err)
				}
				if i > 0 {
					scrolls = append(scrolls, time.Since(t))
				}
			}
			if i > 0 {
				times = append(times, d)
			}
			if *marks {
				m, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify({nav: performance.timing.domInteractive - performance.timing.navigationStart, rows: document.querySelectorAll("tbody tr").length, marks: performance.getEntriesByType("mark").map(m => m.name + "@" + Math.round(m.startTime)), res: performance.getEntriesByType("resource").filter(r => r.name.includes("/api/")).map(r => r.name.replace(/.*\/api\//, "") + " " + Math.round(r.startTime) + "+" + Math.round(r.duration))})`))
				fmt.Println("   ", m)
			}
		}
		scrolled := "—"
		if len(scrolls) > 0 {
			scrolled = median(scrolls).Round(time.Millisecond).String()
		}
		fmt.Printf("| %s (%d rows) | %s | %s |\n", pg.hash, pg.n, median(times).Round(time.Millisecond), scrolled)
	}
	if *largeMB > 0 {
		return openLarge(ctx, s, poll)
	}
	return nil
}

// openLarge times opening the large task on the tasks page: a click on
// its row until its diff is drawn (the file list, the files that fit the
// page's line budget, the rest collapsed) and the page answers a script.
// The page's own marks give the part from the click's handler to the
// diff drawn, which leaves out chromedp's round trips.
func openLarge(ctx context.Context, s *dashboard.Server, poll func(time.Time, string) error) error {
	id := fmt.Sprintf("t%d", *tasksN)
	row := fmt.Sprintf(`#tasks tbody tr[data-id="%s"]`, id)
	where := fmt.Sprintf(`(() => { const e = document.querySelector(%q); e.scrollIntoView({block: "center"}); const r = e.getBoundingClientRect(); return [r.left + 20, r.top + r.height / 2]; })()`, row)
	drawn := fmt.Sprintf(`(() => { const d = document.querySelector('#diff[data-task="%s"]'); return d !== null && !d.hasAttribute("aria-busy") && d.querySelector("section.file") !== null; })()`, id)
	inPage := `(() => { const o = performance.getEntriesByName("task:open"), d = performance.getEntriesByName("diff:drawn"); return o.length && d.length ? d[d.length-1].startTime - o[o.length-1].startTime : -1; })()`
	var clicks, pages []time.Duration
	for i := 0; i < 6; i++ {
		if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
			return err
		}
		start := time.Now()
		if err := chromedp.Do(ctx, chromedp.Navigate(s.URL("tasks"))); err != nil {
			return err
		}
		if err := poll(start, fmt.Sprintf(`document.querySelector(%q) !== null`, row)); err != nil {
			return err
		}
		xy, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](where))
		if err != nil {
			return err
		}
		t := time.Now()
		if err := chromedp.Do(ctx, chromedp.MouseClickXY(xy[0], xy[1])); err != nil {
			return err
		}
		if err := poll(t, drawn); err != nil {
			return fmt.Errorf("opening %s: %w", id, err)
		}
		d := time.Since(t)
		ms, err := chromedp.Run(ctx, chromedp.Evaluate[float64](inPage))
		if err != nil {
			return err
		}
		if *marks {
			m, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify({rows: document.querySelectorAll("#diff tr").length, marks: performance.getEntriesByType("mark").filter(m => !m.name.startsWith("cp:")).map(m => m.name + "@" + Math.round(m.startTime)), res: performance.getEntriesByType("resource").filter(r => r.name.includes("/api/nudge/tasks/")).map(r => r.name.replace(/.*\/api\//, "") + " " + Math.round(r.startTime) + "+" + Math.round(r.duration) + " " + r.transferSize + "B")})`))
			fmt.Println("   ", m)
		}
		if i > 0 { // the first round warms up
			clicks = append(clicks, d)
			pages = append(pages, time.Duration(ms*float64(time.Millisecond)))
		}
	}
	fmt.Printf("\n| the large task (%d MB of changes and a 17 MiB file), headless Chromium, median of 5 | time |\n|---|---|\n", *largeMB)
	fmt.Printf("| click on its row until its diff is drawn and the page answers | %s |\n", median(clicks).Round(time.Millisecond))
	fmt.Printf("| the page's own marks: the row's handler to the diff drawn | %s |\n", median(pages).Round(time.Millisecond))
	return nil
}

// changeOne appends checkpoint c<id> to the journal and rewrites task
// t1's record, each through a temporary file renamed over it.
func changeOne(dir string, id int) error {
	replace := func(path string, edit func([]byte) ([]byte, error)) error {
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if b, err = edit(b); err != nil {
			return err
		}
		if err := os.WriteFile(path+".tmp", b, 0o644); err != nil {
			return err
		}
		return os.Rename(path+".tmp", path)
	}
	err := replace(filepath.Join(dir, ".autodev", "checkpoints.json"), func(b []byte) ([]byte, error) {
		var entries []map[string]any
		if err := json.Unmarshal(b, &entries); err != nil {
			return nil, err
		}
		e := maps.Clone(entries[len(entries)-1])
		e["id"], e["label"], e["time"] = fmt.Sprintf("c%d", id), fmt.Sprintf("thread — step %d", id), time.Now().UTC().Format(time.RFC3339)
		return json.Marshal(append(entries, e))
	})
	if err != nil {
		return err
	}
	return replace(filepath.Join(dir, ".nudgethis", "tasks", "t1.json"), func(b []byte) ([]byte, error) {
		var rec map[string]any
		if err := json.Unmarshal(b, &rec); err != nil {
			return nil, err
		}
		rec["note"] = fmt.Sprintf("task 1, take %d", id)
		return json.MarshalIndent(rec, "", "  ")
	})
}
