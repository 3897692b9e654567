// Package autodevjson holds the JSON documents of git autodev's --json
// output; the dashboard's API answers with the same documents.
package autodevjson

import (
	"github.com/nudgethis/git-nudge/internal/agenthooks"
	"github.com/nudgethis/git-nudge/internal/autodev"
	"github.com/nudgethis/git-nudge/internal/pathenc"
)

// Listed is an entry of the JSON list: the journal entry plus "head".
type Listed struct {
	autodev.Entry
	Head bool
}

// MarshalJSON is the entry's own encoding with "head" added.
func (l Listed) MarshalJSON() ([]byte, error) {
	// The entry's own encoder, once: json.Marshal would check and compact
	// its output a second time (and escape <, > and & unlike the rest).
	data, err := l.Entry.MarshalJSON()
	if err != nil {
		return nil, err
	}
	flag := []byte(`,"head":false}`)
	if l.Head {
		flag = []byte(`,"head":true}`)
	}
	return append(data[:len(data)-1], flag...), nil
}

// List is the --json list (the dashboard's GET
// /api/autodev/checkpoints answers with it too).
func List(l *autodev.Listing) []Listed {
	out := make([]Listed, len(l.Entries))
	for i, e := range l.Entries {
		out[i] = Listed{Entry: e, Head: i == l.HeadIndex}
	}
	return out
}

// Restore is the --json document of a restore (the dashboard's
// POST /api/autodev/restore/{id} answers with it too).
func Restore(res autodev.RestoreResult) map[string]any {
	// Names are bytes: removed_b64 when one is not UTF-8.
	removed, removedB64 := pathenc.EncodeList(nonNil(res.Removed))
	doc := map[string]any{
		"unchanged":     res.Unchanged,
		"restored":      res.Target,
		"parked_branch": Nullable(res.Parked.Branch),
		"parked_commit": Nullable(res.Parked.Commit),
		"pre_restore":   res.PreRestore,
		"removed":       removed,
		"base":          Nullable(res.Base),
		"left_out":      LeftOut(res.Parked.LeftOut),
	}
	if removedB64 != nil {
		doc["removed_b64"] = removedB64
	}
	if s := res.Target.Session; s != nil && s.Resume() != "" {
		doc["resume"] = s.Resume()
	}
	return doc
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Status is the --json document of status (the dashboard's
// GET /api/autodev/status answers with it too).
func Status(rep autodev.Report) map[string]any {
	var headID *string
	if rep.HeadEntry != nil {
		headID = &rep.HeadEntry.ID
	}
	var pid *int
	if rep.Active && rep.RunPID > 0 {
		pid = &rep.RunPID
	}
	return map[string]any{
		"status":              rep.State.Status,
		"pid":                 rep.State.PID,
		"mode":                rep.State.Mode,
		"current_task":        rep.State.CurrentTask,
		"since":               Nullable(rep.State.Since),
		"active":              rep.Active,
		"run_pid":             pid,
		"stale":               rep.Stale,
		"orphaned":            rep.Orphaned,
		"checkpoints_enabled": rep.Enabled,
		"checkpoints":         rep.Checkpoints,
		"journal_missing":     rep.Missing,
		"rebuildable":         rep.History,
		"head":                Nullable(rep.Head),
		"head_checkpoint":     headID,
		"restore_points":      rep.RestorePoints(),
		"unrecorded_parked":   unrecordedJSON(rep.Unrecorded),
		"leftovers":           leftoversJSON(rep.Leftovers),
		"index_lock":          Nullable(rep.IndexLock),
		"ref_lock":            Nullable(rep.RefLock),
	}
}

func leftoversJSON(list []autodev.Leftover) []map[string]any {
	out := []map[string]any{}
	for _, l := range list {
		out = append(out, map[string]any{"path": l.Path, "pid": l.PID, "index_lock": l.UserLock, "removable": l.Removable})
	}
	return out
}

func unrecordedJSON(list []autodev.Parked) []map[string]string {
	out := []map[string]string{}
	for _, p := range list {
		out = append(out, map[string]string{"branch": p.Branch, "commit": p.Commit})
	}
	return out
}

// LeftOut is left_out in --json: always a list.
func LeftOut(l []autodev.LeftOut) []autodev.LeftOut {
	if l == nil {
		return []autodev.LeftOut{}
	}
	return l
}

func Nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// entryKey is every field of an entry without fields from a newer
// version: equal keys encode to the same JSON.
type entryKey struct {
	id, commit, label, typ, time, task, mode, worktree, branch string
	hasTask, hasMode                                           bool
	squashed                                                   string
	session                                                    agenthooks.Session
	hasSession                                                 bool
}

// ListJSON is List encoded entry by entry, for a dashboard that
// lists the same checkpoints again and again: it keeps each entry's
// encoding from one call to the next (the calls come one at a time), so
// one checkpoint more costs one entry to encode. Entries with fields from
// a newer version are encoded every time.
func ListJSON() func(*autodev.Listing) ([]byte, error) {
	var last map[entryKey][]byte
	return func(l *autodev.Listing) ([]byte, error) {
		next := make(map[entryKey][]byte, len(l.Entries))
		b := make([]byte, 0, 200*len(l.Entries)+2)
		b = append(b, '[')
		for i, e := range l.Entries {
			if i > 0 {
				b = append(b, ',')
			}
			k, keyed := entryKey{id: e.ID, commit: e.Commit, label: e.Label, typ: e.Type, time: e.Time,
				worktree: e.Worktree, branch: e.Branch, squashed: e.Squashed}, len(e.Extra) == 0
			if e.Session != nil {
				k.session, k.hasSession = *e.Session, true
			}
			if e.Task != nil {
				k.task, k.hasTask = *e.Task, true
			}
			if e.Mode != nil {
				k.mode, k.hasMode = *e.Mode, true
			}
			data, ok := last[k]
			if !ok || !keyed {
				var err error
				if data, err = e.MarshalJSON(); err != nil {
					return nil, err
				}
			}
			if keyed {
				next[k] = data
			}
			// Listed's encoding: the entry with "head" added.
			b = append(b, data[:len(data)-1]...)
			if i == l.HeadIndex {
				b = append(b, `,"head":true}`...)
			} else {
				b = append(b, `,"head":false}`...)
			}
		}
		last = next
		return append(b, ']'), nil
	}
}
