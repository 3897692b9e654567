package oplog

import (
	"context"
	"fmt"
	"strings"

	"github.com/nudgethis/git-nudge/internal/pathenc"
	"github.com/nudgethis/git-nudge/internal/refs"
	"github.com/nudgethis/git-nudge/internal/snapshot"
	"github.com/nudgethis/git-nudge/internal/worktree"
)

// The operation log is untrusted input (docs/SECURITY.md): anyone who can
// write to the repository can append a record, and op undo writes what a
// record says. Before an undo or redo writes anything, its record is
// checked whole against what the suite itself records; a record that
// fails any check is refused with every reason, and nothing is written
// (no file, no journal, no ref, no object, no pending record).

// Journals are the files a record may name as journals: the suite's own,
// relative to the work tree's top level. A journal kind added by a command
// goes here (an exact name), or under a folder of journalFolders.
var Journals = []string{
	refs.SavesJournal,
	refs.CheckpointsJournal,
	refs.StateJournal,
}

// journalFolders hold one journal per file "<name>.json" directly inside
// (task records).
var journalFolders = []string{refs.TasksFolder}

// RefFolders are the ref folders a record may name (besides HEAD): the
// branches and the suite's own refs. The log's own refs are never among
// them.
var RefFolders = []string{refs.Heads, refs.Nudge, refs.Autodev}

// trustedJournal reports whether f is one of the suite's journals.
func trustedJournal(f string) bool {
	if worktree.ValidPath(f) != nil {
		return false
	}
	for _, j := range Journals {
		if f == j {
			return true
		}
	}
	for _, d := range journalFolders {
		name, ok := strings.CutPrefix(f, d)
		if ok && name != ".json" && strings.HasSuffix(name, ".json") && !strings.ContainsAny(name, "/\\") && safeName(name) {
			return true
		}
	}
	return false
}

// safeName: printable ASCII without spaces (task ids and file names the
// suite makes are plain).
func safeName(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return false
		}
	}
	return s != ""
}

// trustedRef reports whether name is HEAD or a well-formed ref under one
// of RefFolders.
func trustedRef(name string) bool {
	if name == "HEAD" {
		return true
	}
	under := false
	for _, p := range RefFolders {
		if strings.HasPrefix(name, p) && len(name) > len(p) {
			under = true
		}
	}
	if !under || strings.HasPrefix(name, refs.Oplog) || !safeName(name) {
		return false
	}
	// git check-ref-format's rules that matter here.
	if strings.Contains(name, "..") || strings.Contains(name, "//") || strings.Contains(name, "@{") ||
		strings.HasSuffix(name, "/") || strings.HasSuffix(name, ".") || strings.HasSuffix(name, ".lock") ||
		strings.ContainsAny(name, "~^:?*[\\") {
		return false
	}
	for _, c := range strings.Split(name, "/") {
		if strings.HasPrefix(c, ".") {
			return false
		}
	}
	return true
}

// protection is the built-in protected paths: .git at any
// depth, .nudgethis, .autodev, .env... A record's work-tree file may be
// none of them (the suite's state changes only as journals, checked
// above). nudge.protect is not consulted: it can change after the
// record was made, and the built-in rules are what an attacker aims at.
var protection = snapshot.Options{}.Protection()

// Untrusted lists every reason op's record may not be acted on (nil: none).
// It checks the names first, then (one look at the object store) that
// every object the record names is there and of its kind. It writes
// nothing.
func (l *Log) Untrusted(ctx context.Context, op *Op) ([]string, error) {
	return l.untrusted(ctx, op, nil)
}

// untrusted is Untrusted with the types of objects already looked up
// (known; the rest are looked up here).
func (l *Log) untrusted(ctx context.Context, op *Op, known map[string]string) ([]string, error) {
	reasons, want := l.checkNames(op)
	if len(want) == 0 {
		return reasons, nil
	}
	ids := sortedKeys(want)
	var ask []string
	for _, id := range ids {
		if _, ok := known[id]; !ok {
			ask = append(ask, id)
		}
	}
	types := known
	if len(ask) > 0 {
		got, err := l.Repo.ObjectTypes(ctx, ask)
		if err != nil {
			return nil, err
		}
		types = got
		for id, t := range known {
			types[id] = t
		}
	}
	for _, id := range ids {
		switch got := types[id]; {
		case got == "":
			reasons = append(reasons, fmt.Sprintf("it names the object %s, which this repository does not have", id))
		case want[id] != "" && got != want[id]:
			reasons = append(reasons, fmt.Sprintf("it names the object %s as a %s, but it is a %s", id, want[id], got))
		}
	}
	return reasons, nil
}

// objectTypes looks up, in one go, the objects every record of ops names
// (the dashboard checks every operation at once).
func (l *Log) objectTypes(ctx context.Context, ops []*Op) (map[string]string, error) {
	seen := map[string]bool{}
	var ids []string
	for _, o := range ops {
		_, want := l.checkNames(o)
		for id := range want {
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	if len(ids) == 0 {
		return map[string]string{}, nil
	}
	return l.Repo.ObjectTypes(ctx, ids)
}

// checkNames checks what op's record names, and returns the objects it
// needs (id -> type, "" for any).
func (l *Log) checkNames(op *Op) ([]string, map[string]string) {
	var reasons []string
	bad := func(format string, a ...any) { reasons = append(reasons, fmt.Sprintf(format, a...)) }
	want := map[string]string{} // object id -> type
	need := func(id, typ, what string) {
		switch {
		case id == "":
		case !l.Repo.ValidID(id):
			bad("%s names %q, which is not an object id of this repository", what, pathenc.Text(id))
		default:
			want[id] = typ
		}
	}
	for _, r := range op.Refs {
		if !trustedRef(r.Name) {
			bad("it names the ref %s, which is not a branch or one of the suite's refs", pathenc.CQuote(r.Name))
			continue
		}
		for _, v := range []string{r.Old, r.New} {
			if b, ok := strings.CutPrefix(v, "ref: "); ok && r.Name == "HEAD" {
				if !strings.HasPrefix(b, "refs/heads/") || !trustedRef(b) {
					bad("it points HEAD at %s, which is not a branch", pathenc.CQuote(b))
				}
				continue
			}
			// Any kind of object: the suite's refs are mostly commits,
			// but a ref's value is recorded as it was.
			need(v, "", "ref "+r.Name)
		}
	}
	for _, j := range op.Journals {
		if !trustedJournal(j.File) {
			bad("it names %s as a journal, which is not one of the suite's journals (%s, .nudgethis/tasks/*.json)", pathenc.CQuote(j.File), strings.Join(Journals, ", "))
			continue
		}
		if j.Delta != nil {
			// Neither version is stored: the ids are checked against
			// the file and the rebuilt bytes when it is undone.
			// A change told by an append in place names its versions by
			// its own bytes alone (no ids).
			named := j.Old != "" && j.New != "" && l.Repo.ValidID(j.Old) && l.Repo.ValidID(j.New)
			if !j.Delta.valid() || !(named || j.Delta.Unnamed(j)) {
				bad("journal %s has a malformed recorded change", pathenc.CQuote(j.File))
			}
			continue
		}
		need(j.Old, "blob", "journal "+j.File)
		need(j.New, "blob", "journal "+j.File)
	}
	for _, f := range op.Files {
		p, err := pathenc.Decode(f.Path, f.PathB64)
		if err != nil {
			bad("it names a file path that cannot be decoded (%v)", err)
			continue
		}
		if err := worktree.ValidPath(p); err != nil {
			bad("it names the file %s, which is not a path inside the work tree (%s)", pathenc.CQuote(p), err.(*worktree.PathError).Reason)
			continue
		}
		if protection.Protected(p) {
			bad("it names the file %s, which is protected (%s)", pathenc.CQuote(p), snapshot.ProtectedSummary)
			continue
		}
		for _, v := range []*File{f.Before, f.After} {
			if v == nil {
				continue
			}
			switch v.Mode {
			case "100644", "100755", "120000":
				need(v.Blob, "blob", "file "+pathenc.Quote(p))
				if v.Blob == "" {
					bad("file %s has no blob recorded", pathenc.Quote(p))
				}
			case "040000", "unreadable":
				// Recorded as seen; undo refuses to bring such a thing back.
			default:
				bad("file %s has the unknown mode %q", pathenc.Quote(p), pathenc.Text(v.Mode))
			}
		}
	}
	if ix := op.Index; ix != nil {
		need(ix.Old, "blob", "the index")
		need(ix.New, "blob", "the index")
		need(ix.OldTree, "tree", "the index")
		need(ix.NewTree, "tree", "the index")
	}
	for _, t := range op.Pins {
		need(t, "tree", "a pinned tree")
	}
	return reasons, want
}
