package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/posener/complete"
	"github.com/willabides/kongplete"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/oplog"
)

// Predictors complete the ids commands take: tasks (predictor:"task"),
// checkpoints ("checkpoint") and operations ("op"), read from the
// repository the shell is in. They only read (no lock, nothing written)
// and give nothing when anything is missing.
func predictors() []kongplete.Option {
	return []kongplete.Option{
		kongplete.WithPredictor("task", complete.PredictFunc(func(complete.Args) []string { return taskIDs() })),
		kongplete.WithPredictor("checkpoint", complete.PredictFunc(func(complete.Args) []string { return checkpointIDs() })),
		kongplete.WithPredictor("op", complete.PredictFunc(func(complete.Args) []string { return opIDs() })),
	}
}

// workTreeTop is the top of the work tree the shell is in ("" outside one).
func workTreeTop() (*git.Repo, string) {
	dir, err := os.Getwd()
	if err != nil {
		return nil, ""
	}
	r, err := git.Discover(context.Background(), dir)
	if err != nil || r.WorkTree == "" {
		return r, ""
	}
	return r, r.WorkTree
}

// byNumber sorts ids like t2, t10 by their number, newest first.
func byNumber(ids []string) []string {
	sort.Slice(ids, func(i, j int) bool {
		a, _ := strconv.Atoi(ids[i][1:])
		b, _ := strconv.Atoi(ids[j][1:])
		return a > b
	})
	return ids
}

func taskIDs() []string {
	_, top := workTreeTop()
	if top == "" {
		return nil
	}
	ents, err := os.ReadDir(filepath.Join(top, ".nudgethis", "tasks"))
	if err != nil {
		return nil
	}
	var ids []string
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if ok && len(id) > 1 && id[0] == 't' {
			if _, err := strconv.Atoi(id[1:]); err == nil {
				ids = append(ids, id)
			}
		}
	}
	return byNumber(ids)
}

func checkpointIDs() []string {
	_, top := workTreeTop()
	if top == "" {
		return nil
	}
	f, err := os.Open(filepath.Join(top, ".autodev", "checkpoints.json"))
	if err != nil {
		return nil
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() || st.Size() > 64<<20 {
		return nil
	}
	// The journal is a list of entries (or an object holding "entries").
	type entry struct {
		ID string `json:"id"`
	}
	var raw json.RawMessage
	if json.NewDecoder(f).Decode(&raw) != nil {
		return nil
	}
	var j struct {
		Entries []entry `json:"entries"`
	}
	if json.Unmarshal(raw, &j.Entries) != nil && json.Unmarshal(raw, &j) != nil {
		return nil
	}
	var ids []string
	for _, e := range j.Entries {
		if len(e.ID) > 1 && e.ID[0] == 'c' {
			ids = append(ids, e.ID)
		}
	}
	return byNumber(ids)
}

func opIDs() []string {
	r, _ := workTreeTop()
	if r == nil {
		return nil
	}
	ops, err := oplog.Open(r).Read(context.Background())
	if err != nil {
		return nil
	}
	var ids []string
	for _, op := range ops {
		ids = append(ids, op.ID)
	}
	return ids
}
