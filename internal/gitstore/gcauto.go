package gitstore

// This file holds the look git gc --auto takes at the object folder.

import (
	"os"
	"path/filepath"
	"strings"
)

// objectsDir is the object folder git uses: GIT_OBJECT_DIRECTORY when
// set, else the common dir's objects.
func (r *Store) objectsDir() string {
	if objects := os.Getenv("GIT_OBJECT_DIRECTORY"); objects != "" {
		return objects
	}
	return filepath.Join(r.CommonDir, "objects")
}

// LooseObjectsOver reports whether the repository holds more than limit
// loose objects, estimated as git's gc --auto does from folder 17 (a
// 256th of them).
func (r *Store) LooseObjectsOver(limit int64) bool {
	ents, err := os.ReadDir(filepath.Join(r.objectsDir(), "17"))
	if err != nil {
		return false
	}
	threshold := (limit + 255) / 256
	var n int64
	for _, e := range ents {
		if len(e.Name()) >= 38 && strings.Trim(e.Name(), "0123456789abcdef") == "" {
			if n++; n > threshold {
				return true
			}
		}
	}
	return false
}

// PacksOver reports whether the repository holds more than limit packs
// without a .keep file.
func (r *Store) PacksOver(limit int64) bool {
	ents, err := os.ReadDir(filepath.Join(r.objectsDir(), "pack"))
	if err != nil {
		return false
	}
	keep := map[string]bool{}
	for _, e := range ents {
		if base, ok := strings.CutSuffix(e.Name(), ".keep"); ok {
			keep[base] = true
		}
	}
	var packs int64
	for _, e := range ents {
		if base, ok := strings.CutSuffix(e.Name(), ".pack"); ok && !keep[base] {
			packs++
		}
	}
	return packs > limit
}
