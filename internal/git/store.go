package git

// This file names, in package git, what its callers use of the in-process
// store (packages gitstore and gitindex), and is where Repo meets the Store's Git: the
// git processes a Store leaves to the porcelain.

import (
	"context"

	"github.com/nudgethis/git-nudge/internal/gitindex"
	"github.com/nudgethis/git-nudge/internal/gitstore"
)

// Types of the in-process store, named here so that callers keep writing
// git.Index, git.IndexEntry and so on.
type (
	Index            = gitstore.Index
	IndexEntry       = gitstore.IndexEntry
	IndexFile        = gitindex.IndexFile
	IndexLockedError = gitindex.IndexLockedError
	ObjectInfo       = gitstore.ObjectInfo
	Head             = gitstore.Head
	ConfigEntry      = gitstore.ConfigEntry
	TreeEdit         = gitstore.TreeEdit
	FolderEdit       = gitstore.FolderEdit
	TreeEditor       = gitstore.TreeEditor
	TreeProblem      = gitstore.TreeProblem
	KnownFolders     = gitindex.KnownFolders
	LeftoverIndex    = gitindex.LeftoverIndex
	BlobReader       = gitstore.BlobReader
	KeptPack         = gitstore.KeptPack
)

// Modes of tree entries and the size limit, as gitstore spells them.
const (
	ModeFile    = gitstore.ModeFile
	ModeExec    = gitstore.ModeExec
	ModeSymlink = gitstore.ModeSymlink
	ModeGitlink = gitstore.ModeGitlink
	ModeTree    = gitstore.ModeTree
	MaxFileSize = gitstore.MaxFileSize
)

// ErrIndexLocked reports that another git process holds index.lock.
var ErrIndexLocked = gitindex.ErrIndexLocked

// AbsentMode reports whether mode says "no file" (gitstore.AbsentMode).
func AbsentMode(mode string) bool { return gitstore.AbsentMode(mode) }

// ParseConfigInt is gitstore.ParseConfigInt: a plain decimal config
// integer with an optional k, m or g unit, read as git reads it.
func ParseConfigInt(v string) (int64, bool) { return gitstore.ParseConfigInt(v) }

// UntrackedCacheFS is gitindex.UntrackedCacheFS.
func UntrackedCacheFS(dir string) bool { return gitindex.UntrackedCacheFS(dir) }

// StartProc starts a long-lived git child spoken to through pipes, for
// the Store (gitstore.Git).
func (r *Repo) StartProc(ctx context.Context, args ...string) (gitstore.Proc, error) {
	return r.startProc(ctx, args...)
}
