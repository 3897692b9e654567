package dashboard

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/nudgethis/git-nudge/internal/autodev"
	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/oplog"
	"github.com/nudgethis/git-nudge/internal/refusal"
)

func (s *Server) autodev(r *http.Request) (*autodev.Workspace, error) {
	return autodev.Open(r.Context(), s.opts.Dir, s.opts.Now)
}

func (s *Server) restore(w http.ResponseWriter, r *http.Request) {
	ws, err := s.autodev(r)
	if err != nil {
		failed(w, err)
		return
	}
	// Restore refuses itself while a run is active; the reason the page
	// shows is the seed's "only while the run is stopped".
	id := r.PathValue("id")
	var res autodev.RestoreResult
	err = s.recordCtx(r, ws.Repo, restoreSpec(id), func(ctx context.Context) error {
		var opts autodev.RestoreOptions
		if rec := oplog.RecordingFrom(ctx); rec != nil {
			opts.BeforeReset = rec.Changing // no work-tree walk of its own
		}
		var err error
		res, err = ws.RestoreWith(r.Context(), id, opts)
		return err
	})
	var ra *autodev.RunActiveError
	if errors.As(err, &ra) {
		writeError(w, http.StatusConflict, &refusal.Refusal{What: err.Error(), Reasons: []string{"only while the run is stopped"}})
		return
	}
	if err != nil {
		failed(w, err)
		return
	}
	writeJSON(w, http.StatusOK, s.opts.Shapes.Restore(res))
}

func restoreSpec(id string) oplog.Spec {
	spec := Operation("autodev", "restore")
	spec.Args = []string{"restore", id}
	return spec
}

func (s *Server) leaving(w http.ResponseWriter, r *http.Request) {
	ws, err := s.autodev(r)
	if err != nil {
		failed(w, err)
		return
	}
	j, err := ws.LoadJournal()
	if err != nil {
		failed(w, err)
		return
	}
	id := r.PathValue("id")
	e, ok := j.Find(id)
	if !ok {
		writeError(w, http.StatusNotFound, errors.New("no checkpoint "+strconv.Quote(id)+": git autodev list shows the checkpoints"))
		return
	}
	doc := LeavingDocument{ID: id, Commit: e.Commit, Commits: []LeavingCommit{}}
	if e.Type != "pre-restore" {
		// HEAD's commits the checkpoint's commit lacks: those leave the branch.
		list, err := ws.Repo.FindCommits(r.Context(), git.CommitQuery{Revs: []string{"HEAD", "^" + e.Commit}, Limit: maxLeaving + 1})
		if err != nil {
			failed(w, err)
			return
		}
		if len(list) > maxLeaving {
			list, doc.More = list[:maxLeaving], true
		}
		doc.Count = len(list)
		for i := len(list) - 1; i >= 0; i-- {
			doc.Commits = append(doc.Commits, LeavingCommit{ID: list[i].ID, Subject: list[i].Subject()})
		}
	}
	writeJSON(w, http.StatusOK, doc)
}
