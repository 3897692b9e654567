package gitstore

// This file holds the packs a writer keeps with a .keep file, so that git
// gc leaves them as they are until the writer drops them: listing them,
// reading which objects one holds, and deleting one.

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nudgethis/git-nudge/internal/commitgraph"
)

// KeptPack is a pack with a .keep file: git gc and git repack leave it as
// it is (its objects are neither repacked nor loosened), so whoever wrote
// it decides when it goes. Base is its path without the extension; Note
// is what its .keep file says.
type KeptPack struct {
	Base, Note string
}

// PacksDir is the folder of the repository's packs, or "" when objects
// live where this process does not look for them (GIT_OBJECT_DIRECTORY).
func (r *Store) PacksDir() string {
	if os.Getenv("GIT_OBJECT_DIRECTORY") != "" {
		return ""
	}
	return filepath.Join(r.CommonDir, "objects", "pack")
}

// KeptPacks lists the kept packs whose .keep note starts with prefix.
func (r *Store) KeptPacks(prefix string) ([]KeptPack, error) {
	dir := r.PacksDir()
	if dir == "" {
		return nil, nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	var out []KeptPack
	for _, e := range ents {
		base, ok := strings.CutSuffix(e.Name(), ".keep")
		if !ok {
			continue
		}
		note, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil || !strings.HasPrefix(string(note), prefix) {
			continue
		}
		out = append(out, KeptPack{Base: filepath.Join(dir, base), Note: strings.TrimRight(string(note), "\n")})
	}
	return out, nil
}

// PackObjects lists the ids of the objects a pack holds, read from its
// version 2 index.
func (r *Store) PackObjects(p KeptPack) ([]string, error) {
	idx, err := os.ReadFile(p.Base + ".idx")
	if err != nil {
		return nil, err
	}
	size := len(r.ZeroID()) / 2
	const head = 8 + 256*4
	if len(idx) < head || !bytes.Equal(idx[:4], []byte{0xff, 't', 'O', 'c'}) || binary.BigEndian.Uint32(idx[4:8]) != 2 {
		return nil, fmt.Errorf("%s.idx: not a version 2 pack index", p.Base)
	}
	n := int(binary.BigEndian.Uint32(idx[head-4 : head]))
	if len(idx) < head+n*size {
		return nil, fmt.Errorf("%s.idx: truncated", p.Base)
	}
	ids := make([]string, n)
	for i := range ids {
		ids[i] = hex.EncodeToString(idx[head+i*size : head+(i+1)*size])
	}
	return ids, nil
}

// GCRunning reports whether a git gc may be running in the repository
// (its gc.pid is younger than the 12 hours after which git itself stops
// believing it).
func (r *Store) GCRunning() bool {
	st, err := os.Stat(filepath.Join(r.CommonDir, "gc.pid"))
	return err == nil && time.Since(st.ModTime()) < 12*time.Hour
}

// RemoveKeptPack deletes a kept pack: its index first (new readers stop
// seeing it), then the pack, then the rest, the .keep last.
func (r *Store) RemoveKeptPack(p KeptPack) error {
	for _, ext := range []string{".idx", ".pack", ".rev", ".mtimes", ".bitmap", ".promisor"} {
		if err := os.Remove(p.Base + ext); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	return os.Remove(p.Base + ".keep")
}

// CommitGraphFiles are the repository's commit-graph files
// (commitgraph.Files), none when objects live where this process does not
// look for them; chain reports whether there is a chain of layers.
func (r *Store) CommitGraphFiles() (files []string, chain bool) {
	if r.PacksDir() == "" {
		return nil, false
	}
	return commitgraph.Files(filepath.Join(r.CommonDir, "objects", "info"))
}

// CommitGraphLists reports whether one of the repository's commit-graph
// files lists one of ids (commit ids in hex), or cannot be read as one
// (commitgraph.ListsAny). With no ids, the usual call after a drop that
// deleted no commit, it looks at no file.
func (r *Store) CommitGraphLists(ids []string) bool {
	if len(ids) == 0 {
		return false
	}
	files, _ := r.CommitGraphFiles()
	return commitgraph.ListsAny(files, ids)
}
