package dashboard_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/nudgethis/git-nudge/internal/testutil"
)

// widths are the two screens every page is checked at: a laptop and a
// phone.
var widths = []struct {
	name          string
	width, height int64
}{{"wide", 1280, 900}, {"narrow", 390, 844}}

func viewport(t *testing.T, ctx context.Context, w, h int64) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(w, h)); err != nil {
		t.Fatal(err)
	}
}

// noOverflow fails when the document is wider than the window: nothing
// may make the page scroll sideways (long lines scroll inside their box).
func noOverflow(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	got, err := chromedp.Run(ctx, chromedp.Evaluate[[]int]("[document.documentElement.scrollWidth, window.innerWidth]"))
	if err != nil {
		t.Fatal(err)
	}
	if got[0] > got[1] {
		wide, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => { const w = window.innerWidth; const out = [];
			for (const e of document.querySelectorAll("body *")) { const r = e.getBoundingClientRect(); if (r.right > w + 1 && out.length < 8) out.push(e.tagName + (e.id ? "#" + e.id : "") + "." + e.className + " right=" + Math.round(r.right)); }
			return out.join("\n"); })()`))
		t.Fatalf("%s: the page is %d px wide in a %d px window; too wide:\n%s", what, got[0], got[1], wide)
	}
}

// AxeVar names axe-core's axe.min.js (.ci/run fetches it with npm pack
// axe-core). Without it the accessibility check skips, except under
// CI=true, where it fails.
const AxeVar = "NUDGE_AXE_JS"

// axeClean runs axe-core on the page and fails on any serious or
// critical violation.
func axeClean(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	path := os.Getenv(AxeVar)
	if path == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set: CI must fetch axe-core (npm pack axe-core) and point %s at axe.min.js", AxeVar, AxeVar)
		}
		t.Logf("accessibility check skipped: set %s to axe-core's axe.min.js (npm pack axe-core)", AxeVar)
		return
	}
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: %v", AxeVar, err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](string(src)+";void 0")); err != nil {
		t.Fatalf("loading axe-core: %v", err)
	}
	res, err := chromedp.Run(ctx, chromedp.Evaluate[string](`axe.run(document, { resultTypes: ["violations"] }).then((r) => JSON.stringify(r.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(" ")) }))))`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("running axe-core: %v", err)
	}
	var v []any
	if err := json.Unmarshal([]byte(res), &v); err != nil {
		t.Fatal(err)
	}
	if len(v) > 0 {
		t.Errorf("%s: axe-core finds %d serious or critical violation(s): %s", what, len(v), res)
	}
}

func press(t *testing.T, ctx context.Context, key string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.KeyEvent(key)); err != nil {
		t.Fatal(err)
	}
}

// tabReaches presses Tab from the top of the page until every row rows
// matches has had the focus (at most limit presses) and fails otherwise.
func tabReaches(t *testing.T, ctx context.Context, what, rows string, limit int) {
	t.Helper()
	setup := fmt.Sprintf(`(() => { window.__seen = new Set(); window.__rows = %s;
		if (!window.__listening) { window.__listening = true; document.addEventListener("focusin", (e) => { if (e.target.matches && e.target.matches(window.__rows)) window.__seen.add(e.target.dataset.id || e.target.getAttribute("href")); }); }
		document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0);
		return [...document.querySelectorAll(%s)].map((r) => r.dataset.id || r.getAttribute("href")); })()`, strconv.Quote(rows), strconv.Quote(rows))
	ids, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](setup))
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) == 0 {
		t.Fatalf("%s: no rows match %s", what, rows)
	}
	for range limit {
		press(t, ctx, kb.Tab)
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int]("window.__seen.size"))
		if err != nil {
			t.Fatal(err)
		}
		if n >= len(ids) {
			return
		}
	}
	seen, _ := chromedp.Run(ctx, chromedp.Evaluate[[]string]("[...window.__seen]"))
	t.Fatalf("%s: %d Tab presses reached rows %v of %v", what, limit, seen, ids)
}

// focusRow gives the row the focus as Tab would, and checks the focus
// ring shows.
func focusRow(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	waitFor(t, ctx, sel, fmt.Sprintf("document.querySelector(%s) !== null", strconv.Quote(sel)))
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](fmt.Sprintf("document.querySelector(%s).focus()", strconv.Quote(sel)))); err != nil {
		t.Fatal(err)
	}
}

// reviewWorkspace: t1 (a.txt), t2 whose validation failed, t3 a large
// diff (many lines, a very long line), two checkpoints, some operations.
func reviewWorkspace(t *testing.T) string {
	dir := workspace(t)
	testutil.Git(t, dir, "config", "nudge.validate", `test "$(cat a.txt)" = old`)
	nudge(t, dir, "run", "-m", "break the check", "--", "sh", "-c", "echo broken > a.txt")
	testutil.Git(t, dir, "config", "--unset", "nudge.validate")
	// big.txt alone is over the diff API's 1 MiB: the patch is cut there,
	// and bin.dat after it is left out.
	nudge(t, dir, "run", "-m", "a large change", "--", "sh", "-c",
		`seq 1 16000 | sed 's/$/ line of a generated file, long enough to be a realistic source line/' > big.txt; `+
			`printf 'x%.0s' $(seq 1 3000) >> a.txt; echo >> a.txt; printf '\000\001\002' > bin.dat; echo changed >> a.txt`)
	testutil.WriteFile(t, dir, "b.txt", "b\n")
	autodev(t, dir, "checkpoint", "-m", "add b with a label long enough to wrap on a phone screen", "--task", "T-12", "--mode", "auto")
	testutil.WriteFile(t, dir, "b.txt", "b, second take\n")
	autodev(t, dir, "checkpoint", "-m", "rework b", "--task", "T-13", "--mode", "auto")
	return dir
}

// TestBrowserReview drives every page at both widths: no sideways
// scrolling, every row reached by Tab and acted on by Enter, results and
// questions where the click was, with the focus. The fast tier (go test
// -short) walks them at the first width only.
func TestBrowserReview(t *testing.T) {
	t.Parallel()
	ctx := browser(t)
	dir := reviewWorkspace(t)
	h := serve(t, dir)
	for _, w := range widths {
		t.Run(w.name, func(t *testing.T) {
			if testing.Short() && w.name != widths[0].name {
				t.Skip("the fast tier walks the pages at the first width; the full run at every width")
			}
			viewport(t, ctx, w.width, w.height)
			navigate(t, ctx, h.srv.URL("tasks"))
			waitFor(t, ctx, "the task list", `document.querySelectorAll('#tasks tbody tr[data-id]').length === 3`)
			waitFor(t, ctx, "t2 marked (validation failed)", textOf(`#tasks tbody tr[data-id="t2"]`)+`.includes("(validation failed)")`)
			noOverflow(t, ctx, "tasks page")
			// t2 cannot be applied as is: Apply is off and says why; the
			// validation panel shows the command that failed.
			click(t, ctx, `#tasks tbody tr[data-id="t2"]`)
			waitFor(t, ctx, "t2's Apply disabled with the reason", `document.querySelector('#btn-apply') && document.querySelector('#btn-apply').disabled && `+textOf("#apply-why")+`.includes("--unvalidated")`)
			waitFor(t, ctx, "the validation panel", textOf("#validation")+`.includes("Validation: failed") && `+textOf("#validation")+`.includes("exit 1")`)
			tabReaches(t, ctx, "tasks page", "#tasks tbody tr[data-id]", 20)

			// Enter on a focused row opens the task.
			focusRow(t, ctx, `#tasks tbody tr[data-id="t1"]`)
			press(t, ctx, kb.Enter)
			waitFor(t, ctx, "t1 opened by Enter", textOf("#task-title")+`.startsWith("t1")`)
			waitFor(t, ctx, "t1's diff", textOf("#diff")+`.includes("+new")`)
			noOverflow(t, ctx, "t1 open")
			axeClean(t, ctx, "tasks page, t1 open")
			screenshot(t, ctx, "dashboard-tasks-"+w.name+".png")

			// A refused Apply: the reasons beside the button, in view and
			// focused; the buttons usable again.
			testutil.WriteFile(t, dir, "a.txt", "my own edit\n")
			waitFor(t, ctx, "Apply enabled", `!document.querySelector('#btn-apply').disabled`)
			click(t, ctx, "#btn-apply")
			waitFor(t, ctx, "the refusal", `document.querySelector('#action-result.bad li') !== null`)
			waitFor(t, ctx, "the refusal focused and in view", inViewAndFocused("#action-result"))
			waitFor(t, ctx, "the refusal right after the buttons", `document.querySelector('#task-buttons').nextElementSibling.id === "action-result"`)
			waitFor(t, ctx, "Apply enabled after the refusal", `!document.querySelector('#btn-apply').disabled`)
			noOverflow(t, ctx, "t1's refusal")
			testutil.WriteFile(t, dir, "a.txt", "old\n")

			// Drop asks first, and Cancel keeps the task.
			click(t, ctx, "#btn-drop")
			waitFor(t, ctx, "Drop's question", textOf("#drop-confirm")+`.startsWith("Drop t1?")`)
			waitFor(t, ctx, "the question focused and in view", inViewAndFocused("#drop-confirm"))
			click(t, ctx, "#drop-confirm .confirm-no")
			waitFor(t, ctx, "the question gone", `document.querySelector('#drop-confirm') === null`)

			// The large task.
			focusRow(t, ctx, `#tasks tbody tr[data-id="t3"]`)
			press(t, ctx, kb.Enter)
			waitFor(t, ctx, "t3 opened", textOf("#task-title")+`.startsWith("t3")`)
			waitFor(t, ctx, "t3's diff", `document.querySelector('#diff .file') !== null`)
			if ms, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`(() => { const m = performance.getEntriesByName("diff:start"), d = performance.getEntriesByName("diff:drawn"); return d.length && m.length ? d[d.length-1].startTime - m[m.length-1].startTime : -1; })()`)); err == nil {
				t.Logf("the large task's diff: fetched and drawn in %.0f ms", ms) // for the record, not asserted
			}
			noOverflow(t, ctx, "the large task")
			// The file list with status and counts; notices before it;
			// the big file collapsed, the rest drawn with line numbers.
			waitFor(t, ctx, "the file list", `document.querySelectorAll('#filelist li').length === 3 && `+textOf("#filelist")+`.includes("big.txt") && `+textOf("#filelist")+`.includes("cut off") && `+textOf("#filelist")+`.includes("bin.datnot in the diff")`)
			waitFor(t, ctx, "the notices on top", `(() => { const n = document.querySelector('#diff-notices'); return n && n.textContent.includes("not shown") && (n.compareDocumentPosition(document.querySelector('#filelist')) & Node.DOCUMENT_POSITION_FOLLOWING); })()`)
			waitFor(t, ctx, "big.txt collapsed", `document.querySelector('#diff section[data-path="big.txt"] button.show') !== null && document.querySelectorAll('#diff tr').length < 100`)
			waitFor(t, ctx, "line numbers", `document.querySelector('#diff section[data-path="a.txt"] tr.add:last-child td.no:nth-child(2)').textContent === "3"`)
			if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](`document.querySelector('#diff-notices').scrollIntoView({block: "start"})`)); err != nil {
				t.Fatal(err)
			}
			screenshot(t, ctx, "dashboard-large-diff-"+w.name+".png")
			// The file list's rows: Tab reaches each, Enter on the
			// collapsed big.txt draws a bounded part of it and moves there.
			tabReaches(t, ctx, "the large task's file list", "#filelist a.fpath", 60)
			if ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const a = [...document.querySelectorAll('#filelist a.fpath')].find((a) => a.textContent === "big.txt"); if (a) a.focus(); return !!a && document.activeElement === a; })()`)); err != nil || !ok {
				t.Fatalf("focusing big.txt in the file list: %v, %v", ok, err)
			}
			press(t, ctx, kb.Enter)
			waitFor(t, ctx, "a bounded part of big.txt drawn", `document.querySelectorAll('#diff section[data-path="big.txt"] tr').length === 1000 && document.querySelector('#diff section[data-path="big.txt"] button.more') !== null`)
			waitFor(t, ctx, "big.txt's title focused and in view", inViewAndFocused(`#diff section[data-path="big.txt"] h3`))
			screenshot(t, ctx, "dashboard-large-diff-file-open-"+w.name+".png")
			noOverflow(t, ctx, "the large task, big.txt shown")
			axeClean(t, ctx, "the large task")

			// A refused Apply of the large task: the reasons beside the
			// buttons, in view and focused, whatever the diff's length.
			testutil.WriteFile(t, dir, "a.txt", "my own edit\n")
			if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](`window.scrollTo(0, document.documentElement.scrollHeight)`)); err != nil {
				t.Fatal(err)
			}
			click(t, ctx, "#btn-apply")
			waitFor(t, ctx, "the large task's refusal", `document.querySelector('#action-result.bad li') !== null && `+textOf("#action-result")+`.includes("a.txt")`)
			waitFor(t, ctx, "the large task's refusal focused and in view", inViewAndFocused("#action-result"))
			noOverflow(t, ctx, "the large task's refusal")
			testutil.WriteFile(t, dir, "a.txt", "old\n")

			// Checkpoints: rows as lines, Tab and Enter; a restore that
			// takes a commit off the branch asks.
			click(t, ctx, "#nav-checkpoints")
			waitFor(t, ctx, "the checkpoint list", `document.querySelectorAll('#checkpoints tbody tr[data-id]').length === 2`)
			noOverflow(t, ctx, "checkpoints page")
			waitFor(t, ctx, "the label shown whole", `(() => { const l = document.querySelector('#checkpoints tbody tr[data-id="c1"] .label'); return l.getBoundingClientRect().width > 60 && l.scrollWidth <= l.clientWidth + 1; })()`)
			tabReaches(t, ctx, "checkpoints page", "#checkpoints tbody tr[data-id]", 20)
			focusRow(t, ctx, `#checkpoints tbody tr[data-id="c1"]`)
			press(t, ctx, kb.Enter)
			waitFor(t, ctx, "the restore's question", textOf("#restore-confirm")+`.includes("takes 1 commit off the branch")`)
			waitFor(t, ctx, "the question focused and in view", inViewAndFocused("#restore-confirm"))
			noOverflow(t, ctx, "the restore's question")
			axeClean(t, ctx, "checkpoints page")
			screenshot(t, ctx, "dashboard-checkpoints-"+w.name+".png")
			press(t, ctx, kb.Escape)
			waitFor(t, ctx, "the question gone, the row focused", `document.querySelector('#restore-confirm') === null && document.activeElement.dataset.id === "c1"`)

			// Operations: Tab reaches every row, Enter on the latest asks.
			click(t, ctx, "#nav-operations")
			waitFor(t, ctx, "the op log", `document.querySelectorAll('#ops tbody tr[data-id]').length > 3`)
			noOverflow(t, ctx, "operations page")
			tabReaches(t, ctx, "operations page", "#ops tbody tr[data-id]", 60)
			focusRow(t, ctx, `#ops tbody tr[data-id]`)
			press(t, ctx, kb.Enter)
			waitFor(t, ctx, "Undo's question or why not", `document.querySelector('#op-confirm, #op-result') !== null`)
			waitFor(t, ctx, "the answer focused and in view", inViewAndFocused("#op-confirm, #op-result"))
			noOverflow(t, ctx, "operations page with a question")
			axeClean(t, ctx, "operations page")
			screenshot(t, ctx, "dashboard-operations-"+w.name+".png")
			press(t, ctx, kb.Escape)

			// Without the token: the 401 page, in words, at this width.
			navigate(t, ctx, "http://127.0.0.1:"+strconv.Itoa(h.srv.Port())+"/#tasks")
			waitFor(t, ctx, "the 401 page", `document.body.innerText.includes("no valid token") && document.querySelector('#tasks') === null`)
			noOverflow(t, ctx, "the 401 page")
			axeClean(t, ctx, "the 401 page")
			screenshot(t, ctx, "dashboard-401-"+w.name+".png")
		})
	}
}

// TestBrowserGone: with the server gone, a click says so in words and
// gives the buttons back; a restarted server (new token) is named.
func TestBrowserGone(t *testing.T) {
	ctx := browser(t)
	dir := workspace(t)
	h := serve(t, dir)
	navigate(t, ctx, h.srv.URL("tasks"))
	waitFor(t, ctx, "t1", `document.querySelector('#tasks tbody tr[data-id="t1"]') !== null`)
	click(t, ctx, `#tasks tbody tr[data-id="t1"]`)
	waitFor(t, ctx, "Apply enabled", `document.querySelector('#btn-apply') && !document.querySelector('#btn-apply').disabled`)
	waitFor(t, ctx, "live", textOf("#live")+` === "live"`)
	h.srv.Close()
	h.ts.CloseClientConnections()
	h.ts.Close()
	click(t, ctx, "#btn-apply")
	waitFor(t, ctx, "the failure in words", textOf("#action-result")+`.includes("did not answer: it stopped or restarted")`)
	waitFor(t, ctx, "the failure focused and in view", inViewAndFocused("#action-result"))
	waitFor(t, ctx, "Apply usable again", `!document.querySelector('#btn-apply').disabled`)
	waitFor(t, ctx, "the banner after the stream failed", `!document.querySelector('#gone').hidden && `+textOf("#gone")+`.includes("open the address it printed")`)
	if strings.Contains(readFile(t, dir, "a.txt"), "new") {
		t.Fatal("a.txt changed with the server gone")
	}
}

// TestBrowserFileActions: a file's Apply and Undo send {"paths": [...]};
// the result shows beside the file, with the focus, and stays there while
// the task is drawn again.
func TestBrowserFileActions(t *testing.T) {
	ctx := browser(t)
	dir := workspace(t)
	h := serve(t, dir)
	navigate(t, ctx, h.srv.URL("tasks"))
	click(t, ctx, `#tasks tbody tr[data-id="t1"]`)
	waitFor(t, ctx, "t1's file", `document.querySelector('#diff section[data-path="a.txt"] .file-apply') !== null`)
	click(t, ctx, `#diff section[data-path="a.txt"] .file-apply`)
	waitFor(t, ctx, "the file's result", textOf(`#diff section[data-path="a.txt"] .file-result`)+` !== ""`)
	// The task is drawn again after the apply: the result stays beside
	// the file, focused and in view, and so does the text read here.
	waitFor(t, ctx, "t1 redrawn as applied", textOf("#task-title")+`.startsWith("t1 · applied") && document.querySelector('#diff').getAttribute('aria-busy') === null`)
	waitFor(t, ctx, "the result focused and in view", inViewAndFocused(`#diff section[data-path="a.txt"] .file-result`))
	res, err := chromedp.Run(ctx, chromedp.Evaluate[string](textOf(`#diff section[data-path="a.txt"] .file-result`)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res, "Applied a.txt of t1") {
		t.Fatalf("the file's apply: %q", res)
	}
	if got := readFile(t, dir, "a.txt"); got != "new\n" {
		t.Fatalf("a.txt after the file's Apply: %q", got)
	}
	waitFor(t, ctx, "Undo file enabled", `!document.querySelector('#diff section[data-path="a.txt"] .file-undo').disabled`)
	click(t, ctx, `#diff section[data-path="a.txt"] .file-undo`)
	waitFor(t, ctx, "the file's undo", textOf(`#diff section[data-path="a.txt"] .file-result`)+`.startsWith("Undid a.txt of t1")`)
	if got := readFile(t, dir, "a.txt"); got != "old\n" {
		t.Fatalf("a.txt after the file's Undo: %q", got)
	}
}

// TestBrowserComment: a comment written on diff lines is kept with the
// task, listed with a Delete, and handed to the next run --task as the
// file NUDGE_REVIEW names.
func TestBrowserComment(t *testing.T) {
	ctx := browser(t)
	dir := workspace(t)
	h := serve(t, dir)
	navigate(t, ctx, h.srv.URL("tasks"))
	click(t, ctx, `#tasks tbody tr[data-id="t1"]`)
	waitFor(t, ctx, "t1's diff", `document.querySelector('#diff section[data-path="a.txt"] tr.add td.no') !== null`)
	// From the keyboard: focus the diff, arrow to the line, C.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](`document.querySelector('#diff section[data-path="a.txt"] table.difftable').focus()`)); err != nil {
		t.Fatal(err)
	}
	press(t, ctx, kb.ArrowDown)
	waitFor(t, ctx, "a line picked", `document.querySelector('#diff tr.picked') !== null`)
	press(t, ctx, "c")
	waitFor(t, ctx, "the comment form, focused", `document.activeElement && document.activeElement.id === "comment-text"`)
	// Typed into the focused box, as the keyboard would.
	if err := chromedp.Do(ctx, chromedp.KeyEvent("use a constant here")); err != nil {
		t.Fatal(err)
	}
	click(t, ctx, `#comment-form button[type="submit"]`)
	waitFor(t, ctx, "the comment's result", `document.querySelector('#comment-result') !== null`)
	waitFor(t, ctx, "the result focused and in view", inViewAndFocused("#comment-result"))
	res, err := chromedp.Run(ctx, chromedp.Evaluate[string](textOf("#comment-result")))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res, "Comment saved on a.txt:1") {
		t.Fatalf("the comment: %q", res)
	}
	waitFor(t, ctx, "the comment listed", textOf("#comments")+`.includes("use a constant here")`)
	out := t.TempDir() + "/review"
	nudge(t, dir, "run", "--task", "t1", "--", "sh", "-c", `cat "$NUDGE_REVIEW" > `+out)
	if got := readFile(t, "/", out); !strings.Contains(got, "use a constant here") || !strings.Contains(got, "a.txt") {
		t.Fatalf("NUDGE_REVIEW's file: %q", got)
	}
	click(t, ctx, "#comments .comment-delete")
	waitFor(t, ctx, "the comment deleted", textOf("#comment-result")+` === "Comment deleted." && !`+textOf("#comments")+`.includes("use a constant here")`)
}
