package dashboard

import (
	"context"
	"errors"
	"io/fs"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/nudgethis/git-nudge/internal/autodev"
	"github.com/nudgethis/git-nudge/internal/filecache"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/operation"
	"github.com/nudgethis/git-nudge/internal/refs"
)

// The list APIs answer from what they decoded last time, as long as the
// files it came from are unchanged (DECISIONS, 2026-12-01 "dashboard
// caches"): a task record is decoded and encoded again only when its
// file's key (journal.FileKey: device, inode, size, modification time)
// changed or was too recent to trust (journal.Racy); checkpoints.json the
// same way (autodev.JournalCache), and the encoded checkpoint list is kept
// for as long as the journal and the entry HEAD is at are the same.

// cachedTask is one task record as last read.
type cachedTask struct {
	task *nudge.Task
	json []byte // as writeJSON encodes it, without the newline
}

type listCache struct {
	tasksMu sync.Mutex
	tasks   filecache.Cache[string, *cachedTask]

	// cpMu serializes the readers of the checkpoint journal, so that the
	// journal generation a body is stored under is the one it was made
	// from.
	cpMu    sync.Mutex
	journal autodev.JournalCache
	cpKey   checkpointsKey
	cpBody  []byte
}

type checkpointsKey struct {
	gen                uint64
	enabled, missing   bool
	history, headIndex int
	entries            int
	head               string
}

// refreshTasks brings the cached records up to date with the files of
// ws's tasks folder and returns them newest first.
func (c *listCache) refreshTasks(ws *nudge.Workspace) ([]*cachedTask, error) {
	dir := ws.Dir + "/tasks"
	ents, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	seen := make(map[string]bool, len(ents))
	out := make([]*cachedTask, 0, len(ents))
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !refs.Task.Valid(id) {
			continue
		}
		seen[id] = true
		ct, _, err := c.tasks.Load(id, dir+"/"+e.Name(), func() (*cachedTask, error) {
			t, err := ws.Load(id)
			if err != nil {
				return nil, err
			}
			b, err := operation.EncodeJSON(t)
			if err != nil {
				return nil, err
			}
			return &cachedTask{task: t, json: b}, nil
		})
		var unknown *nudge.UnknownTaskError
		if errors.As(err, &unknown) {
			continue // removed meanwhile (drop)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, ct)
	}
	c.tasks.Keep(func(id string) bool { return seen[id] })
	sort.Slice(out, func(i, j int) bool {
		a, _ := refs.Task.Number(out[i].task.ID)
		b, _ := refs.Task.Number(out[j].task.ID)
		return a > b
	})
	return out, nil
}

// listTasks is GET /api/nudge/tasks: git nudge list --json's array. It
// settles (marks interrupted tasks) as the command does, but only when a
// record asks for it.
func (s *Server) listTasks(w http.ResponseWriter, r *http.Request) {
	ws, err := nudge.OpenReadOnly(r.Context(), s.opts.Dir, s.opts.Now)
	if err != nil {
		failed(w, err)
		return
	}
	c := &s.cache
	c.tasksMu.Lock()
	defer c.tasksMu.Unlock()
	list, err := c.refreshTasks(ws)
	if err != nil {
		failed(w, err)
		return
	}
	for _, ct := range list {
		if ws.NeedsSettle(ct.task) {
			if err := ws.Settle(r.Context()); err != nil {
				failed(w, err)
				return
			}
			if list, err = c.refreshTasks(ws); err != nil {
				failed(w, err)
				return
			}
			break
		}
	}
	n := 2
	for _, ct := range list {
		n += len(ct.json) + 1
	}
	body := make([]byte, 0, n+1)
	body = append(body, '[')
	for i, ct := range list {
		if i > 0 {
			body = append(body, ',')
		}
		body = append(body, ct.json...)
	}
	body = append(body, "]\n"...)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// autodevRead is the workspace for a read-only autodev request: its
// LoadJournal answers from the server's cache.
func (s *Server) autodevRead(r *http.Request) (*autodev.Workspace, error) {
	ws, err := autodev.Open(r.Context(), s.opts.Dir, s.opts.Now)
	if err != nil {
		return nil, err
	}
	ws.UseJournalCache(&s.cache.journal)
	return ws, nil
}

// checkpoints is GET /api/autodev/checkpoints: the restore list's --json.
func (s *Server) checkpoints(w http.ResponseWriter, r *http.Request) {
	ws, err := s.autodevRead(r)
	if err != nil {
		failed(w, err)
		return
	}
	c := &s.cache
	c.cpMu.Lock()
	defer c.cpMu.Unlock()
	l, err := ws.List(r.Context())
	if err != nil {
		failed(w, err)
		return
	}
	key := checkpointsKey{gen: c.journal.Generation(), enabled: l.Enabled, missing: l.Missing,
		history: l.History, headIndex: l.HeadIndex, entries: len(l.Entries), head: l.Head}
	if c.cpBody == nil || key != c.cpKey {
		var b []byte
		var err error
		if s.opts.Shapes.ListJSON != nil {
			b, err = s.opts.Shapes.ListJSON(l)
		} else {
			b, err = operation.EncodeJSON(s.opts.Shapes.List(l))
		}
		if err != nil {
			failed(w, err)
			return
		}
		c.cpKey, c.cpBody = key, append(b, '\n')
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(c.cpBody)
}

// status is GET /api/autodev/status: git autodev status --json.
func (s *Server) status(w http.ResponseWriter, r *http.Request) {
	ws, err := s.autodevRead(r)
	if err != nil {
		failed(w, err)
		return
	}
	s.cache.cpMu.Lock()
	rep, err := ws.Status(r.Context())
	s.cache.cpMu.Unlock()
	if err != nil {
		failed(w, err)
		return
	}
	writeJSON(w, http.StatusOK, s.opts.Shapes.Status(rep))
}

// warm fills the list caches once when the server starts, so that the
// page's first requests are answered from them instead of each decoding
// every task record and the whole checkpoint journal (1,000 records:
// a tenth of a second or more). It does what those GETs do, nothing else.
func (s *Server) warm(ctx context.Context) {
	for _, h := range []http.HandlerFunc{s.listTasks, s.checkpoints, s.status} {
		if ctx.Err() != nil {
			return
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "/", nil)
		if err != nil {
			return
		}
		h(discard{header: http.Header{}}, req)
	}
}

// discard is a ResponseWriter that keeps nothing (warm's answers).
type discard struct{ header http.Header }

func (d discard) Header() http.Header         { return d.header }
func (d discard) Write(b []byte) (int, error) { return len(b), nil }
func (d discard) WriteHeader(int)             {}
