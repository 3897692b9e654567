package autodev

import (
	"context"
	"sort"
	"strings"

	"github.com/nudgethis/git-nudge/internal/refs"
	"github.com/nudgethis/git-nudge/internal/retain"
)

// BranchPrefix is where restore and park keep work (autodev/pre-restore-*,
// autodev/parked-*).
const BranchPrefix = "refs/heads/autodev/"

// DiskUsage measures what git-autodev holds: the checkpoint refs and the
// bytes only they keep alive (checkpoints no branch's history holds any
// more, after a restore or a squash), the autodev/ branches that restore
// and park made, .autodev's journals and the operation log; and the
// checkpoints that keep the most. Its git processes do not grow with the
// number of checkpoints.
func (ws *Workspace) DiskUsage(ctx context.Context, top int) (*retain.Usage, error) {
	rs, err := retain.ReadRefs(ctx, ws.Repo)
	if err != nil {
		return nil, err
	}
	ignore := []string{refs.Oplog}
	cps := rs.Under(refs.Checkpoints)
	branches := rs.Under(BranchPrefix)
	oplog := rs.Under(refs.Oplog)
	items := make([]retain.Item, 0, len(cps))
	for name, id := range cps {
		items = append(items, retain.Item{ID: strings.TrimPrefix(name, refs.Checkpoints), Commits: []string{id}})
	}
	sort.Slice(items, func(i, j int) bool { return items[i].ID < items[j].ID })
	var only, bb, ob int64
	var largest []retain.Sized
	entries := 0
	err = retain.Parallel(
		func() (err error) {
			only, largest, err = rs.Measure(ctx, []string{refs.Checkpoints}, ignore, items, top)
			return err
		},
		func() (err error) {
			if bb, err = rs.Only(ctx, []string{BranchPrefix}, ignore); err != nil {
				return err
			}
			ob, err = rs.Only(ctx, []string{refs.Oplog}, nil)
			return err
		},
		func() error {
			if j, err := ws.LoadJournal(); err == nil {
				entries = len(j.Entries)
			}
			return nil
		})
	if err != nil {
		return nil, err
	}
	u := &retain.Usage{Largest: largest}
	u.Add("checkpoint_refs", "refs", len(cps), only)
	u.Add("autodev_branches", "branches", len(branches), bb)
	u.Add("journals", "checkpoints", entries, retain.FolderSize(ws.Dir).Bytes)
	u.Add("op_log", "logs", len(oplog), ob)
	return u, nil
}
