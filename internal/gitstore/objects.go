package gitstore

// This file holds objects as this process names them: tree-entry modes, the size limit,
// object ids hashed in the repository's format, and what is known of one
// object.

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"strconv"
	"strings"
)

// Modes of tree entries, as git spells them in ls-tree and index output:
// the one place the suite names them.
const (
	ModeFile    = "100644"
	ModeExec    = "100755"
	ModeSymlink = "120000"
	ModeGitlink = "160000" // a submodule's commit
	ModeTree    = "40000"  // as in a tree object; ls-files and --index-info say 040000
)

// MaxFileSize is the largest file content the suite captures or writes
// (16 MiB): snapshot.MaxFileSize and nudge.MaxFileSize are this.
const MaxFileSize = 16 << 20

// AbsentMode reports whether mode says "no file": git's zero mode
// "000000" on the absent side of a change (diff-tree, status), or any
// other spelling of zero (a record's "0", an empty TreeEdit mode). It is
// the one test for it.
func AbsentMode(mode string) bool { return strings.Trim(mode, "0") == "" }

// ObjectInfo is what cat-file --batch-check says of one object.
type ObjectInfo struct {
	Type    string // "blob", "tree", ...; "" when missing
	Size    int64
	Missing bool
}

// BlobID is the id git gives data as a blob in this repository's hash
// format, computed without running git.
func (r *Store) BlobID(data []byte) string {
	return r.ObjectID("blob", data)
}

// ObjectID is the id git gives an object of type typ holding data: the
// one place object ids are hashed.
func (r *Store) ObjectID(typ string, data []byte) string {
	h := r.NewObjectHash(typ, int64(len(data)))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// NewObjectHash is a hash in the repository's object format, already
// given the header of an object of type typ and size bytes: the one place
// the format and the header are chosen.
func (r *Store) NewObjectHash(typ string, size int64) hash.Hash {
	var h hash.Hash
	if r.ObjectFormat == "sha256" {
		h = sha256.New()
	} else {
		h = sha1.New()
	}
	h.Write(strconv.AppendInt([]byte(typ+" "), size, 10))
	h.Write([]byte{0})
	return h
}
