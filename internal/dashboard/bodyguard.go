package dashboard

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
)

// refuseActionBody answers 400 when an action request carries a body
// ({"paths": [...], "merge": true}: per-file apply and undo, apply with
// merge) that this server does not act on: doing the whole task's action
// instead would change files the page did not ask for. It reports
// whether it answered. (Per-file apply/undo replaces this guard.)
func refuseActionBody(w http.ResponseWriter, r *http.Request) bool {
	var body struct {
		Paths []string `json:"paths"`
		Merge bool     `json:"merge"`
	}
	data, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if len(data) == 0 {
		return false
	}
	if err := json.Unmarshal(data, &body); err == nil && len(body.Paths) == 0 && !body.Merge {
		return false
	}
	writeError(w, http.StatusBadRequest, errors.New("this dashboard cannot apply or undo single files, nor apply with merge: use the command line (git nudge apply ID -- PATH...), or the whole task's buttons"))
	return true
}
