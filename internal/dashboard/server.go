// Package dashboard is the local web page of git nudge and git autodev
// (README "The dashboard"): a small net/http server on 127.0.0.1 that shows the tasks and
// checkpoints of one workspace and runs the same workflows as the command
// line (internal/nudge and internal/autodev) when a button is clicked.
//
// Security: a random token per start, which every request must carry
// (401 otherwise): API requests as an Authorization: Bearer header, the
// page and its assets as that header or ?token= in their address; never
// as a cookie (cookies are not scoped by port, so any server on 127.0.0.1
// would receive one); a Host
// check against DNS rebinding; changes only by POST behind Go's
// cross-origin protection; a strict content security policy; and limits
// on connections (limits.go) so that a flood of idle ones cannot lock the
// user out.
package dashboard

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nudgethis/git-nudge/internal/autodev"
	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/nudge/apply"
	"github.com/nudgethis/git-nudge/internal/nudge/retire"
	"github.com/nudgethis/git-nudge/internal/nudge/save"
	"github.com/nudgethis/git-nudge/internal/operation"
	"github.com/nudgethis/git-nudge/internal/oplog"
	"github.com/nudgethis/git-nudge/internal/refusal"
)

//go:embed assets
var assets embed.FS

// Shapes turn autodev's results into the documents `git autodev ... --json`
// prints, so that the API answers with the same JSON as the command line.
// The command layer provides them.
type Shapes struct {
	List    func(*autodev.Listing) any
	Status  func(autodev.Report) any
	Restore func(autodev.RestoreResult) any
	// ListJSON, when set, is List already encoded (compact, no HTML
	// escaping, no final newline): ten thousand entries are then encoded
	// once each, not checked and compacted again.
	ListJSON func(*autodev.Listing) ([]byte, error)
}

// Options configure a Server.
type Options struct {
	Dir    string           // a directory inside the workspace
	Now    func() time.Time // clock (nil: time.Now)
	Shapes Shapes
	// Token is the secret a client must present; empty makes a fresh one.
	Token string
	// NoExecution refuses to start runs from the page (--no-execution).
	NoExecution bool
	// Max is how many queued tasks the server runs at once (--max;
	// default 1).
	Max int
	// Poll is how often the journals are looked at for /api/events
	// (default 300ms).
	Poll time.Duration
	// MaxConns and MaxConnsPerClient cap the open connections (0: the
	// defaults, limits.go).
	MaxConns, MaxConnsPerClient int
}

// Server is one workspace's dashboard.
type Server struct {
	opts    Options
	token   string
	port    int // set by Listen; the Host check needs it
	handler http.Handler

	mu      sync.Mutex
	closing chan struct{} // closed by Close: ends the event streams
	closed  bool
	runs    []*started      // runs the page started
	ctx     context.Context // for the runs the page starts; cancelled by Close
	cancel  context.CancelFunc

	nudgeDir, autodevDir string // watched for changes

	execMu   sync.Mutex
	executor ExecutorDocument

	cache listCache // what the list APIs decoded last (cache.go)
	diffs diffCache // the last diff answers (diffcache.go)
	// opsKept answers GET /api/ops, working out again only what changed
	// since the last request.
	opsKept operation.OpsCache

	limits *limiter // connection caps (limits.go)
}

// ExecutorDocument is the answer of GET /api/nudge/executor: whether this
// server runs the workspace's queued tasks, and why not when it does not.
type ExecutorDocument struct {
	Executing bool   `json:"executing"`
	Reason    string `json:"reason"`
}

func (s *Server) setExecutor(on bool, reason string) {
	s.execMu.Lock()
	s.executor = ExecutorDocument{Executing: on, Reason: reason}
	s.execMu.Unlock()
}

func (s *Server) executorState(w http.ResponseWriter, r *http.Request) {
	s.execMu.Lock()
	d := s.executor
	s.execMu.Unlock()
	writeJSON(w, http.StatusOK, d)
}

// New prepares a server for the workspace containing opts.Dir.
func New(ctx context.Context, opts Options) (*Server, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Poll <= 0 {
		opts.Poll = 300 * time.Millisecond
	}
	ws, err := nudge.OpenReadOnly(ctx, opts.Dir, opts.Now)
	if err != nil {
		return nil, err
	}
	opts.Dir = ws.Repo.WorkTree
	s := &Server{opts: opts, token: opts.Token, closing: make(chan struct{}),
		executor: ExecutorDocument{Reason: "queued tasks run only under git nudge dashboard or git nudge work"}}
	// Runs the page starts outlive their request, not the server.
	s.ctx, s.cancel = context.WithCancel(context.WithoutCancel(ctx))
	s.nudgeDir = ws.Dir
	s.autodevDir = ws.Repo.WorkTree + "/.autodev"
	if s.token == "" {
		b := make([]byte, 32)
		if _, err := rand.Read(b); err != nil {
			return nil, err
		}
		s.token = hex.EncodeToString(b)
	}
	s.limits = &limiter{max: opts.MaxConns, perClient: opts.MaxConnsPerClient}
	if s.limits.max <= 0 {
		s.limits.max = DefaultMaxConns
	}
	if s.limits.perClient <= 0 {
		s.limits.perClient = DefaultMaxConnsPerClient
	}
	s.handler = s.routes()
	return s, nil
}

// Token is the server's secret.
func (s *Server) Token() string { return s.token }

// WorkTree is the top level of the workspace served.
func (s *Server) WorkTree() string { return s.opts.Dir }

// SetPort tells the server the port it answers on (the Host check accepts
// only 127.0.0.1, localhost and [::1] with that port).
func (s *Server) SetPort(port int) { s.port = port }

// URL is the address to open. It carries the token, which stays in the
// address bar so that a reload is let in; the page sends it as a header
// with every API request.
func (s *Server) URL(page string) string {
	u := "http://127.0.0.1:" + strconv.Itoa(s.port) + "/"
	if page != "" && page != "tasks" {
		u += "?page=" + page + "&token=" + s.token
		return u
	}
	return u + "?token=" + s.token
}

// Handler is the whole server: security checks, then the routes.
func (s *Server) Handler() http.Handler { return s.handler }

// Close stops the runs the page started (their process groups get
// SIGTERM and are waited for) and ends the event streams, so that
// http.Server.Shutdown does not wait for them.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	close(s.closing)
	s.mu.Unlock()
	s.stopRuns(10 * time.Second)
	s.cancel()
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	static, _ := fs.Sub(assets, "assets")
	files := http.FileServerFS(static)
	mux.HandleFunc("GET /{$}", s.index)
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.Handle("GET /assets/", http.StripPrefix("/assets/", files))

	mux.HandleFunc("GET /api/nudge/tasks", s.listTasks)
	mux.HandleFunc("GET /api/nudge/executor", s.executorState)
	mux.HandleFunc("GET /api/nudge/tasks/{id}", s.showTask)
	mux.HandleFunc("GET /api/nudge/tasks/{id}/diff", s.diffTask)
	mux.HandleFunc("GET /api/nudge/tasks/{id}/recover", s.recoverTask)
	mux.HandleFunc("GET /api/nudge/tasks/{id}/log", s.taskLog)
	mux.HandleFunc("GET /api/nudge/tasks/{id}/attempts", s.attempts)
	mux.HandleFunc("POST /api/nudge/tasks/{id}/{action}", s.taskAction)
	mux.HandleFunc("POST /api/nudge/tasks/{id}/comments", s.addComment)
	mux.HandleFunc("POST /api/nudge/tasks/{id}/comments/{cid}/delete", s.deleteComment)
	mux.HandleFunc("GET /api/nudge/commands", s.listTaskCommands)
	mux.HandleFunc("POST /api/nudge/queue/{name}", s.newTask)
	mux.HandleFunc("GET /api/autodev/checkpoints", s.checkpoints)
	mux.HandleFunc("GET /api/autodev/status", s.status)
	mux.HandleFunc("POST /api/autodev/restore/{id}", s.restore)
	mux.HandleFunc("GET /api/autodev/checkpoints/{id}/leaving", s.leaving)
	mux.HandleFunc("GET /api/autodev/commands", s.listCommands)
	mux.HandleFunc("POST /api/autodev/run/{name}", s.startRun)
	mux.HandleFunc("GET /api/ops", s.ops)
	mux.HandleFunc("POST /api/ops/{id}/undo", s.undoOp)
	mux.HandleFunc("GET /api/events", s.events)

	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusForbidden, errors.New("cross-origin request refused: changes come only from the dashboard page itself"))
	}))
	return s.secure(cop.Handler(mux))
}

// secure is every request's gate: headers first, then the Host check
// (403), then the token (401).
func (s *Server) secure(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
		h.Set("X-Frame-Options", "DENY")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-store")
		if !s.hostAllowed(r.Host) {
			writeError(w, http.StatusForbidden, errors.New("this dashboard answers only to 127.0.0.1, localhost or [::1] with its own port"))
			return
		}
		if !s.authorized(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="git nudge dashboard"`)
			if pageRequest(r) && strings.Contains(r.Header.Get("Accept"), "text/html") {
				// A browser opening the page without its token gets words,
				// not a JSON document.
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				w.WriteHeader(http.StatusUnauthorized)
				_, _ = io.WriteString(w, unauthorizedPage)
				return
			}
			writeError(w, http.StatusUnauthorized, errors.New(noTokenMessage))
			return
		}
		next.ServeHTTP(w, r)
	})
}

const noTokenMessage = "no valid token: open the address git nudge dashboard printed (it carries the token); scripts send it as Authorization: Bearer <token>"

// unauthorizedPage is the 401 a browser gets for the page without the
// token (or with the token of an earlier start of the dashboard).
const unauthorizedPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>git nudge dashboard: no valid token</title></head>
<body><main>
<h1>git nudge dashboard: no valid token</h1>
<p>This address does not carry the dashboard's current token: it has none, or the dashboard was restarted since (each start makes a new token).</p>
<p>Open the address <code>git nudge dashboard</code> printed when it started (it ends in <code>?token=...</code>). If the dashboard is not running, start it again and open the address it prints.</p>
</main></body></html>
`

func (s *Server) hostAllowed(host string) bool {
	p := ":" + strconv.Itoa(s.port)
	return host == "127.0.0.1"+p || host == "localhost"+p || host == "[::1]"+p
}

func (s *Server) tokenOK(t string) bool {
	return t != "" && subtle.ConstantTimeCompare([]byte(t), []byte(s.token)) == 1
}

// authorized: the token in an Authorization: Bearer header; for the
// page itself (pageRequest), also in the address as ?token=, since a
// browser cannot send a header when it navigates or loads a script.
// Never a cookie: a cookie for 127.0.0.1 reaches every port.
func (s *Server) authorized(r *http.Request) bool {
	ok := false
	if a, found := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); found {
		ok = s.tokenOK(strings.TrimSpace(a))
	}
	if !ok && pageRequest(r) {
		ok = s.tokenOK(r.URL.Query().Get("token"))
	}
	if ok {
		markAuthenticated(r)
	}
	return ok
}

// pageRequest is a request for the page itself: GET (or HEAD) of /,
// /assets/... or the icon. Only these take the token from the address; the API and
// the event stream take it only as a header.
func pageRequest(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	p := r.URL.Path
	return p == "/" || p == "/favicon.ico" || strings.HasPrefix(p, "/assets/")
}

// indexPage is index.html with the token in the addresses of the script,
// the style and the icon, which the browser loads without a header. It is
// parsed on first use so that commands other than the dashboard do not pay
// for it at start.
var indexPage = sync.OnceValue(func() *template.Template {
	return template.Must(template.ParseFS(assets, "assets/index.html"))
})

func (s *Server) index(w http.ResponseWriter, r *http.Request) {
	var buf bytes.Buffer
	if err := indexPage().Execute(&buf, struct{ Token string }{s.token}); err != nil {
		writeError(w, http.StatusInternalServerError, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(buf.Bytes())
}

// encodeJSON is v as the command line's --json would print it.
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeBody sends an encoded JSON answer with status 200.
func writeBody(w http.ResponseWriter, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// writeJSON sends v as the command line's --json would print it.
func writeJSON(w http.ResponseWriter, code int, v any) {
	body, err := encodeJSON(v)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(body)
}

// writeError sends err's error document, the one a command given --json
// prints ({"error","reasons","next","exit"}, refusal.DocumentOf), with HTTP status
// code: a refusal's reasons read as on the command line.
func writeError(w http.ResponseWriter, code int, err error) {
	doc := refusal.DocumentOf(err, 1) // exit status 1: refused or failed
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(doc)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(buf.Bytes())
}

// failed answers a workflow error: 404 for an unknown task, 409 for a
// refusal or failure (exit status 1 on the command line).
func failed(w http.ResponseWriter, err error) {
	var unknown *nudge.UnknownTaskError
	if errors.As(err, &unknown) {
		writeError(w, http.StatusNotFound, err)
		return
	}
	writeError(w, http.StatusConflict, err)
}

// ---- git nudge ----

// DiffDocument is the answer of GET /api/nudge/tasks/{id}/diff: the
// bounded patch (as git nudge diff prints it on a terminal, without
// colour) and the notices diff writes to stderr.
type DiffDocument struct {
	ID      string `json:"id"`
	Patch   string `json:"patch"`
	Notices string `json:"notices"`
}

// LogDocument is the answer of GET /api/nudge/tasks/{id}/log: the last
// Tail bytes of the task's run.log (the whole log when it is smaller).
type LogDocument struct {
	ID     string `json:"id"`
	Path   string `json:"path"` // relative to the work tree
	Exists bool   `json:"exists"`
	Size   int64  `json:"size"`
	Tail   string `json:"tail"`
	Cut    bool   `json:"cut"` // the log is longer than Tail
}

// DefaultLogTail and MaxLogTail bound GET .../log?tail=N.
const DefaultLogTail, MaxLogTail = 64 << 10, 1 << 20

func (s *Server) taskAction(w http.ResponseWriter, r *http.Request) {
	id, action := r.PathValue("id"), r.PathValue("action")
	switch action {
	case "apply", "undo", "save", "drop":
	default:
		writeError(w, http.StatusNotFound, errors.New("unknown action "+strconv.Quote(action)+": apply, undo, save or drop"))
		return
	}
	body, err := readActionBody(w, r, action)
	if err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	ws, err := nudge.Open(r.Context(), s.opts.Dir, s.opts.Now)
	if err != nil {
		failed(w, err)
		return
	}
	// Apply and undo tell the recording what they change (FilesHinted).
	spec := Operation("nudge", action)
	spec.Args = body.args(action, id)
	var out any
	err = s.recordCtx(r, ws.Repo, spec, func(ctx context.Context) error {
		var err error
		ws.Files = operation.FilesWatch(ctx)
		switch action {
		case "apply":
			out, err = apply.Run(r.Context(), ws, id, apply.Options{Paths: body.specs(), Merge: body.Merge, Conflicts: body.Conflicts})
		case "undo":
			out, err = apply.UndoWith(r.Context(), ws, id, apply.UndoOptions{Paths: body.specs()})
		case "save":
			var rep *save.Report
			rep, err = save.Run(r.Context(), ws, save.Options{IDs: []string{id}})
			out = rep
		case "drop":
			err = retire.Drop(r.Context(), ws, id, false)
			out = map[string]any{"id": id, "dropped": true}
		}
		return err
	})
	if err != nil {
		failed(w, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
	if action == "drop" {
		// The worktree drop moved aside is deleted now, every lock
		// released and the answer sent, as after git nudge drop.
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		_ = ws.EmptyTrash()
	}
}

// Operation is what the page's action (git nudge apply, undo, save, drop,
// queue; git autodev restore of an id) is for the operation log: the
// declaration the command of that name shares (operation.Shared). Tool and
// Kind are set; the caller sets Args.
func Operation(tool, action string) oplog.Spec {
	spec, _ := operation.Shared(tool, action)
	spec.Tool, spec.Kind = tool, action
	return spec
}

// ActionBody is the optional JSON body of POST
// /api/nudge/tasks/{id}/apply and /undo: the paths of the patch to apply
// or undo (from the top of the work tree, exact names; none: all), and
// for apply whether to merge edited files (merge) and to write conflict
// markers (conflicts), as apply --merge and --conflicts.
type ActionBody struct {
	Paths     []string `json:"paths"`
	Merge     bool     `json:"merge"`
	Conflicts bool     `json:"conflicts"`
}

// maxActionBody bounds the body of an action.
const maxActionBody = 1 << 20

// readActionBody reads an action's optional body: empty, or an
// ActionBody (unknown fields refused; merge and conflicts only for apply,
// paths only for apply and undo).
func readActionBody(w http.ResponseWriter, r *http.Request, action string) (ActionBody, error) {
	var b ActionBody
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxActionBody))
	if err != nil {
		return b, fmt.Errorf("git nudge: reading the request's body: %w", err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return b, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return b, fmt.Errorf("git nudge: the body must be JSON {\"paths\":[...],\"merge\":bool,\"conflicts\":bool}: %w", err)
	}
	switch {
	case (b.Merge || b.Conflicts) && action != "apply":
		return b, fmt.Errorf("git nudge: merge and conflicts are options of apply, not %s", action)
	case len(b.Paths) > 0 && action != "apply" && action != "undo":
		return b, fmt.Errorf("git nudge: paths are taken by apply and undo, not %s", action)
	}
	for _, p := range b.Paths {
		if p == "" || strings.ContainsRune(p, 0) {
			return b, fmt.Errorf("git nudge: %q is not a path of the patch", p)
		}
	}
	return b, nil
}

// specs are the body's paths as pathspecs that match each name exactly,
// from the top of the work tree.
func (b ActionBody) specs() []string {
	var out []string
	for _, p := range b.Paths {
		out = append(out, ":(top,literal)"+p)
	}
	return out
}

// args are the command line that does the same, for the operation log.
func (b ActionBody) args(action, id string) []string {
	args := []string{action}
	if b.Conflicts {
		args = append(args, "--conflicts")
	} else if b.Merge {
		args = append(args, "--merge")
	}
	args = append(args, id)
	if len(b.Paths) > 0 {
		args = append(append(args, "--"), b.Paths...)
	}
	return args
}

// record runs do as an operation of the log, exactly as the
// command line records git <spec.Tool> <spec.Args...>: the same hook
// (operation.Record), the same lock, the same record. A log that cannot be
// written is said on the server's stderr and the action runs unrecorded,
// as on the command line.
func (s *Server) record(r *http.Request, repo *git.Repo, spec oplog.Spec, do func() error) error {
	return s.recordCtx(r, repo, spec, func(context.Context) error { return do() })
}

// recordCtx is record for an action that reaches its recording through
// the context it is given (restore: oplog.RecordingFrom).
func (s *Server) recordCtx(r *http.Request, repo *git.Repo, spec oplog.Spec, do func(ctx context.Context) error) error {
	if os.Getenv(operation.OffVar) == "off" {
		return do(r.Context())
	}
	warn := func(format string, args ...any) { fmt.Fprintf(os.Stderr, format, args...) }
	return operation.Record(r.Context(), operation.Plan{Repo: repo, Spec: spec}, s.opts.Now, warn, do)
}

// ---- git autodev ----

// LeavingDocument is the answer of GET /api/autodev/checkpoints/{id}/leaving:
// the commits of HEAD that restoring the checkpoint takes off the branch
// (restore parks them; the page asks before it restores).
type LeavingDocument struct {
	ID      string          `json:"id"`
	Commit  string          `json:"commit"`
	Count   int             `json:"count"`
	Commits []LeavingCommit `json:"commits"` // the newest first, at most maxLeaving
	More    bool            `json:"more"`    // more than maxLeaving
}

// LeavingCommit is one commit that would leave the branch.
type LeavingCommit struct {
	ID      string `json:"id"`
	Subject string `json:"subject"`
}

const maxLeaving = 50

// ---- operations ----

// ---- listening ----

// Listen opens a listener on 127.0.0.1:port (0: any free port), with the
// connection caps of limits.go, and tells the server its port.
func (s *Server) Listen(port int) (net.Listener, error) {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return nil, err
	}
	s.SetPort(l.Addr().(*net.TCPAddr).Port)
	return &limitListener{Listener: l, lim: s.limits}, nil
}

// Port is the port the server answers on.
func (s *Server) Port() int { return s.port }
