// Package commitgraph reads git's commit-graph files (a single file or a
// chain of layers) in this process, as far as telling whether they list
// given commits. It imports no package of the project.
package commitgraph

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Files are the commit-graph files of the object folder whose info
// folder is info (objects/info): the single one (info/commit-graph) and
// the layers its chain names (info/commit-graphs/), those that exist;
// chain reports whether there is a chain.
func Files(info string) (files []string, chain bool) {
	if st, err := os.Stat(filepath.Join(info, "commit-graph")); err == nil && st.Mode().IsRegular() {
		files = append(files, filepath.Join(info, "commit-graph"))
	}
	f, err := os.Open(filepath.Join(info, "commit-graphs", "commit-graph-chain"))
	if err != nil {
		return files, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if h := strings.TrimSpace(sc.Text()); h != "" {
			files = append(files, filepath.Join(info, "commit-graphs", "graph-"+h+".graph"))
		}
	}
	return files, true
}

// ListsAny reports whether one of files (commit-graph files) lists one of
// ids (commit ids in hex). A file it cannot read as a commit graph counts
// as listing them: the caller then has git write the graph again, which is
// what it would do for a stale one. A file gone meanwhile lists nothing.
func ListsAny(files, ids []string) bool {
	if len(ids) == 0 || len(files) == 0 {
		return false
	}
	want := make([][]byte, 0, len(ids))
	for _, id := range ids {
		b, err := hex.DecodeString(id)
		if err != nil {
			continue
		}
		want = append(want, b)
	}
	for _, p := range files {
		found, err := graphListsAny(p, want)
		if err != nil || found {
			return true
		}
	}
	return false
}

// graphListsAny looks each of want up in the OID fanout and lookup chunks
// of the commit-graph file p, reading only the header, the chunk table,
// the fanout and the entries a binary search touches.
func graphListsAny(p string, want [][]byte) (bool, error) {
	f, err := os.Open(p)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return false, nil // a layer removed meanwhile by git
		}
		return false, err
	}
	defer f.Close()
	var head [8]byte
	if _, err := f.ReadAt(head[:], 0); err != nil {
		return false, err
	}
	if !bytes.Equal(head[:4], []byte("CGPH")) || head[4] != 1 {
		return false, errors.New(p + ": not a version 1 commit graph")
	}
	hashLen := map[byte]int{1: 20, 2: 32}[head[5]]
	if hashLen == 0 {
		return false, errors.New(p + ": unknown hash version")
	}
	n := int(head[6])
	table := make([]byte, (n+1)*12)
	if _, err := f.ReadAt(table, 8); err != nil {
		return false, err
	}
	var fanoutAt, lookupAt int64 = -1, -1
	for i := 0; i < n; i++ {
		off := int64(binary.BigEndian.Uint64(table[i*12+4:]))
		switch string(table[i*12 : i*12+4]) {
		case "OIDF":
			fanoutAt = off
		case "OIDL":
			lookupAt = off
		}
	}
	if fanoutAt < 0 || lookupAt < 0 {
		return false, errors.New(p + ": no OID chunks")
	}
	fanout := make([]byte, 256*4)
	if _, err := f.ReadAt(fanout, fanoutAt); err != nil {
		return false, err
	}
	at := func(i int) uint32 { return binary.BigEndian.Uint32(fanout[i*4:]) }
	buf := make([]byte, hashLen)
	for _, id := range want {
		if len(id) != hashLen {
			continue
		}
		lo := 0
		if id[0] > 0 {
			lo = int(at(int(id[0]) - 1))
		}
		hi := int(at(int(id[0])))
		var readErr error
		i := lo + sort.Search(hi-lo, func(k int) bool {
			if _, err := f.ReadAt(buf, lookupAt+int64(lo+k)*int64(hashLen)); err != nil && err != io.EOF {
				readErr = err
				return true
			}
			return bytes.Compare(buf, id) >= 0
		})
		if readErr != nil {
			return false, readErr
		}
		if i < hi {
			if _, err := f.ReadAt(buf, lookupAt+int64(i)*int64(hashLen)); err != nil {
				return false, err
			}
			if bytes.Equal(buf, id) {
				return true, nil
			}
		}
	}
	return false, nil
}
