package dashboard_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nudgethis/git-nudge/internal/cli"
	"github.com/nudgethis/git-nudge/internal/cli/autodevcmd"
	"github.com/nudgethis/git-nudge/internal/cli/dashboardcmd"
	"github.com/nudgethis/git-nudge/internal/cli/nudgecmd"
	"github.com/nudgethis/git-nudge/internal/dashboard"
	"github.com/nudgethis/git-nudge/internal/testutil"
)

// The tests run in parallel (t.Parallel), each in a workspace of its own:
// many wait on a server, a queued task or a page more than they compute.
// Three kinds stay sequential, and so run before all the parallel ones:
// a test that changes process-wide state (TestServerLockCarriesVersion),
// and every browser test but TestBrowserReview, so that at most one
// Chromium runs at a time (TestBrowserReview, the fast tier's browser
// test, runs beside the API tests).

// helperEnv makes the test binary, run again, act as git-nudge (for the
// tests that need a dashboard in a process of its own).
const helperEnv = "DASHBOARD_TEST_AS"

func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "git-nudge":
		ctx, stop := signalContext()
		code := nudgecmd.Main(os.Args[1:], cli.NewProcessEnv(ctx))
		stop()
		os.Exit(code)
	case "git-autodev":
		os.Exit(autodevcmd.Main(os.Args[1:], cli.NewProcessEnv(context.Background())))
	}
	os.Exit(testutil.Main(m))
}

// run runs a command line of prog (nudgecmd.Main or autodevcmd.Main) in
// process, in dir, and returns its stdout and exit status.
func run(t *testing.T, main func([]string, *cli.Env) int, dir string, args ...string) (string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &cli.Env{Ctx: context.Background(), Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Dir: dir, Getenv: os.Getenv, Now: time.Now}
	code := main(args, env)
	if testing.Verbose() && errb.Len() > 0 {
		t.Logf("%v: %s", args, errb.String())
	}
	return out.String(), code
}

func nudge(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, code := run(t, nudgecmd.Main, dir, args...)
	if code != 0 {
		t.Fatalf("git nudge %v: exit %d\n%s", args, code, out)
	}
	return out
}

func autodev(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, code := run(t, autodevcmd.Main, dir, args...)
	if code != 0 {
		t.Fatalf("git autodev %v: exit %d\n%s", args, code, out)
	}
	return out
}

// workspace is a repository with a.txt committed and task t1 ready: its
// result changes a.txt to "new\n".
func workspace(t *testing.T) string {
	t.Helper()
	dir := testutil.Repo(t)
	testutil.Commit(t, dir, map[string]string{"a.txt": "old\n"}, "first")
	nudge(t, dir, "run", "-m", "rewrite a.txt", "--", "sh", "-c", "echo new > a.txt")
	return dir
}

// harness is a dashboard behind httptest, with a client that sends the
// token.
type harness struct {
	t   *testing.T
	dir string
	srv *dashboard.Server
	ts  *httptest.Server
	url string // http://127.0.0.1:<port>
}

func serve(t *testing.T, dir string, set ...func(*dashboard.Options)) *harness {
	t.Helper()
	o := dashboard.Options{Dir: dir, Shapes: dashboardcmd.Shapes(), Poll: 20 * time.Millisecond}
	for _, f := range set {
		f(&o)
	}
	s, err := dashboard.New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(s.Handler())
	ts.Start()
	u, _ := url.Parse(ts.URL)
	port, _ := strconv.Atoi(u.Port())
	s.SetPort(port)
	t.Cleanup(func() { s.Close(); ts.Close() })
	return &harness{t: t, dir: dir, srv: s, ts: ts, url: ts.URL}
}

// do sends a request with the token as a Bearer header (auth false: none).
func (h *harness) do(method, path string, auth bool, hdr map[string]string) (int, http.Header, []byte) {
	h.t.Helper()
	req, err := http.NewRequest(method, h.url+path, nil)
	if err != nil {
		h.t.Fatal(err)
	}
	if auth {
		req.Header.Set("Authorization", "Bearer "+h.srv.Token())
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

// errorDoc checks that body is the error document a command given --json
// prints (cli.ErrorJSON) and returns it.
func errorDoc(t *testing.T, body []byte) cli.ErrorDocument {
	t.Helper()
	var raw map[string]any
	if err := json.Unmarshal(body, &raw); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, body)
	}
	for _, k := range []string{"error", "reasons", "exit"} {
		if _, ok := raw[k]; !ok {
			t.Fatalf("error document lacks %q: %s", k, body)
		}
	}
	var d cli.ErrorDocument
	_ = json.Unmarshal(body, &d)
	return d
}

func readFile(t *testing.T, dir, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
