package dashboard_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/cli/nudgecmd"
	"github.com/nudgethis/git-nudge/internal/testutil"
)

// ScreenshotsVar names a folder: when set, the browser test saves its
// screenshots there (docs/ holds the ones the README shows).
const ScreenshotsVar = "NUDGE_DASHBOARD_SCREENSHOTS"

// findBrowser returns a Chromium or Chrome to drive. Without one the test
// skips, except under CI=true, where it fails: CI installs chromium.
func findBrowser(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no Chromium found (chromium, chromium-browser, google-chrome): CI must install it (apt-get install -y chromium)")
	}
	t.Skip("no Chromium found: install it (apt-get install -y chromium) to run the browser test")
	return ""
}

// browser starts headless Chromium and watches the page's console: an
// uncaught JavaScript exception or a content security policy violation
// fails the test.
//
// The fast tier (go test -short) opens a browser for TestBrowserReview
// alone, which walks every page at the first size; the other browser tests
// run in the full run.
func browser(t *testing.T) context.Context {
	t.Helper()
	if testing.Short() && !strings.HasPrefix(t.Name(), "TestBrowserReview") {
		t.Skip("a browser test beside TestBrowserReview: the full run only")
	}
	path := findBrowser(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.WindowSize(1360, 820),
		chromedp.UserDataDir(t.TempDir()))
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox) // Chromium refuses to run its sandbox as root
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	// Start the browser first (one allocation), then watch its console.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		cancel()
		cancelAlloc()
		t.Fatalf("starting %s: %v", path, err)
	}
	var mu sync.Mutex
	var problems []string
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.IsException() || strings.Contains(m.Text, "Content Security Policy") {
				mu.Lock()
				problems = append(problems, m.String())
				mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
		mu.Lock()
		defer mu.Unlock()
		for _, p := range problems {
			t.Errorf("browser console: %s", p)
		}
	})
	return ctx
}

// waitFor waits (in the browser, on DOM state) until the JavaScript
// expression is true. An expression that throws (an element it reads is
// missing while the page redraws) counts as false and is asked again:
// chromedp's poll would otherwise stop at the exception and never answer.
func waitFor(t *testing.T, ctx context.Context, what, expr string) {
	t.Helper()
	// The page-side timeout cannot fire while the page does not answer:
	// a Go-side bound turns that into a failure too.
	pctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	guarded := "(() => { try { return !!(" + expr + "); } catch (_) { return false; } })()"
	err := chromedp.Do(pctx, chromedp.Poll[chromedp.Void](guarded, chromedp.WithPollingTimeout(20*time.Second)))
	// A page that loads while the poll runs (a navigation just made)
	// takes the poll's JavaScript context with it: asked again in the new
	// page, within the same bounds.
	for err != nil && pageReplaced(err) && pctx.Err() == nil {
		err = chromedp.Do(pctx, chromedp.Poll[chromedp.Void](guarded, chromedp.WithPollingTimeout(20*time.Second)))
	}
	if err != nil {
		text, _ := chromedp.Run(ctx, chromedp.Evaluate[string]("document.body.innerText + '\\nfocus: ' + (document.activeElement ? document.activeElement.outerHTML.slice(0, 200) + ' at ' + JSON.stringify(document.activeElement.getBoundingClientRect()) : 'none') + ' scrollY ' + window.scrollY + ' scrollX ' + window.scrollX + ' view ' + window.innerWidth + 'x' + window.innerHeight + ' document ' + document.documentElement.scrollWidth + 'x' + document.documentElement.scrollHeight"))
		t.Fatalf("waiting for %s (%s): %v\npage:\n%s", what, expr, err, text)
	}
}

// pageReplaced reports whether err is Chromium saying that the JavaScript
// context a call ran in is gone: the page was replaced by a navigation.
func pageReplaced(err error) bool {
	s := err.Error()
	return strings.Contains(s, "Cannot find context with specified id") || strings.Contains(s, "Execution context was destroyed")
}

// click clicks the element sel matches with the mouse, as a user would:
// it waits until the element is there and enabled, scrolls it into view,
// and presses the mouse at its centre once the element is what lies there.
// The element is found in the page itself on every try: chromedp's Click
// works on its own copy of the DOM, which a page that redraws often can
// leave waiting for ever for a node that is gone. The page may also move
// the element between the measure and the press (a panel drawn above it):
// a guard in the page lets through only a click that lands in the element
// (any other is stopped before the page sees it), and the click is tried
// again.
func click(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	q := strconv.Quote(sel)
	where := fmt.Sprintf(`(() => { const e = document.querySelector(%s);
		if (!e || e.disabled || !e.isConnected) return null;
		e.scrollIntoView({ block: "center", inline: "nearest" });
		const r = e.getBoundingClientRect();
		if (r.width === 0 || r.height === 0) return null;
		const x = r.left + r.width / 2, y = r.top + r.height / 2;
		const at = document.elementFromPoint(x, y);
		if (!at || (at !== e && !e.contains(at))) return null;
		if (!window.__clickGuard) {
			window.__clickGuard = true;
			window.addEventListener("click", (ev) => {
				if (window.__clickWant == null) return;
				const want = document.querySelector(window.__clickWant);
				const ok = !!want && want.contains(ev.target);
				window.__clickWant = null;
				window.__clickHit = ok;
				if (!ok) { ev.preventDefault(); ev.stopImmediatePropagation(); }
			}, true);
		}
		window.__clickWant = %s;
		window.__clickHit = null;
		return [x, y]; })()`, q, q)
	deadline := time.Now().Add(20 * time.Second)
	for {
		xy, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](where))
		if err == nil && len(xy) == 2 {
			cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			err = chromedp.Do(cctx, chromedp.MouseClickXY(xy[0], xy[1]))
			cancel()
			if err != nil {
				t.Fatalf("clicking %s: %v", sel, err)
			}
			// Did it land? (The guard answers at the click; a click
			// that never fired leaves null.)
			for range 50 {
				hit, err := chromedp.Run(ctx, chromedp.Evaluate[any]("window.__clickHit"))
				if err != nil || hit == true {
					return // landed, or the click navigated away
				}
				if hit == false {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			_, _ = chromedp.Run(ctx, chromedp.Evaluate[any]("window.__clickWant = null"))
		}
		if time.Now().After(deadline) {
			text, _ := chromedp.Run(ctx, chromedp.Evaluate[string]("document.body.innerText"))
			t.Fatalf("clicking %s: no such element, enabled and in view, or every click missed it, within 20 s (%v)\npage:\n%s", sel, err, text)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func navigate(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
}

func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv(ScreenshotsVar)
	if dir == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// inViewAndFocused is true when the element sel matches holds the focus
// (or contains it) and lies inside the viewport. Layout works in fractions of a
// pixel: an element scrolled to the very top can sit 1/16 px above it, so
// the edges are compared with a pixel's tolerance.
func inViewAndFocused(sel string) string {
	return fmt.Sprintf(`(() => { const e = document.querySelector(%s); if (!e) return false; const r = e.getBoundingClientRect();
		return e.contains(document.activeElement) && r.top > -1 && r.top < window.innerHeight && r.left > -1 && r.right < window.innerWidth + 1; })()`, strconv.Quote(sel))
}

func textOf(sel string) string {
	return fmt.Sprintf("((document.querySelector(%s)||{}).textContent||'')", strconv.Quote(sel))
}

func TestBrowser(t *testing.T) {
	ctx := browser(t)
	dir := workspace(t)
	testutil.WriteFile(t, dir, "b.txt", "b\n")
	autodev(t, dir, "checkpoint", "-m", "add b", "--task", "T-12", "--mode", "auto")
	testutil.WriteFile(t, dir, "b.txt", "b, second take\n")
	autodev(t, dir, "checkpoint", "-m", "rework b", "--task", "T-13", "--mode", "auto")
	testutil.Git(t, dir, "config", "autodev.command.tests", "go test ./...")
	testutil.Git(t, dir, "config", "nudge.command.upper-case", "tr a-z A-Z < a.txt > a.tmp && mv a.tmp a.txt")
	testutil.Git(t, dir, "config", "nudge.command.tests", "go test ./...")
	h := startServe(t, dir, false) // with the executor that runs New task's tasks

	// Tasks: open the page, see the task and its diff.
	if err := chromedp.Do(ctx, chromedp.Navigate(h.srv.URL("tasks"))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "task t1 in the list", `document.querySelector('#tasks tbody tr[data-id="t1"]') !== null`)
	click(t, ctx, `#tasks tbody tr[data-id="t1"]`)
	waitFor(t, ctx, "t1's diff", textOf("#diff")+`.includes("+new")`)
	waitFor(t, ctx, "the Apply button enabled", `!document.querySelector('#btn-apply').disabled && document.querySelector('#btn-undo').disabled`)
	waitFor(t, ctx, "live updates", textOf("#live")+` === "live"`)
	// Without the token, the same browser gets the 401 and no page.
	origin := "http://127.0.0.1:" + strconv.Itoa(h.srv.Port())
	navigate(t, ctx, origin+"/#tasks")
	waitFor(t, ctx, "the 401 without the token", `document.body.innerText.includes("no valid token") && document.querySelector('#tasks') === null`)
	if err := chromedp.Do(ctx, chromedp.NavigateBack()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "task t1 back with the token", `document.querySelector('#tasks tbody tr[data-id="t1"]') !== null`)
	waitFor(t, ctx, "live updates back with the token", textOf("#live")+` === "live"`)
	// No cookie holds the token, nor the tab's storage; it stays in the
	// address, so a reload is let in (the page and its assets want it).
	waitFor(t, ctx, "the token in the address, no cookie", `location.search === "?token=`+h.srv.Token()+`" && document.cookie === "" && sessionStorage.length === 0 && localStorage.length === 0`)
	if err := chromedp.Do(ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "task t1 after a reload", `document.querySelector('#tasks tbody tr[data-id="t1"]') !== null`)
	waitFor(t, ctx, "live updates after a reload", textOf("#live")+` === "live"`)
	click(t, ctx, `#tasks tbody tr[data-id="t1"]`)
	waitFor(t, ctx, "t1's diff after a reload", textOf("#diff")+`.includes("+new")`)
	waitFor(t, ctx, "New task offered", `document.querySelector('#newtask-buttons button[data-name="upper-case"]') !== null`)
	screenshot(t, ctx, "dashboard-tasks.png")

	// Apply: the file changes and the task is applied.
	click(t, ctx, "#btn-apply")
	waitFor(t, ctx, "the apply's result", textOf("#action-result")+`.startsWith("Applied t1: 1 file changed")`)
	waitFor(t, ctx, "t1 applied in the list", `document.querySelector('#tasks tbody tr[data-id="t1"] .state.applied') !== null`)
	if got := readFile(t, dir, "a.txt"); got != "new\n" {
		t.Fatalf("a.txt after Apply: %q", got)
	}
	waitFor(t, ctx, "Undo enabled, Apply not", `document.querySelector('#btn-apply').disabled && !document.querySelector('#btn-undo').disabled`)

	waitFor(t, ctx, "Drop disabled for an applied task", `document.querySelector('#btn-drop').disabled`)

	// Undo, then a refusal: a.txt edited since the snapshot. The page
	// shows the command line's message and every reason, verbatim.
	waitFor(t, ctx, "Undo enabled", `!document.querySelector('#btn-undo').disabled`)
	click(t, ctx, "#btn-undo")
	waitFor(t, ctx, "the undo's result", textOf("#action-result")+`.startsWith("Undid t1")`)
	if got := readFile(t, dir, "a.txt"); got != "old\n" {
		shown, _ := chromedp.Run(ctx, chromedp.Evaluate[string]("document.body.innerText"))
		t.Fatalf("a.txt after Undo: %q\n%s", got, shown)
	}
	testutil.WriteFile(t, dir, "a.txt", "my own edit\n")
	waitFor(t, ctx, "Apply enabled again", `!document.querySelector('#btn-apply').disabled`)
	click(t, ctx, "#btn-apply")
	waitFor(t, ctx, "the refusal", `document.querySelector('#action-result.bad li') !== null`)
	cliOut, _ := run(t, nudgecmd.Main, dir, "apply", "t1", "--json")
	var doc cli.ErrorDocument
	if err := json.Unmarshal([]byte(cliOut), &doc); err != nil || len(doc.Reasons) == 0 {
		t.Fatalf("command line refusal: %v %s", err, cliOut)
	}
	shown, err := chromedp.Run(ctx, chromedp.Evaluate[string](textOf("#action-result")))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range append([]string{doc.Error}, doc.Reasons...) {
		if !strings.Contains(shown, want) {
			t.Fatalf("the page's refusal %q lacks %q", shown, want)
		}
	}
	if got := readFile(t, dir, "a.txt"); got != "my own edit\n" {
		t.Fatalf("a refused apply changed a.txt: %q", got)
	}
	testutil.WriteFile(t, dir, "a.txt", "old\n")

	// A change from the command line shows without reload.
	nudge(t, dir, "snapshot", "-m", "made on the command line")
	waitFor(t, ctx, "t2 from the command line", `document.querySelector('#tasks tbody tr[data-id="t2"]') !== null`)

	// New task: a configured command, queued and run by the server.
	click(t, ctx, `#newtask-buttons button[data-name="upper-case"]`)
	waitFor(t, ctx, "the new task queued", textOf("#newtask-result")+`.startsWith("Queued t3 (upper-case)")`)
	waitFor(t, ctx, "t3 in the list", `document.querySelector('#tasks tbody tr[data-id="t3"]') !== null`)
	waitFor(t, ctx, "t3 ready", `document.querySelector('#tasks tbody tr[data-id="t3"] .state.ready') !== null`)
	waitFor(t, ctx, "t3's diff", textOf("#diff")+`.includes("+OLD")`)
	screenshot(t, ctx, "dashboard-new-task.png")
	if got := readFile(t, dir, "a.txt"); got != "old\n" {
		t.Fatalf("a.txt after New task: %q", got)
	}

	// Checkpoints: the list, Needs you, click a row to restore.
	click(t, ctx, "#nav-checkpoints")
	waitFor(t, ctx, "the checkpoint list", `document.querySelectorAll('#checkpoints tbody tr').length === 2`)
	waitFor(t, ctx, "Needs you", `!document.querySelector('#needs-you').hidden && `+textOf("#needs-text")+` === "2 restore point(s) — rewind now that the run is stopped"`)
	waitFor(t, ctx, "HEAD mark on c2", textOf(`#checkpoints tbody tr[data-id="c2"]`)+`.includes("← HEAD")`)
	click(t, ctx, `#checkpoints tbody tr[data-id="c1"]`)
	// c2's commit would leave the branch: the page says so and asks.
	waitFor(t, ctx, "the restore's question", textOf("#restore-confirm")+`.includes("takes 1 commit off the branch") && `+textOf("#restore-confirm")+`.includes("rework b")`)
	waitFor(t, ctx, "the question focused and in view", inViewAndFocused("#restore-confirm"))
	if got := readFile(t, dir, "b.txt"); got != "b, second take\n" {
		t.Fatalf("b.txt changed before the restore was confirmed: %q", got)
	}
	click(t, ctx, "#restore-confirm .confirm-yes")
	waitFor(t, ctx, "the restore's result", textOf("#restore-result")+`.startsWith('Restored to "thread — add b"')`)
	waitFor(t, ctx, "the result focused and in view", inViewAndFocused("#restore-result"))
	if got := readFile(t, dir, "b.txt"); got != "b\n" {
		t.Fatalf("b.txt after restoring c1: %q", got)
	}
	waitFor(t, ctx, "the pre-restore entry", `document.querySelectorAll('#checkpoints tbody tr').length === 3`)
	waitFor(t, ctx, "New run offered", `document.querySelector('#newrun-buttons button[data-name="tests"]') !== null`)
	screenshot(t, ctx, "dashboard-checkpoints.png")

	// A run starts: the list is disabled, and a click restores nothing.
	runner := gitNudge(t, dir, "run", "--mode", "auto", "--", "sh", "-c", "echo started; read line")
	runner.Env = append(runner.Env, helperEnv+"=git-autodev")
	stdin, err := runner.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := runner.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := runner.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = stdin.Close(); _ = runner.Wait() }()
	buf := make([]byte, 8)
	if _, err := out.Read(buf); err != nil {
		t.Fatalf("the run did not start: %v", err)
	}
	waitFor(t, ctx, "the list disabled during the run", `!document.querySelector('#cp-disabled').hidden && document.querySelector('#checkpoints').classList.contains('off')`)
	waitFor(t, ctx, "the run's notice", textOf("#cp-disabled")+`.includes("only while the run is stopped")`)
	waitFor(t, ctx, "New run disabled during the run", `document.querySelector('#newrun-buttons button[data-name="tests"]').disabled`)
	waitFor(t, ctx, "Needs you hidden during the run", `document.querySelector('#needs-you').hidden`)
	click(t, ctx, `#checkpoints tbody tr[data-id="c2"]`)
	waitFor(t, ctx, "the refusal", textOf("#restore-result")+` === "Restore: only while the run is stopped"`)
	screenshot(t, ctx, "dashboard-run-active.png")
	if got := readFile(t, dir, "b.txt"); got != "b\n" {
		t.Fatalf("b.txt changed during a run: %q", got)
	}
	_, _ = stdin.Write([]byte("stop\n"))
	_ = stdin.Close()
	if err := runner.Wait(); err != nil {
		t.Fatalf("the run: %v", err)
	}
	waitFor(t, ctx, "the list enabled after the run", `document.querySelector('#cp-disabled').hidden && !document.querySelector('#checkpoints').classList.contains('off')`)
	waitFor(t, ctx, "New run enabled after the run", `!document.querySelector('#newrun-buttons button[data-name="tests"]').disabled`)

	// Operations: the op log, the page's own actions in it, and Undo.
	click(t, ctx, "#nav-operations")
	waitFor(t, ctx, "the page's restore in the op log", `[...document.querySelectorAll('#ops tbody tr')].some((r) => r.textContent.includes("git autodev restore c1"))`)
	waitFor(t, ctx, "the page's apply in the op log", `[...document.querySelectorAll('#ops tbody tr')].some((r) => r.textContent.includes("git nudge apply t1"))`)
	screenshot(t, ctx, "dashboard-operations.png")
	nudge(t, dir, "snapshot", "-m", "to undo from the page")
	latest := strings.TrimSpace(nudge(t, dir, "op", "log"))
	latest, _, _ = strings.Cut(latest, " ")
	click(t, ctx, "#nav-tasks")
	click(t, ctx, "#nav-operations")
	waitFor(t, ctx, "the latest operation", `document.querySelector('#ops tbody tr[data-id="`+latest+`"] button.undo') !== null`)
	click(t, ctx, `#ops tbody tr[data-id="`+latest+`"] button.undo`)
	// Undo asks first, under the row, and the question has the focus.
	waitFor(t, ctx, "Undo's question", textOf("#op-confirm")+`.startsWith("Undo `+latest+`: git nudge snapshot")`)
	waitFor(t, ctx, "the question focused and in view", inViewAndFocused("#op-confirm"))
	click(t, ctx, "#op-confirm .confirm-yes")
	waitFor(t, ctx, "the undo's result", textOf("#op-result")+`.startsWith("Undid `+latest+` as ")`)
	waitFor(t, ctx, "the undone mark", textOf(`#ops tbody tr[data-id="`+latest+`"]`)+`.includes("undone by")`)
	// Undo is offered only where op undo would accept it: not on the
	// operation just undone; an older one that a later operation touched
	// says why instead.
	waitFor(t, ctx, "no Undo on the undone operation", `document.querySelector('#ops tbody tr[data-id="`+latest+`"] button.undo') === null`)
	waitFor(t, ctx, "a reason instead of Undo", `[...document.querySelectorAll('#ops tbody tr small.no-undo')].some((s) => s.title.includes("later operation"))`)
	screenshot(t, ctx, "dashboard-operations-undone.png")
}

// A long checkpoint list draws the rows in view, and scrolling brings
// every other row, which a click restores like any: 3,000 checkpoints,
// scrolled to the oldest.
func TestBrowserLongCheckpointList(t *testing.T) {
	if testing.Short() {
		t.Skip("a long list in a browser: the full run only")
	}
	ctx := browser(t)
	dir := workspace(t)
	head := strings.TrimSpace(testutil.Git(t, dir, "rev-parse", "HEAD"))
	const n = 3000
	entries := make([]map[string]any, n)
	start := time.Now().Add(-n * time.Minute)
	for i := range entries {
		entries[i] = map[string]any{"id": fmt.Sprintf("c%d", i+1), "commit": head, "label": fmt.Sprintf("step %d", i+1),
			"type": "task", "time": start.Add(time.Duration(i) * time.Minute).UTC().Format(time.RFC3339), "task": nil, "mode": nil}
	}
	b, err := json.Marshal(entries)
	if err != nil {
		t.Fatal(err)
	}
	testutil.WriteFile(t, dir, ".autodev/.gitignore", "*\n")
	testutil.WriteFile(t, dir, ".autodev/checkpoints.json", string(b))
	testutil.Git(t, dir, "update-ref", "refs/autodev/checkpoints/c1", head)
	h := serve(t, dir)
	navigate(t, ctx, h.srv.URL("checkpoints"))
	waitFor(t, ctx, "the newest checkpoint", fmt.Sprintf(`document.querySelector('#checkpoints tbody tr[data-id="c%d"]') !== null`, n))
	// ?page=checkpoints became #checkpoints; the token stayed.
	waitFor(t, ctx, "the token kept in the address", `location.search === "?token=`+h.srv.Token()+`" && location.hash === "#checkpoints"`)
	drawn, err := chromedp.Run(ctx, chromedp.Evaluate[int]("document.querySelectorAll('#checkpoints tbody tr').length"))
	if err != nil {
		t.Fatal(err)
	}
	if drawn >= n/4 {
		t.Fatalf("%d of %d rows drawn: the list should draw the rows in view", drawn, n)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[any]("window.scrollTo(0, document.documentElement.scrollHeight)")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the oldest checkpoint after scrolling", `document.querySelector('#checkpoints tbody tr[data-id="c1"]') !== null`)
	waitFor(t, ctx, "the oldest checkpoint in view", `(() => { const r = document.querySelector('#checkpoints tbody tr[data-id="c1"]').getBoundingClientRect(); return r.top >= 0 && r.bottom <= window.innerHeight; })()`)
	click(t, ctx, `#checkpoints tbody tr[data-id="c1"]`)
	waitFor(t, ctx, "the restore's result", textOf("#restore-result")+`.startsWith('Already at "step 1"')`)
	waitFor(t, ctx, "the oldest checkpoint still drawn after the list reloaded", `document.querySelector('#checkpoints tbody tr[data-id="c1"]') !== null`)
	// Back to the top: the newest rows are drawn again.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[any]("window.scrollTo(0, 0)")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the newest checkpoint again", fmt.Sprintf(`document.querySelector('#checkpoints tbody tr[data-id="c%d"]') !== null`, n))
}
