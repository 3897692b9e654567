package record

import (
	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/worktree"
)

// Modes of the files apply and undo write.
const (
	ModeFile = git.ModeFile
	ModeExec = git.ModeExec
)

func IsRegularMode(m *string) bool { return m != nil && (*m == ModeFile || *m == ModeExec) }

// Present reports whether ps describes a file (rather than no file).
func Present(ps PathState) bool { return ps.Blob != nil }

// CompleteUndo reports whether u is a complete undo record that undo may
// act on: as many paths after as before, each the same path on both sides
// and one the work-tree layer accepts, each side a regular file or no file
// (mode and blob both set or both nil), kept raw bytes only before and only
// for a file.
func CompleteUndo(u *Undo) bool {
	if u == nil || len(u.Before) == 0 || len(u.Before) != len(u.After) {
		return false
	}
	for i := range u.Before {
		b, a := u.Before[i], u.After[i]
		if b.Path != a.Path || worktree.ValidPath(b.Path) != nil ||
			(b.Mode == nil) != (b.Blob == nil) || (a.Mode == nil) != (a.Blob == nil) ||
			(Present(b) && !IsRegularMode(b.Mode)) || (Present(a) && !IsRegularMode(a.Mode)) ||
			(b.RawBlob != nil && !Present(b)) || a.RawBlob != nil {
			return false
		}
	}
	return true
}
