package oplog

import (
	"bytes"
	"context"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/refs"
)

// The log is kept in segments: the ref holds the newest operations, a
// first-parent chain from a root commit of its own; every segmentSize
// operations (or when its oldest operation is older than op.keepDays) that
// chain is handed to a segment ref, refs/nudgethis-oplog/segments/<key>/<N>
// (N: the number of its newest operation, ten digits, then the start of
// its tip's id), and a new chain
// starts. Bounding the log deletes the oldest segment refs whole: no
// commit is ever rewritten, so bounding it leaves unreachable only the
// records it drops and what only they pinned.
const segmentOps = 100

// segmentSize is the operations of one segment: a tenth of op.keep, at
// most segmentOps, so that the log holds at most a tenth more than it
// keeps.
func (l *Log) segmentSize(ctx context.Context) int {
	return int(max(1, min(segmentOps, l.keepCount(ctx)/10)))
}

// segmentsRoot is the folder of the segment refs of every worktree's log.
const segmentsRoot = refs.OplogSegments

func (l *Log) segmentPrefix() string { return segmentsRoot + l.Key + "/" }

// segment is one segment ref: its name, its tip and the number of its
// newest operation.
type segment struct {
	name, tip string
	last      int
}

// segments lists the log's segment refs, oldest first.
func (l *Log) segments(ctx context.Context) ([]segment, error) {
	refs, _, err := l.Repo.RefsAndHead(ctx, l.segmentPrefix())
	if err != nil {
		return nil, err
	}
	var out []segment
	for name, tip := range refs {
		num, _, _ := strings.Cut(strings.TrimPrefix(name, l.segmentPrefix()), "-")
		n, err := strconv.Atoi(num)
		if err != nil || n <= 0 {
			continue // not one this package writes: left alone
		}
		out = append(out, segment{name: name, tip: tip, last: n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].last < out[j].last })
	return out, nil
}

// readChains is every commit of the log: the ref's chain and every
// segment's, in one git process. A segment dropped (and its pack
// deleted) while it was being read makes the read fail: it is read once
// more, without that segment.
func (l *Log) readChains(ctx context.Context) ([]git.ChainCommit, error) {
	cs, err := l.readChainsOnce(ctx)
	if err != nil {
		return l.readChainsOnce(ctx)
	}
	return cs, nil
}

func (l *Log) readChainsOnce(ctx context.Context) ([]git.ChainCommit, error) {
	var tips []string
	if tip, ok, err := l.Repo.ReadRefFast(ctx, l.Ref); err != nil {
		return nil, err
	} else if ok {
		tips = append(tips, tip)
	}
	segs, err := l.segments(ctx)
	if err != nil {
		return nil, err
	}
	for i := len(segs) - 1; i >= 0; i-- {
		tips = append(tips, segs[i].tip)
	}
	return l.chainsOf(ctx, tips)
}

// keptNote starts the .keep note of the pack a segment's records are
// moved to; the segment ref's name and tip follow it.
const keptNote = "git-nudge operation log segment "

// packSegment moves the records of the chain handed to segment (tip
// and its first parents down to the chain's root, those still loose)
// into a pack of their own kept by a .keep file, so that git gc neither
// repacks them while the segment is kept nor loosens them once bounding
// drops it: dropSegmentPacks then deletes the pack whole. Only record
// commits go there (each is the log's alone); the root, the trees and
// what the records pin stay where git keeps them. Best effort: the
// records stay loose when anything fails.
func (l *Log) packSegment(ctx context.Context, segment, tip string) {
	var ids []string
	for c := tip; c != ""; {
		typ, data, ok := l.Repo.ReadObjectHere(c)
		if !ok || typ != "commit" {
			break // already packed (by git gc) or not readable here
		}
		head, body, _ := bytes.Cut(data, []byte("\n\n"))
		if string(bytes.TrimRight(body, "\n")) == rootMessage {
			break
		}
		ids = append(ids, c)
		c = ""
		for _, line := range strings.Split(string(head), "\n") {
			if p, ok := strings.CutPrefix(line, "parent "); ok {
				c = p
				break
			}
		}
	}
	if len(ids) == 0 {
		return
	}
	_, _ = l.Repo.WriteKeptPack(ctx, ids, keptNote+segment+" "+tip)
}

// dropSegmentPacks deletes the packs of this log's segments that are no
// longer kept (dropped by bounding, or a crash after that), once no ref,
// HEAD or reflog reaches any commit they hold, and never while git gc
// may be running (it could be reading them through a ref it listed
// before the segment was dropped). A commit-graph that lists the
// deleted records is written again (Repo.ForgetCommits).
func (l *Log) dropSegmentPacks(ctx context.Context) {
	if l.Repo.GCRunning() {
		return
	}
	packs, err := l.Repo.KeptPacks(keptNote + l.segmentPrefix())
	if err != nil || len(packs) == 0 {
		return
	}
	segs, err := l.segments(ctx)
	if err != nil {
		return
	}
	live := map[string]bool{}
	for _, sg := range segs {
		live[sg.name+" "+sg.tip] = true
	}
	var removed []string
	defer func() { l.Repo.ForgetCommits(ctx, removed) }()
	for _, p := range packs {
		if live[strings.TrimPrefix(p.Note, keptNote)] {
			continue
		}
		ids, err := l.Repo.PackObjects(p)
		if err != nil || len(ids) == 0 {
			continue
		}
		gone, err := l.Repo.Unreachable(ctx, ids)
		if err != nil {
			continue // a commit it walks to is missing: left to the user's git
		}
		all := true
		for _, id := range ids {
			all = all && gone[id]
		}
		if all && l.Repo.RemoveKeptPack(p) == nil {
			removed = append(removed, ids...)
		}
	}
}

// prune bounds the log: the oldest segment is dropped while the
// operations after it are op.keep or more, or while its newest operation
// is older than op.keepDays. Segments are dropped whole, and their records
// (and the objects only they kept) become unreachable only then.
func (l *Log) prune(ctx context.Context, newest *Op) error {
	n, _ := Number(newest.ID)
	if n%10 != 1 && l.segmentSize(ctx) >= 10 {
		return nil // looked at every tenth operation, and after a rotation
	}
	segs, err := l.segments(ctx)
	if err != nil || len(segs) == 0 {
		return err
	}
	keep := l.keepCount(ctx)
	age := l.keepAge(ctx)
	dropped := false
	for _, sg := range segs {
		drop := int64(n-sg.last) >= keep
		if !drop && age > 0 {
			_, msg, err := l.Repo.ReadCommit(ctx, sg.tip)
			if err != nil {
				return err
			}
			var last Op
			if json.Unmarshal(recordOf(msg), &last) == nil && !last.Time.IsZero() && newest.Time.Sub(last.Time) > age {
				drop = true
			}
		}
		if !drop {
			break
		}
		if err := l.Repo.DeleteRef(ctx, sg.name, sg.tip); err != nil {
			return nil // changed underneath: the next append looks again
		}
		dropped = true
	}
	if dropped {
		l.dropSegmentPacks(ctx)
	}
	return nil
}

// keepCount is op.keep (DefaultKeep when unset or not positive).
func (l *Log) keepCount(ctx context.Context) int64 {
	if l.keep > 0 {
		return l.keep
	}
	l.keep = DefaultKeep
	// No config file that could set op.keep: its default, no git process.
	if l.Repo.ConfigMayMention("keep") {
		if keep, err := l.Repo.ConfigInt(ctx, "op.keep", DefaultKeep); err == nil && keep > 0 {
			l.keep = keep
		}
	}
	return l.keep
}

// DefaultKeepDays is op.keepDays's default.
const DefaultKeepDays = 30

// keepAge is op.keepDays as a duration (0: no bound by age).
func (l *Log) keepAge(ctx context.Context) time.Duration {
	if l.ageRead {
		return l.age
	}
	l.ageRead = true
	days := int64(DefaultKeepDays)
	if l.Repo.ConfigMayMention("keepdays") {
		d, err := l.Repo.ConfigInt(ctx, "op.keepDays", DefaultKeepDays)
		if err == nil && d >= 0 {
			days = d
		}
	}
	l.age = time.Duration(days) * 24 * time.Hour
	return l.age
}
