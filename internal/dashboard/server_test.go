package dashboard_test

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"html"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/nudgethis/git-nudge/internal/cli/nudgecmd"
	"github.com/nudgethis/git-nudge/internal/dashboard"
	"github.com/nudgethis/git-nudge/internal/testutil"
)

// Every route of the API, GETs and POSTs, and the page itself
// (pageRoutes). Every one wants the token: every request without it gets
// 401.
var pageRoutes = []string{"/", "/assets/app.js", "/assets/style.css", "/favicon.ico"}
var getRoutes = []string{
	"/api/nudge/tasks", "/api/nudge/tasks/t1", "/api/nudge/tasks/t1/diff", "/api/nudge/tasks/t1/log", "/api/nudge/tasks/t1/attempts",
	"/api/autodev/checkpoints", "/api/autodev/status", "/api/ops", "/api/nudge/commands",
}
var postRoutes = []string{
	"/api/nudge/tasks/t1/apply", "/api/nudge/tasks/t1/undo", "/api/nudge/tasks/t1/save",
	"/api/nudge/tasks/t1/drop", "/api/autodev/restore/c1", "/api/ops/o1/undo", "/api/nudge/queue/tests",
	"/api/nudge/tasks/t1/comments", "/api/nudge/tasks/t1/comments/c1/delete",
}

// withToken adds ?token=tok (or &token=tok) to path.
func withToken(path, tok string) string {
	if strings.Contains(path, "?") {
		return path + "&token=" + tok
	}
	return path + "?token=" + tok
}

// TestNoTokenIs401 (docs/SECURITY.md): every request without the token,
// or with a wrong one, gets 401: the API, the event stream, and the page
// itself (its HTML, script, style and icon), whether the token is missing
// from the header or from the address. The API takes the token only as a
// header: in the address it is no token.
func TestNoTokenIs401(t *testing.T) {
	t.Parallel()
	h := serve(t, workspace(t))
	wrong := strings.Repeat("0", 64)
	all := append(append(append([]string{"/api/events"}, pageRoutes...), getRoutes...), postRoutes...)
	for _, p := range append(all, "/nope", "/assets/", "/assets/nope.js") {
		method := http.MethodGet
		if strings.HasPrefix(p, "/api/") && (strings.HasSuffix(p, "/apply") || strings.HasSuffix(p, "/undo") ||
			strings.HasSuffix(p, "/save") || strings.HasSuffix(p, "/drop") || strings.Contains(p, "/restore/") ||
			strings.Contains(p, "/queue/")) {
			method = http.MethodPost
		}
		for _, m := range []string{method, http.MethodHead} {
			if m == http.MethodHead && method == http.MethodPost {
				continue
			}
			if code, hdr, body := h.do(m, p, false, nil); code != http.StatusUnauthorized {
				t.Errorf("%s %s without token: %d, want 401\n%s", m, p, code, body)
			} else if hdr.Get("WWW-Authenticate") == "" {
				t.Errorf("%s %s: 401 without WWW-Authenticate", m, p)
			}
		}
		code, _, _ := h.do(method, p, false, map[string]string{"Authorization": "Bearer " + wrong})
		if code != http.StatusUnauthorized {
			t.Errorf("%s %s with a wrong token: %d, want 401", method, p, code)
		}
		for _, tok := range []string{wrong, "nope", "", h.srv.Token()[:63], h.srv.Token() + "0"} {
			if code, _, _ := h.do(method, withToken(p, tok), false, nil); code != http.StatusUnauthorized {
				t.Errorf("%s %s with token %q in the address: %d, want 401", method, p, tok, code)
			}
		}
	}
	// The right token in the address opens only the page, not the API.
	for _, p := range append(append([]string{"/api/events"}, getRoutes...), postRoutes...) {
		method := http.MethodGet
		for _, q := range postRoutes {
			if p == q {
				method = http.MethodPost
			}
		}
		if code, _, _ := h.do(method, withToken(p, h.srv.Token()), false, nil); code != http.StatusUnauthorized {
			t.Errorf("%s %s with the token in the address only: %d, want 401", method, p, code)
		}
	}
	if got := readFile(t, h.dir, "a.txt"); got != "old\n" {
		t.Fatalf("a request without token changed a.txt: %q", got)
	}
}

// TestPageWithToken: the page, its assets and the icon are served with
// the token, as the header or in the address; the HTML names its script,
// style and icon with the token in their address (a browser loads them
// without a header), and each of those addresses is served as it stands.
func TestPageWithToken(t *testing.T) {
	t.Parallel()
	h := serve(t, workspace(t))
	tok := h.srv.Token()
	for _, p := range pageRoutes {
		want := http.StatusOK
		if p == "/favicon.ico" {
			want = http.StatusNoContent
		}
		if code, _, body := h.do("GET", p, true, nil); code != want {
			t.Errorf("GET %s with the header: %d, want %d\n%s", p, code, want, body)
		}
		if code, _, body := h.do("GET", withToken(p, tok), false, nil); code != want {
			t.Errorf("GET %s with the token in the address: %d, want %d\n%s", p, code, want, body)
		}
	}
	code, hdr, body := h.do("GET", "/?page=checkpoints&token="+tok, false, nil)
	if code != http.StatusOK || !strings.HasPrefix(hdr.Get("Content-Type"), "text/html") {
		t.Fatalf("the page: %d %s\n%s", code, hdr.Get("Content-Type"), body)
	}
	refs := regexp.MustCompile(`(?:src|href)="(/[^"]*)"`).FindAllStringSubmatch(string(body), -1)
	seen := map[string]bool{}
	for _, m := range refs {
		ref := html.UnescapeString(m[1])
		path, query, _ := strings.Cut(ref, "?")
		seen[path] = true
		if query != "token="+tok {
			t.Errorf("the page names %s without the token", ref)
		}
		if code, _, _ := h.do("GET", ref, false, nil); code/100 != 2 {
			t.Errorf("GET %s, as the page names it: %d", ref, code)
		}
		if code, _, _ := h.do("GET", path, false, nil); code != http.StatusUnauthorized {
			t.Errorf("GET %s without the token: %d, want 401", path, code)
		}
	}
	for _, p := range []string{"/assets/app.js", "/assets/style.css", "/favicon.ico"} {
		if !seen[p] {
			t.Errorf("the page does not name %s:\n%s", p, body)
		}
	}
	// The script is the embedded one.
	_, hdr, js := h.do("GET", withToken("/assets/app.js", tok), false, nil)
	if !strings.Contains(string(js), `"Authorization": "Bearer "`) || !strings.Contains(hdr.Get("Content-Type"), "javascript") {
		t.Errorf("app.js: %s\n%.200s", hdr.Get("Content-Type"), js)
	}
}

// TestTokenIsAHeaderNeverACookie (docs/SECURITY.md): no response sets
// a cookie (cookies are not scoped by port: a server of another user on
// another port of 127.0.0.1 would receive it); the token in a cookie gets
// 401 as no token at all does.
func TestTokenIsAHeaderNeverACookie(t *testing.T) {
	t.Parallel()
	h := serve(t, workspace(t))
	tok := h.srv.Token()
	var tried []string
	for _, p := range pageRoutes {
		tried = append(tried, p, withToken(p, tok))
	}
	for _, p := range append(append(tried, "/?page=checkpoints&token="+tok), getRoutes...) {
		code, hdr, _ := h.do("GET", p, true, nil)
		if c := hdr.Values("Set-Cookie"); len(c) > 0 {
			t.Errorf("GET %s set a cookie: %q", p, c)
		}
		if code/100 != 2 && !strings.Contains(p, "t1") {
			t.Errorf("GET %s with the token: %d", p, code)
		}
		if _, hdr, _ := h.do("GET", p, false, nil); len(hdr.Values("Set-Cookie")) > 0 {
			t.Errorf("GET %s without the header set a cookie: %q", p, hdr.Values("Set-Cookie"))
		}
	}
	code, hdr, _ := h.do("GET", "/?token="+tok, false, nil)
	if code != http.StatusOK {
		t.Fatalf("the page: %d", code)
	}
	csp := hdr.Get("Content-Security-Policy")
	if !strings.Contains(csp, "default-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("CSP %q", csp)
	}
	if hdr.Get("Cache-Control") != "no-store" || hdr.Get("X-Frame-Options") != "DENY" || hdr.Get("Referrer-Policy") != "no-referrer" {
		t.Errorf("headers: Cache-Control %q, X-Frame-Options %q, Referrer-Policy %q", hdr.Get("Cache-Control"), hdr.Get("X-Frame-Options"), hdr.Get("Referrer-Policy"))
	}
	// The page holds nothing of the workspace: not its path, not a task.
	for _, p := range pageRoutes {
		_, _, b := h.do("GET", withToken(p, tok), false, nil)
		if strings.Contains(string(b), h.dir) || strings.Contains(string(b), "rewrite a.txt") {
			t.Errorf("%s shows the workspace", p)
		}
	}
	// The token as a cookie (any name) is no token.
	for _, name := range []string{"nudge_dashboard_" + strconv.Itoa(h.srv.Port()), "token"} {
		for _, p := range append(append(getRoutes, "/api/events"), pageRoutes...) {
			if code, _, _ := h.do("GET", p, false, map[string]string{"Cookie": name + "=" + tok}); code != http.StatusUnauthorized {
				t.Errorf("GET %s with the token as cookie %s: %d, want 401", p, name, code)
			}
		}
		if code, _, _ := h.do("POST", "/api/nudge/tasks/t1/apply", false, map[string]string{"Cookie": name + "=" + tok}); code != http.StatusUnauthorized {
			t.Errorf("apply with the token as a cookie: %d, want 401", code)
		}
	}
	if got := readFile(t, h.dir, "a.txt"); got != "old\n" {
		t.Fatalf("a request without the header changed a.txt: %q", got)
	}
}

func TestForeignHostIs403(t *testing.T) {
	t.Parallel()
	h := serve(t, workspace(t))
	port := fmt.Sprint(h.srv.Port())
	for _, host := range []string{"evil.example:" + port, "evil.example", "127.0.0.1:1", "localhost", "127.0.0.1.nip.io:" + port} {
		for _, p := range []string{"/", "/api/nudge/tasks", "/?token=" + h.srv.Token()} {
			if code, _, _ := h.do("GET", p, true, map[string]string{"Host": host}); code != http.StatusForbidden {
				t.Errorf("Host %q %s: %d, want 403", host, p, code)
			}
		}
		if code, _, _ := h.do("POST", "/api/nudge/tasks/t1/apply", true, map[string]string{"Host": host}); code != http.StatusForbidden {
			t.Errorf("Host %q apply: %d, want 403", host, code)
		}
	}
	for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "[::1]:" + port} {
		if code, _, _ := h.do("GET", "/api/nudge/tasks", true, map[string]string{"Host": host}); code != http.StatusOK {
			t.Errorf("Host %q: %d, want 200", host, code)
		}
	}
	if got := readFile(t, h.dir, "a.txt"); got != "old\n" {
		t.Fatalf("a refused apply changed a.txt: %q", got)
	}
}

func TestCrossOriginPostIsRefused(t *testing.T) {
	t.Parallel()
	h := serve(t, workspace(t))
	for _, hdr := range []map[string]string{
		{"Sec-Fetch-Site": "cross-site"},
		{"Origin": "http://evil.example"},
		{"Sec-Fetch-Site": "same-site", "Origin": "http://localhost:1"},
	} {
		code, _, body := h.do("POST", "/api/nudge/tasks/t1/apply", true, hdr)
		if code != http.StatusForbidden {
			t.Errorf("cross-origin apply %v: %d, want 403\n%s", hdr, code, body)
		}
		errorDoc(t, body)
	}
	if got := readFile(t, h.dir, "a.txt"); got != "old\n" {
		t.Fatalf("a cross-origin apply changed a.txt: %q", got)
	}
	// The page's own requests pass.
	code, _, body := h.do("POST", "/api/nudge/tasks/t1/apply", true, map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": h.url})
	if code != http.StatusOK {
		t.Fatalf("same-origin apply: %d\n%s", code, body)
	}
}

func TestChangesOnlyByPost(t *testing.T) {
	t.Parallel()
	h := serve(t, workspace(t))
	for _, p := range postRoutes {
		if code, _, _ := h.do("GET", p, true, nil); code != http.StatusMethodNotAllowed && code != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 405", p, code)
		}
	}
	for _, p := range []string{"/api/nudge/tasks/t1", "/api/autodev/status"} {
		if code, _, _ := h.do("POST", p, true, nil); code != http.StatusMethodNotAllowed {
			t.Errorf("POST %s: %d, want 405", p, code)
		}
	}
	if got := readFile(t, h.dir, "a.txt"); got != "old\n" {
		t.Fatalf("a GET changed a.txt: %q", got)
	}
}

// tree is every file under dir (work tree, .git, .nudgethis, .autodev)
// with its mode, size, modification time and content hash, except the
// lock notes that any command taking a lock rewrites (the command line's
// list does it too).
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == filepath.Join(".nudgethis", "lock") || rel == filepath.Join(".autodev", "lock") || rel == filepath.Join(".git", "nudgethis-worktree.lock") {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		sum := ""
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum = fmt.Sprintf("%x", sha256.Sum256(b))
		}
		out[rel] = fmt.Sprintf("%v %d %d %s", fi.Mode(), fi.Size(), fi.ModTime().UnixNano(), sum)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestGetsChangeNothing(t *testing.T) {
	t.Parallel()
	dir := workspace(t)
	testutil.WriteFile(t, dir, "b.txt", "b\n")
	autodev(t, dir, "checkpoint", "-m", "add b")
	testutil.WriteFile(t, dir, "c.txt", "uncommitted\n")
	h := serve(t, dir)
	before := tree(t, dir)
	for _, p := range append(getRoutes, "/api/nudge/tasks/t9", "/api/nudge/tasks/t1/recover", "/nope") {
		h.do("GET", p, true, nil)
		h.do("HEAD", p, true, nil)
	}
	after := tree(t, dir)
	var diff []string
	for k, v := range before {
		if after[k] != v {
			diff = append(diff, k+": "+v+" -> "+after[k])
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			diff = append(diff, k+": created")
		}
	}
	sort.Strings(diff)
	if len(diff) > 0 {
		t.Fatalf("GET requests changed files:\n%s", strings.Join(diff, "\n"))
	}
}

func TestTaskActionsAndRefusals(t *testing.T) {
	t.Parallel()
	h := serve(t, workspace(t))
	code, _, body := h.do("POST", "/api/nudge/tasks/t1/apply", true, nil)
	if code != http.StatusOK {
		t.Fatalf("apply: %d\n%s", code, body)
	}
	var out struct {
		ID    string `json:"id"`
		State string `json:"state"`
		Files []struct{ Path, Status string }
	}
	if err := json.Unmarshal(body, &out); err != nil || out.ID != "t1" || out.State != "applied" || len(out.Files) != 1 || out.Files[0].Path != "a.txt" {
		t.Fatalf("apply answered %s", body)
	}
	if got := readFile(t, h.dir, "a.txt"); got != "new\n" {
		t.Fatalf("a.txt after apply: %q", got)
	}
	// Recorded as the command line records it: the file with its blob
	// before and after (what apply told the recording).
	ops := nudge(t, h.dir, "op", "log")
	id, _, _ := strings.Cut(ops, " ")
	want := "file a.txt: 100644 " + testutil.Git(t, h.dir, "rev-parse", "HEAD:a.txt") + " -> 100644 " + testutil.Git(t, h.dir, "hash-object", "a.txt")
	if show := nudge(t, h.dir, "op", "show", id); !strings.Contains(show, "kind apply, done") || !strings.Contains(show, want) {
		t.Fatalf("op show %s:\n%s\nwant a line %q", id, show, want)
	}
	// Refusals: 409 with the command line's error document.
	code, _, body = h.do("POST", "/api/nudge/tasks/t1/apply", true, nil)
	doc := errorDoc(t, body)
	_, cliCode := run(t, nudgecmd.Main, h.dir, "apply", "t1", "--json")
	cliOut, _ := run(t, nudgecmd.Main, h.dir, "apply", "t1", "--json")
	var cliDoc map[string]any
	_ = json.Unmarshal([]byte(cliOut), &cliDoc)
	if code != http.StatusConflict || doc.Exit != 1 || cliCode != 1 || doc.Error != cliDoc["error"] ||
		!reflect.DeepEqual(anyStrings(doc.Reasons), cliDoc["reasons"]) {
		t.Fatalf("second apply: %d %+v; command line: %v", code, doc, cliOut)
	}
	code, _, body = h.do("POST", "/api/nudge/tasks/t1/drop", true, nil)
	if doc := errorDoc(t, body); code != http.StatusConflict || len(doc.Reasons) == 0 && doc.Error == "" {
		t.Fatalf("drop of an applied task: %d %s", code, body)
	}
	code, _, body = h.do("POST", "/api/nudge/tasks/t1/undo", true, nil)
	if code != http.StatusOK || readFile(t, h.dir, "a.txt") != "old\n" {
		t.Fatalf("undo: %d %s; a.txt %q", code, body, readFile(t, h.dir, "a.txt"))
	}
	code, _, body = h.do("POST", "/api/nudge/tasks/t1/undo", true, nil)
	if code != http.StatusConflict {
		t.Fatalf("second undo: %d %s", code, body)
	}
	errorDoc(t, body)
	// apply, save version.
	if code, _, body = h.do("POST", "/api/nudge/tasks/t1/apply", true, nil); code != http.StatusOK {
		t.Fatalf("apply again: %d %s", code, body)
	}
	code, _, body = h.do("POST", "/api/nudge/tasks/t1/save", true, nil)
	var saved struct {
		Commit string   `json:"commit"`
		Tasks  []string `json:"tasks"`
	}
	if err := json.Unmarshal(body, &saved); code != http.StatusOK || err != nil || len(saved.Tasks) != 1 || saved.Commit == "" {
		t.Fatalf("save: %d %s", code, body)
	}
	if head := testutil.Git(t, h.dir, "rev-parse", "HEAD"); head != saved.Commit {
		t.Fatalf("HEAD %s, save said %s", head, saved.Commit)
	}
	// drop of a saved task is allowed.
	code, _, body = h.do("POST", "/api/nudge/tasks/t1/drop", true, nil)
	if code != http.StatusOK || strings.TrimSpace(string(body)) != `{"dropped":true,"id":"t1"}` {
		t.Fatalf("drop: %d %s", code, body)
	}
	// Unknown task, unknown action.
	if code, _, body = h.do("GET", "/api/nudge/tasks/t1", true, nil); code != http.StatusNotFound {
		t.Fatalf("dropped task: %d %s", code, body)
	}
	errorDoc(t, body)
	if code, _, body = h.do("POST", "/api/nudge/tasks/t1/explode", true, nil); code != http.StatusNotFound {
		t.Fatalf("unknown action: %d %s", code, body)
	}
}

func anyStrings(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// sameJSON fails unless the API's answer equals what the command line
// prints with --json.
// withoutUndoable is GET /api/ops's answer without the fields op log
// --json does not have.
func withoutUndoable(t *testing.T, body []byte) []byte {
	t.Helper()
	var ops []map[string]any
	if err := json.Unmarshal(body, &ops); err != nil {
		t.Fatalf("GET /api/ops: %v\n%s", err, body)
	}
	for _, o := range ops {
		if _, ok := o["undoable"]; !ok {
			t.Fatalf("GET /api/ops: no undoable field: %s", body)
		}
		delete(o, "undoable")
		delete(o, "undo_refusal")
		delete(o, "recovery_required")
	}
	b, _ := json.Marshal(ops)
	return b
}

func sameJSON(t *testing.T, what string, api []byte, cliOut string) {
	t.Helper()
	var a, c any
	if err := json.Unmarshal(api, &a); err != nil {
		t.Fatalf("%s: API answer is not JSON: %v\n%s", what, err, api)
	}
	if err := json.Unmarshal([]byte(cliOut), &c); err != nil {
		t.Fatalf("%s: command line output is not JSON: %v\n%s", what, err, cliOut)
	}
	if !reflect.DeepEqual(a, c) {
		t.Fatalf("%s: API and --json differ\nAPI: %s\nCLI: %s", what, api, cliOut)
	}
}

func TestShapesAreTheCommandLines(t *testing.T) {
	t.Parallel()
	dir := workspace(t)
	testutil.WriteFile(t, dir, "b.txt", "b\n")
	autodev(t, dir, "checkpoint", "-m", "add b")
	h := serve(t, dir)
	_, _, body := h.do("GET", "/api/nudge/tasks", true, nil)
	sameJSON(t, "list", body, nudge(t, dir, "list", "--json"))
	_, _, body = h.do("GET", "/api/nudge/tasks/t1", true, nil)
	sameJSON(t, "show", body, nudge(t, dir, "show", "t1", "--json"))
	_, _, body = h.do("GET", "/api/autodev/checkpoints", true, nil)
	sameJSON(t, "restore list", body, autodev(t, dir, "restore", "--json"))
	_, _, body = h.do("GET", "/api/autodev/status", true, nil)
	sameJSON(t, "status", body, autodev(t, dir, "status", "--json"))
	_, _, body = h.do("GET", "/api/nudge/tasks/t1/diff", true, nil)
	var d dashboard.DiffDocument
	if err := json.Unmarshal(body, &d); err != nil || !strings.Contains(d.Patch, "-old\n+new\n") {
		t.Fatalf("diff: %s", body)
	}
}

func TestRestore(t *testing.T) {
	t.Parallel()
	dir := workspace(t)
	testutil.WriteFile(t, dir, "b.txt", "b\n")
	autodev(t, dir, "checkpoint", "-m", "add b")
	testutil.WriteFile(t, dir, "b.txt", "b2\n")
	autodev(t, dir, "checkpoint", "-m", "change b")
	testutil.WriteFile(t, dir, "b.txt", "scratch\n")
	h := serve(t, dir)

	// While a run holds run.lock: 409, nothing restored.
	run := flock.New(filepath.Join(dir, ".autodev", "run.lock"))
	if ok, err := run.TryLock(); !ok || err != nil {
		t.Fatalf("holding run.lock: %v %v", ok, err)
	}
	code, _, body := h.do("POST", "/api/autodev/restore/c1", true, nil)
	doc := errorDoc(t, body)
	if code != http.StatusConflict || doc.Error != "Stop the run before restoring — restore resets the project tree." ||
		len(doc.Reasons) != 1 || doc.Reasons[0] != "only while the run is stopped" {
		t.Fatalf("restore during a run: %d %s", code, body)
	}
	if readFile(t, dir, "b.txt") != "scratch\n" {
		t.Fatal("a refused restore changed b.txt")
	}
	_, _, body = h.do("GET", "/api/autodev/status", true, nil)
	if !strings.Contains(string(body), `"active":true`) || !strings.Contains(string(body), `"restore_points":0`) {
		t.Fatalf("status during a run: %s", body)
	}
	_ = run.Unlock()

	code, _, body = h.do("POST", "/api/autodev/restore/c9", true, nil)
	if doc := errorDoc(t, body); code != http.StatusConflict || !strings.HasPrefix(doc.Error, "Restore failed: unknown checkpoint: c9\n") {
		t.Fatalf("unknown checkpoint: %d %s", code, body)
	}
	code, _, body = h.do("POST", "/api/autodev/restore/c1", true, nil)
	var res struct {
		Restored     struct{ Label string } `json:"restored"`
		ParkedBranch *string                `json:"parked_branch"`
	}
	if err := json.Unmarshal(body, &res); code != http.StatusOK || err != nil || res.Restored.Label != "thread — add b" || res.ParkedBranch == nil {
		t.Fatalf("restore c1: %d %s", code, body)
	}
	if readFile(t, dir, "b.txt") != "b\n" {
		t.Fatalf("b.txt after restore: %q", readFile(t, dir, "b.txt"))
	}
	_, _, body = h.do("GET", "/api/autodev/status", true, nil)
	if !strings.Contains(string(body), `"restore_points":3`) {
		t.Fatalf("status after restore: %s", body)
	}
}

// The operations page's API is op log --json and op undo; an apply from
// the page is recorded as an operation like the command line's.
func TestOperations(t *testing.T) {
	t.Parallel()
	h := serve(t, workspace(t))
	if code, _, body := h.do("POST", "/api/nudge/tasks/t1/apply", true, nil); code != 200 {
		t.Fatalf("apply: %d %s", code, body)
	}
	code, _, body := h.do("GET", "/api/ops", true, nil)
	cliOut, _ := run(t, nudgecmd.Main, h.dir, "op", "log", "--json")
	if code != 200 {
		t.Fatalf("GET /api/ops: %d %s", code, body)
	}
	// op log --json's fields, plus what op undo would say now.
	sameJSON(t, "op log", withoutUndoable(t, body), cliOut)
	type opDoc struct {
		ID, Kind    string
		Args        []string
		Undoable    bool     `json:"undoable"`
		UndoRefusal []string `json:"undo_refusal"`
	}
	var ops []opDoc
	if err := json.Unmarshal(body, &ops); err != nil || len(ops) == 0 || ops[0].Kind != "apply" || strings.Join(ops[0].Args, " ") != "apply t1" {
		t.Fatalf("the page's apply is not the latest operation: %v %s", err, body)
	}
	if !ops[0].Undoable || len(ops[0].UndoRefusal) != 0 {
		t.Fatalf("the apply is not offered for undo: %s", body)
	}
	if got := readFile(t, h.dir, "a.txt"); got != "new\n" {
		t.Fatalf("a.txt after apply: %q", got)
	}
	code, _, body = h.do("POST", "/api/ops/"+ops[0].ID+"/undo", true, nil)
	if code != 200 || !strings.Contains(string(body), `"undoes":"`+ops[0].ID+`"`) {
		t.Fatalf("undo %s: %d %s", ops[0].ID, code, body)
	}
	if got := readFile(t, h.dir, "a.txt"); got != "old\n" {
		t.Fatalf("a.txt after undoing the apply: %q", got)
	}
	// The undone apply is not offered again (op undo would refuse it),
	// with the reason; the undo itself is (undoing it redoes).
	_, _, body = h.do("GET", "/api/ops", true, nil)
	var after []opDoc
	if err := json.Unmarshal(body, &after); err != nil || len(after) < 2 {
		t.Fatalf("GET /api/ops after the undo: %v %s", err, body)
	}
	if after[0].Kind != "op-undo" || !after[0].Undoable || after[1].ID != ops[0].ID || after[1].Undoable ||
		!strings.Contains(strings.Join(after[1].UndoRefusal, " "), "already undone by "+after[0].ID) {
		t.Fatalf("undoable after the undo: %s", body)
	}
	if code, _, body := h.do("POST", "/api/ops/"+after[1].ID+"/undo", true, nil); code != http.StatusConflict {
		t.Fatalf("undo of an operation shown as not undoable: %d %s", code, body)
	}
	// A refusal is 409 with the error document, as op undo's.
	code, _, body = h.do("POST", "/api/ops/o99/undo", true, nil)
	if doc := errorDoc(t, body); code != http.StatusConflict || !strings.Contains(doc.Error+strings.Join(doc.Reasons, " "), "o99") {
		t.Fatalf("undo o99: %d %s", code, body)
	}
}

// TestEvents: a change made from the command line reaches an open event
// stream, and closing the server ends the stream (Shutdown would wait for
// it otherwise).
func TestEvents(t *testing.T) {
	t.Parallel()
	h := serve(t, workspace(t))
	req, _ := http.NewRequest("GET", h.url+"/api/events", nil)
	req.Header.Set("Authorization", "Bearer "+h.srv.Token())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != "text/event-stream" {
		t.Fatalf("events: %d %q", resp.StatusCode, ct)
	}
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	wait := func(want string) {
		t.Helper()
		deadline := time.After(30 * time.Second)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("stream ended before %q", want)
				}
				if l == want {
					return
				}
			case <-deadline:
				t.Fatalf("no %q on the event stream", want)
			}
		}
	}
	wait("event: hello")
	nudge(t, h.dir, "snapshot", "-m", "second")
	wait("event: change")
	testutil.WriteFile(t, h.dir, "z.txt", "z\n")
	autodev(t, h.dir, "checkpoint", "-m", "z")
	wait("event: change")
	h.srv.Close()
	for range lines {
	}
}

// A browser opening the page without a valid token reads why in words
// (HTML); a script asking for anything else gets the JSON document.
func TestUnauthorizedPageForBrowsers(t *testing.T) {
	t.Parallel()
	h := serve(t, workspace(t))
	code, hdr, body := h.do("GET", "/", false, map[string]string{"Accept": "text/html,application/xhtml+xml"})
	if code != http.StatusUnauthorized || !strings.HasPrefix(hdr.Get("Content-Type"), "text/html") ||
		!strings.Contains(string(body), "no valid token") || !strings.Contains(string(body), "Open the address") {
		t.Fatalf("GET / from a browser without the token: %d %s\n%s", code, hdr.Get("Content-Type"), body)
	}
	code, hdr, body = h.do("GET", "/api/nudge/tasks", false, map[string]string{"Accept": "text/html"})
	if code != http.StatusUnauthorized || hdr.Get("Content-Type") != "application/json" {
		t.Fatalf("the API without the token: %d %s\n%s", code, hdr.Get("Content-Type"), body)
	}
	errorDoc(t, body)
}
