package dashboard

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/nudge/apply"
	"github.com/nudgethis/git-nudge/internal/nudge/review"
	"github.com/nudgethis/git-nudge/internal/nudge/runner"
)

func (s *Server) readNudge(r *http.Request) (*nudge.Workspace, error) {
	ws, err := nudge.OpenReadOnly(r.Context(), s.opts.Dir, s.opts.Now)
	if err != nil {
		return nil, err
	}
	if err := ws.Settle(r.Context()); err != nil {
		return nil, err
	}
	return ws, nil
}

// loadTask reads the workspace and the task the request's {id} names; on
// an error it has answered the request and ok is false.
func (s *Server) loadTask(w http.ResponseWriter, r *http.Request) (ws *nudge.Workspace, t *nudge.Task, ok bool) {
	ws, err := s.readNudge(r)
	if err == nil {
		t, err = ws.Load(r.PathValue("id"))
	}
	if err != nil {
		failed(w, err)
		return nil, nil, false
	}
	return ws, t, true
}

func (s *Server) showTask(w http.ResponseWriter, r *http.Request) {
	ws, t, ok := s.loadTask(w, r)
	if !ok {
		return
	}
	view, err := review.View(ws, t) // with its review comments, as show --json
	if err != nil {
		failed(w, err)
		return
	}
	writeJSON(w, http.StatusOK, view)
}

func (s *Server) diffTask(w http.ResponseWriter, r *http.Request) {
	ws, t, ok := s.loadTask(w, r)
	if !ok {
		return
	}
	key := ""
	if t.Result != nil {
		key = fmt.Sprintf("%s\x00%s\x00%s\x00%d", t.ID, t.Base(), *t.Result, review.DiffLimit)
		if body, ok := s.diffs.get(key); ok {
			writeBody(w, body)
			return
		}
	}
	var patch, notices bytes.Buffer
	err := review.Diff(r.Context(), ws, t.ID, &patch, review.DiffOptions{
		Format: git.DiffPatch, Limit: review.DiffLimit, Notices: &notices,
	})
	if err != nil {
		failed(w, err)
		return
	}
	body, err := encodeJSON(DiffDocument{ID: t.ID, Patch: patch.String(), Notices: notices.String()})
	if err != nil {
		writeError(w, http.StatusInternalServerError, err)
		return
	}
	if key != "" {
		s.diffs.put(key, body)
	}
	writeBody(w, body)
}

// attempts is GET /api/nudge/tasks/{id}/attempts: git nudge compare's
// answer for the attempts started together with task id (run --attempts:
// the tasks of its snapshot with an attempt number), in attempt order;
// [] when id is not one of them.
func (s *Server) attempts(w http.ResponseWriter, r *http.Request) {
	ws, t, ok := s.loadTask(w, r)
	if !ok {
		return
	}
	out := []runner.Comparison{}
	if t.Attempt == 0 {
		writeJSON(w, http.StatusOK, out)
		return
	}
	all, err := ws.List()
	if err != nil {
		failed(w, err)
		return
	}
	var ids []string
	for _, o := range all {
		if o.Attempt > 0 && o.Snapshot == t.Snapshot {
			ids = append(ids, o.ID)
		}
	}
	list, err := runner.Compare(r.Context(), ws, ids)
	if err != nil {
		failed(w, err)
		return
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].Attempt < list[j].Attempt })
	writeJSON(w, http.StatusOK, append(out, list...))
}

// taskLog answers the tail of .nudgethis/logs/<id>/run.log. The id must
// name a task of the workspace (so no other path is ever read), and at
// most MaxLogTail bytes are read, whatever the log's size.
func (s *Server) taskLog(w http.ResponseWriter, r *http.Request) {
	tail := int64(DefaultLogTail)
	if q := r.URL.Query().Get("tail"); q != "" {
		n, err := strconv.ParseInt(q, 10, 64)
		if err != nil || n < 1 || n > MaxLogTail {
			writeError(w, http.StatusBadRequest, fmt.Errorf("git nudge: tail must be a number of bytes from 1 to %d, not %q", MaxLogTail, q))
			return
		}
		tail = n
	}
	ws, t, ok := s.loadTask(w, r)
	if !ok {
		return
	}
	path := filepath.Join(ws.LogDir(t.ID), "run.log")
	doc := LogDocument{ID: t.ID, Path: path}
	if rel, err := filepath.Rel(s.opts.Dir, path); err == nil {
		doc.Path = filepath.ToSlash(rel)
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		writeJSON(w, http.StatusOK, doc)
		return
	}
	if err != nil {
		failed(w, err)
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		failed(w, err)
		return
	}
	doc.Exists, doc.Size = true, fi.Size()
	from := max(fi.Size()-tail, 0)
	buf, err := io.ReadAll(io.NewSectionReader(f, from, tail))
	if err != nil {
		failed(w, err)
		return
	}
	doc.Cut = from > 0
	doc.Tail = strings.ToValidUTF8(string(buf), "\uFFFD")
	writeJSON(w, http.StatusOK, doc)
}

// recoverTask is git nudge recover's report. It changes no file of the
// work tree; like the command, it takes the workspace lock, which turns an
// interrupted apply into "Recovery required".
func (s *Server) recoverTask(w http.ResponseWriter, r *http.Request) {
	ws, err := nudge.OpenReadOnly(r.Context(), s.opts.Dir, s.opts.Now)
	if err != nil {
		failed(w, err)
		return
	}
	rep, err := apply.Recover(r.Context(), ws, r.PathValue("id"))
	if err != nil {
		failed(w, err)
		return
	}
	writeJSON(w, http.StatusOK, rep)
}
