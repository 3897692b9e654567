package retire

import (
	"context"
	"path/filepath"
	"sort"
	"strings"

	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/refs"
	"github.com/nudgethis/git-nudge/internal/retain"
)

// taskRefPrefixes are the ref folders that hold what tasks keep: each
// ref's name after the folder starts with its task's id.
var taskRefPrefixes = []string{refs.Snapshots, refs.Results, refs.Setups, refs.Validations, refs.UndoBytes, nudge.QuarantinePrefix}

// DiskUsage measures what git-nudge holds: its task refs and the bytes
// only they keep alive, the task records, logs, worktrees (the pool's and
// the tasks'), stage and sandbox folders, and the operation log; and the
// top tasks by the bytes only they keep. Its git processes do not
// grow with the number of tasks.
func DiskUsage(ctx context.Context, w *nudge.Workspace, top int) (*retain.Usage, error) {
	rs, err := retain.ReadRefs(ctx, w.Repo)
	if err != nil {
		return nil, err
	}
	taskRefs := rs.Under(taskRefPrefixes...)
	oplog := rs.Under(refs.Oplog)
	// The tasks: their refs grouped by id.
	byID := map[string][]string{}
	for name, id := range taskRefs {
		for _, p := range taskRefPrefixes {
			if rest, ok := strings.CutPrefix(name, p); ok {
				tid, _, _ := strings.Cut(rest, "/")
				byID[tid] = append(byID[tid], id)
				break
			}
		}
	}
	items := make([]retain.Item, 0, len(byID))
	for id, commits := range byID {
		sort.Strings(commits)
		items = append(items, retain.Item{ID: id, Commits: commits})
	}
	sort.Slice(items, func(i, j int) bool { return items[i].ID < items[j].ID })

	var only, opBytes int64
	var largest []retain.Sized
	var ids []string
	var records, logs, pool, wts, stage, sandbox retain.Folder
	err = retain.Parallel(
		func() (err error) {
			only, largest, err = rs.Measure(ctx, taskRefPrefixes, []string{refs.Oplog}, items, top)
			return err
		},
		func() (err error) {
			opBytes, err = rs.Only(ctx, []string{refs.Oplog}, nil)
			return err
		},
		func() (err error) {
			if ids, err = w.TaskIDs(); err != nil {
				return err
			}
			records = retain.FolderSize(w.TasksDir())
			logs = retain.FolderSize(filepath.Join(w.Dir, "logs"))
			pool = retain.FolderSize(filepath.Join(w.Dir, nudge.PoolDirName))
			// The pool folder also holds each worktree's trusted index and
			// size, and its own bookkeeping: count the worktrees.
			pool.Entries = 0
			if entries, err := w.Pool(); err == nil {
				pool.Entries = len(entries)
			}
			wts = retain.FolderSize(filepath.Join(w.Dir, "worktrees"))
			stage = retain.FolderSize(w.StageDir())
			sandbox = retain.FolderSize(filepath.Join(w.Dir, "sandbox"))
			return nil
		})
	if err != nil {
		return nil, err
	}
	u := &retain.Usage{Largest: largest}
	u.Add("task_refs", "refs", len(taskRefs), only)
	u.Add("records", "tasks", len(ids), records.Bytes)
	u.Add("logs", "tasks", logs.Entries, logs.Bytes)
	u.Add("pool", "worktrees", pool.Entries, pool.Bytes)
	u.Add("worktrees", "worktrees", wts.Entries, wts.Bytes)
	u.Add("stage", "folders", stage.Entries, stage.Bytes)
	u.Add("sandbox", "tasks", sandbox.Entries, sandbox.Bytes)
	u.Add("op_log", "logs", len(oplog), opBytes)
	return u, nil
}
