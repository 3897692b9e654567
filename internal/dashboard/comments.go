package dashboard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/nudge/review"
	"github.com/nudgethis/git-nudge/internal/oplog"
)

// maxCommentBody bounds a POST .../comments body: the text's own limit
// plus room for the other fields and JSON escaping.
const maxCommentBody = 6*review.MaxCommentText + 4096

// addComment is POST /api/nudge/tasks/{id}/comments with {"path", "line",
// "end_line", "text"}: git nudge comment ID -m TEXT [--path P [--line
// N[-M]]], recorded as that command; the answer is the comment.
func (s *Server) addComment(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	var in review.NewComment
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxCommentBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		writeError(w, http.StatusBadRequest, fmt.Errorf("the body must be one JSON object {\"path\", \"line\", \"end_line\", \"text\"}: %v", err))
		return
	}
	if dec.Decode(&struct{}{}) != io.EOF {
		writeError(w, http.StatusBadRequest, errors.New("the body must be one JSON object and nothing after it"))
		return
	}
	args := []string{"comment", id, "-m", in.Text}
	if in.Path != "" {
		args = append(args, "--path", in.Path)
	}
	if in.Line != 0 {
		lines := fmt.Sprint(in.Line)
		if in.EndLine != 0 {
			lines += fmt.Sprintf("-%d", in.EndLine)
		}
		args = append(args, "--line", lines)
	}
	s.commentAction(w, r, args, func(ctx context.Context, ws *nudge.Workspace) (any, error) {
		return review.AddComment(ctx, ws, id, in)
	})
}

// deleteComment is POST /api/nudge/tasks/{id}/comments/{cid}/delete:
// git nudge comment ID --delete CID; the answer is the comment removed.
func (s *Server) deleteComment(w http.ResponseWriter, r *http.Request) {
	id, cid := r.PathValue("id"), r.PathValue("cid")
	s.commentAction(w, r, []string{"comment", id, "--delete", cid}, func(ctx context.Context, ws *nudge.Workspace) (any, error) {
		return review.DeleteComment(ctx, ws, id, cid)
	})
}

func (s *Server) commentAction(w http.ResponseWriter, r *http.Request, args []string, do func(context.Context, *nudge.Workspace) (any, error)) {
	ws, err := nudge.Open(r.Context(), s.opts.Dir, s.opts.Now)
	if err != nil {
		failed(w, err)
		return
	}
	var out any
	err = s.recordCtx(r, ws.Repo, oplog.Spec{Tool: "nudge", Kind: "comment", Args: args}, func(ctx context.Context) error {
		var err error
		out, err = do(ctx, ws)
		return err
	})
	if err != nil {
		failed(w, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}
