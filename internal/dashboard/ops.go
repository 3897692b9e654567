package dashboard

import (
	"net/http"

	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/operation"
	"github.com/nudgethis/git-nudge/internal/oplog"
)

// opsLog is the operation log of the workspace served.
func (s *Server) opsLog(r *http.Request) (*oplog.Log, error) {
	ws, err := nudge.OpenReadOnly(r.Context(), s.opts.Dir, s.opts.Now)
	if err != nil {
		return nil, err
	}
	return oplog.Open(ws.Repo), nil
}

// ops is GET /api/ops: op log --json's array, each operation with
// undoable and undo_refusal (what op undo would say now).
func (s *Server) ops(w http.ResponseWriter, r *http.Request) {
	l, err := s.opsLog(r)
	if err != nil {
		failed(w, err)
		return
	}
	body, err := s.opsKept.Body(r.Context(), l)
	if err != nil {
		failed(w, err)
		return
	}
	writeBody(w, body)
}

// undoOp is POST /api/ops/{id}/undo: op undo ID, as git nudge; a refusal
// is 409 with the error document.
func (s *Server) undoOp(w http.ResponseWriter, r *http.Request) {
	l, err := s.opsLog(r)
	if err != nil {
		failed(w, err)
		return
	}
	target, inv, err := operation.Undo(r.Context(), l, "nudge", r.PathValue("id"), s.opts.Now())
	if err != nil {
		failed(w, err)
		return
	}
	writeJSON(w, http.StatusOK, operation.UndoDocument(target, inv))
}
