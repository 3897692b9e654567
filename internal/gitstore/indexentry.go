package gitstore

// This file holds the index entry and index file names that both sides
// of the store speak in.

import ()

// InPathOrder lists found's entries in the order of paths, with an empty
// Mode and Blob for a path found lacks (IndexEntries, FilesAt).
func InPathOrder(paths []string, found map[string]IndexEntry) []IndexEntry {
	entries := make([]IndexEntry, len(paths))
	for i, p := range paths {
		if e, ok := found[p]; ok {
			entries[i] = e
		} else {
			entries[i] = IndexEntry{Path: p}
		}
	}
	return entries
}

// Index names an index file for plumbing commands. The zero value is the
// user's own index (only commands defined to touch it may use that).
type Index struct {
	Path string // absolute path of a private index file, "" for the user's index
}

// IndexEntry is one index entry to set: Mode "" (or "0") and Blob "" remove
// the path from the index.
type IndexEntry struct {
	Path string
	Mode string
	Blob string
}
