// Package gitstore reads and writes git's own files in this process: loose
// and packed objects, ref files and packed-refs, plain config files and
// trees (package gitindex, on top of it, does the index files). It never starts git itself: where a case is not one it handles,
// it asks the Git its Store was given, which is how package git (the
// porcelain that starts git processes) plugs in.
package gitstore

import (
	"bufio"
	"context"
	"io"
	"strings"
)

// Store is one repository's files as this process reads and writes them.
// Its paths are absolute. Git must be set before a method that may fall
// back to git is called (package git's Repo sets it to itself).
type Store struct {
	GitDir       string // this worktree's git dir, absolute
	CommonDir    string // the shared git dir, absolute (== GitDir outside linked worktrees)
	WorkTree     string // top level of the work tree, absolute
	ObjectFormat string // "sha1" or "sha256"
	// fast caches fastOK's answer (0 not yet known, 1 yes, 2 no).
	fast int32
	// Git starts git for the cases this package leaves to it.
	Git Git
}

// ZeroID is the all-zero object id in this repository's hash format.
func (r *Store) ZeroID() string {
	if r.ObjectFormat == "sha256" {
		return strings.Repeat("0", 64)
	}
	return strings.Repeat("0", 40)
}

// EmptyTree is the id of the empty tree in this repository's hash format.
func (r *Store) EmptyTree() string {
	if r.ObjectFormat == "sha256" {
		return "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321"
	}
	return "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
}

func (r *Store) validID(id string) bool {
	n := 40
	if r.ObjectFormat == "sha256" {
		n = 64
	}
	return len(id) == n && IsHexID(id)
}

// ValidID reports whether id is a full object id in this repository's
// format (40 or 64 lowercase hex digits): a value safe to hand to git as
// an object, never read as a revision expression or an option.
func (r *Store) ValidID(id string) bool { return r.validID(id) }

func (r *Store) HashLen() int {
	if r.ObjectFormat == "sha256" {
		return 32
	}
	return 20
}

// IsHexID reports whether s is a full object id of either length.
func IsHexID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Git is what a Store asks of git for the cases it leaves to it. Package
// git's Repo is the one implementation; a Store never starts git itself.
type Git interface {
	// StartProc starts a long-lived git child (cat-file --batch, mktree
	// --batch) spoken to through pipes.
	StartProc(ctx context.Context, args ...string) (Proc, error)
	// ConfigGetRegexp lists the config entries whose names match pattern,
	// includes followed.
	ConfigGetRegexp(ctx context.Context, pattern string) ([]ConfigEntry, error)
	// UpdateIndexEntries sets entries in ix (the user's index when ix is
	// the zero Index), keeping every other entry.
	UpdateIndexEntries(ctx context.Context, ix Index, entries []IndexEntry) error
	// HeadTree is HEAD and the tree of its commit.
	HeadTree(ctx context.Context) (Head, string, error)
	// HashFilesRaw is the blob id of each file's bytes, written to the
	// object store when write is set.
	HashFilesRaw(ctx context.Context, paths []string, write bool) ([]string, error)
}

// Proc is a started long-lived git child: its input, its output, and how
// it ends.
type Proc interface {
	Stdin() io.Writer
	Stdout() *bufio.Reader
	// Close ends the child's input and waits for it.
	Close() error
	// Fail ends the child after err (a pipe's error) and returns git's own
	// complaint when it made one, else err.
	Fail(err error) error
	// Kill stops the child at once (it may be blocked writing).
	Kill()
}
