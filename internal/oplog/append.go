package oplog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nudgethis/git-nudge/internal/git"
)

// messageOf is the commit message that holds op's record: a subject line
// that reads well in git log (the op id, tool and kind), a blank line, then
// the record as JSON. The subject is only for people; readers use the JSON.
func messageOf(op *Op) (string, error) {
	rec, err := json.MarshalIndent(op, "", " ")
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("git-nudge op %s: git %s %s\n\n%s", op.ID, op.Tool, op.Kind, rec), nil
}

// recordOf is the JSON record a log commit's message holds: the whole
// message for records written before the subject line was added (they start
// with "{"), otherwise what follows the first blank line.
func recordOf(msg string) []byte {
	if strings.HasPrefix(msg, "{") {
		return []byte(msg)
	}
	if i := strings.Index(msg, "\n\n"); i >= 0 {
		return []byte(msg[i+2:])
	}
	return []byte(msg)
}

// rootMessage is the message of the parentless commit each chain starts at.
const rootMessage = "git-nudge operation log"

func (l *Log) root(ctx context.Context) (string, error) {
	empty, err := l.Repo.BlobTree(ctx, nil, nil)
	if err != nil {
		return "", err
	}
	if l.Repo.InProcess() {
		// One root for every chain, whatever the time: the newest chain
		// always reaches it, so a dropped segment leaves no root of its
		// own behind.
		who := identity.Name + " <" + identity.Email + "> 0 +0000\n"
		return l.Repo.WriteObject("commit", []byte("tree "+empty+"\nauthor "+who+"committer "+who+"\n"+rootMessage+"\n"))
	}
	return l.Repo.CommitTree(ctx, git.CommitRequest{Tree: empty, Message: rootMessage + "\n", Author: identity, Committer: identity})
}

var identity = git.Identity{Name: "git-nudge oplog", Email: "oplog@localhost"}

// append writes op as a new commit on the log (compare-and-swap, retried
// when another process appended first). A new op (ID "") gets the next id.
// The common case starts no git process: the tip is a loose commit read
// here, the objects are written as loose objects and the ref is swapped
// with git's lock protocol (see internal/gitstore/odb.go).
//
// ready, when set, waits for the objects op names that the caller is
// still writing: before the commit is made (and the ref moved), or before
// the tree when git makes it (git mktree checks that its entries exist).
func (l *Log) append(ctx context.Context, op *Op, ready func() error) error {
	tree, err := l.recordTree(ctx, op, ready)
	if err != nil {
		return err
	}
	// The refs the suite changes point at commits; a value that is not
	// one is left unpinned (a commit's parents must be commits).
	wanted := op.commits()
	var pins []string
	checked := false
	for attempt := 0; attempt < 50; attempt++ {
		if attempt > 0 {
			time.Sleep(time.Duration(attempt) * time.Millisecond)
		}
		tip, err := l.readTip(ctx)
		if err != nil {
			return err
		}
		op.number(tip)
		rotate, segment := l.chainOf(ctx, op, tip)
		if !checked {
			if pins, err = l.pinnable(ctx, wanted, tip.parents); err != nil {
				return err
			}
			checked = true
		}
		done, err := l.commitOn(ctx, op, tree, tip, rotate, segment, pins)
		if err != nil || done {
			return err
		}
	}
	return fmt.Errorf("the operation log %s kept changing underneath; try again", l.Ref)
}

// recordTree writes the tree of op's record, once ready (when set) has
// waited for what the record names: before the tree when git makes it,
// before the commit otherwise.
func (l *Log) recordTree(ctx context.Context, op *Op, ready func() error) (string, error) {
	if ready != nil && !l.Repo.InProcess() {
		if err := ready(); err != nil {
			return "", err
		}
	}
	tree, err := l.Repo.BlobTree(ctx, op.blobs(), l.uncovered(op))
	if err != nil {
		return "", err
	}
	if ready != nil {
		// What the record names is written before anything names it.
		if err := ready(); err != nil {
			return "", err
		}
	}
	return tree, nil
}

// logTip is what the log's ref points at when an append tries to move it.
type logTip struct {
	commit  string // "" when the log has no ref yet
	parents []string
	// last is the newest record, nil when there is none (no ref, or the
	// tip is a chain's root).
	last *Op
}

// readTip reads the log's tip commit and the record it holds.
func (l *Log) readTip(ctx context.Context) (logTip, error) {
	commit, ok, err := l.Repo.ReadRefFast(ctx, l.Ref)
	if err != nil || !ok {
		return logTip{}, err
	}
	tip := logTip{commit: commit}
	var msg string
	if tip.parents, msg, err = l.Repo.ReadCommit(ctx, commit); err != nil {
		return logTip{}, err
	}
	if msg == rootMessage {
		return tip, nil
	}
	var last Op
	if err := json.Unmarshal(recordOf(msg), &last); err != nil {
		return logTip{}, &CorruptError{Ref: l.Ref, Commit: commit, Err: err}
	}
	if _, valid := Number(last.ID); !valid {
		return logTip{}, &CorruptError{Ref: l.Ref, Commit: commit, Err: fmt.Errorf("malformed id %q", last.ID)}
	}
	tip.last = &last
	return tip, nil
}

// number gives op the id after the tip's newest record ("o1" on an empty
// log), unless op has an id of its own (not one an earlier attempt of
// this append gave it).
func (op *Op) number(tip logTip) {
	if op.ID != "" && !op.assigned && strings.HasPrefix(op.ID, "o") {
		return
	}
	n := 1
	if tip.last != nil {
		m, _ := Number(tip.last.ID)
		n = m + 1
	}
	op.ID = "o" + strconv.Itoa(n)
	op.assigned = true
}

// chainOf decides where op goes, setting its ChainSince: on the tip's
// chain, or (rotate) at the start of a new one, the tip's chain becoming
// a segment (handed to the ref segment) once it holds the segment size
// or is older than the keep age.
func (l *Log) chainOf(ctx context.Context, op *Op, tip logTip) (rotate bool, segment string) {
	op.ChainSince = op.Time
	if tip.last == nil {
		return false, ""
	}
	m, _ := Number(tip.last.ID)
	since := tip.last.ChainSince
	if since.IsZero() {
		since = tip.last.Time // a record from before segments
	}
	rotate = m%l.segmentSize(ctx) == 0 || l.keepAge(ctx) > 0 && op.Time.Sub(since) > l.keepAge(ctx)
	if rotate {
		return true, fmt.Sprintf("%s%010d-%.12s", l.segmentPrefix(), m, tip.commit)
	}
	op.ChainSince = since
	return false, ""
}

// pinnable returns those of wanted that are commits, which op's commit
// pins as parents. Commits the tip already pins (tipParents) are known to
// be commits; the others are looked at (in this process when loose).
func (l *Log) pinnable(ctx context.Context, wanted, tipParents []string) ([]string, error) {
	known := map[string]bool{}
	for _, p := range tipParents {
		known[p] = true
	}
	var ask []string
	for _, c := range wanted {
		if !known[c] {
			ask = append(ask, c)
		}
	}
	types, err := l.Repo.ObjectTypes(ctx, ask)
	if err != nil {
		return nil, err
	}
	var pins []string
	for _, c := range wanted {
		if known[c] || types[c] == "commit" {
			pins = append(pins, c)
		}
	}
	return pins, nil
}

// commitOn makes op's commit (tree, pinning pins) on the tip, or on a new
// chain's root when rotate, and moves the log's ref to it if the ref still
// points at the tip. done is false when another process appended first:
// the append is tried again from the new tip.
func (l *Log) commitOn(ctx context.Context, op *Op, tree string, tip logTip, rotate bool, segment string, pins []string) (done bool, err error) {
	msg, err := messageOf(op)
	if err != nil {
		return false, err
	}
	old := l.Repo.ZeroID()
	if tip.commit != "" {
		old = tip.commit
	}
	if rotate {
		// The segment ref is made before the log's ref moves past
		// it: a crash between the two leaves a segment that the
		// chain also holds (read once), never a lost one.
		if err := l.Repo.SetRef(ctx, git.SetRefRequest{Name: segment, New: tip.commit, Old: l.Repo.ZeroID()}); err != nil && !errors.Is(err, git.ErrRefConflict) {
			return false, err
		}
	}
	var parents []string
	if tip.commit != "" && !rotate {
		parents = append(parents, tip.commit)
	} else {
		// The chain starts at a root of its own, so that following
		// first parents never walks into the commits an op pins.
		root, err := l.root(ctx)
		if err != nil {
			return false, err
		}
		parents = append(parents, root)
	}
	parents = append(parents, pins...)
	c, err := l.Repo.CommitTree(ctx, git.CommitRequest{Tree: tree, Parents: parents, Message: string(msg) + "\n", Author: identity, Committer: identity})
	if err != nil {
		return false, err
	}
	err = l.Repo.SetRefFast(ctx, l.Ref, c, old)
	if errors.Is(err, git.ErrRefConflict) {
		if rotate {
			// Another process appended first: the chain goes on
			// from its record, and the segment is handed over later.
			_ = l.Repo.DeleteRef(ctx, segment, tip.commit)
		}
		return false, nil
	}
	if err != nil {
		return false, err
	}
	op.commit = c
	op.assigned = false
	if rotate {
		l.packSegment(ctx, segment, tip.commit)
	}
	return true, nil
}

// uncovered is the trees op keeps reachable less those that are the
// trees of commits it pins (an index that matched HEAD before and after:
// a checkpoint's), which the commits keep reachable already. A record that
// pins nothing else gets the empty tree, one object every record shares,
// so a dropped record leaves one unreachable object, its commit.
func (l *Log) uncovered(op *Op) []string {
	trees := op.trees()
	if len(trees) == 0 || !l.Repo.InProcess() || l.Repo.MayReplace() {
		return trees
	}
	covered := map[string]bool{}
	for _, c := range op.commits() {
		typ, data, ok := l.Repo.ReadObjectHere(c)
		if !ok || typ != "commit" {
			continue // read only when loose: otherwise the tree stays
		}
		if t, ok := bytes.CutPrefix(data, []byte("tree ")); ok {
			id, _, _ := bytes.Cut(t, []byte("\n"))
			covered[string(id)] = true
		}
	}
	var out []string
	for _, t := range trees {
		if !covered[t] {
			out = append(out, t)
		}
	}
	return out
}
