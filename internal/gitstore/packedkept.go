package gitstore

// This file holds packed-refs as parsed, kept between reads in one
// process while the file is the version it was parsed from.

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// packedList is the refs of one version of a packed-refs file, sorted by
// name; where a name is listed twice the later line counts, as it does
// when the lines are read in order.
type packedList struct {
	names, ids []string
}

// lookup is name's id in l.
func (l *packedList) lookup(name string) (string, bool) {
	found := ""
	for i := sort.SearchStrings(l.names, name); i < len(l.names) && l.names[i] == name; i++ {
		found = l.ids[i]
	}
	return found, found != ""
}

// under calls each for every ref whose name starts with prefix, in the
// file's order where names repeat.
func (l *packedList) under(prefix string, each func(name, id string)) {
	for i := sort.SearchStrings(l.names, prefix); i < len(l.names) && strings.HasPrefix(l.names[i], prefix); i++ {
		each(l.names[i], l.ids[i])
	}
}

// packedKept holds each packed-refs file's parse with the file's
// identity (FileID), kept by the same rule as the ref folders' listings
// (walkLoose): used again only while the file has the identity it had
// before and after it was read, and only when its change time was more
// than refCacheRecent in the past then. git writes packed-refs by
// renaming a new file into place (a new inode), and a change time cannot
// be set back, so no version passes for another. A process that asks for
// a few refs many times (the dashboard) parses the file once per
// version, however many refs it holds.
var packedKept struct {
	sync.Mutex
	m map[string]keptPacked // packed-refs path -> its parse
}

type keptPacked struct {
	stamp FileID
	list  *packedList
}

// packedKeptMax bounds the files kept (a process that opens many
// repositories, such as a test binary); past it the cache starts afresh.
const packedKeptMax = 64

// packed returns the refs of r's packed-refs file (nil when there is
// none); ok is false when git should read it (unreadable, or a line
// packedRefs does not take). The list is shared: never changed.
func (r *Store) packed() (l *packedList, ok bool) {
	path := filepath.Join(r.CommonDir, "packed-refs")
	before, isFile := IDOfPath(path)
	if !isFile {
		_, err := os.Lstat(path)
		return nil, errors.Is(err, fs.ErrNotExist)
	}
	packedKept.Lock()
	e, kept := packedKept.m[path]
	packedKept.Unlock()
	if kept && e.stamp == before {
		return e.list, true
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, true // removed since: no packed refs
	}
	if err != nil {
		return nil, false
	}
	type ref struct{ name, id string }
	var refs []ref
	if !r.packedRefs(b, func(name, id string) { refs = append(refs, ref{name, id}) }) {
		return nil, false
	}
	sort.SliceStable(refs, func(i, j int) bool { return refs[i].name < refs[j].name })
	l = &packedList{names: make([]string, len(refs)), ids: make([]string, len(refs))}
	for i, x := range refs {
		l.names[i], l.ids[i] = x.name, x.id
	}
	after, _ := IDOfPath(path)
	packedKept.Lock()
	defer packedKept.Unlock()
	if after != before || time.Now().UnixNano()-before.Ctime <= refCacheRecent {
		delete(packedKept.m, path)
		return l, true
	}
	if packedKept.m == nil || len(packedKept.m) >= packedKeptMax {
		packedKept.m = map[string]keptPacked{}
	}
	packedKept.m[path] = keptPacked{stamp: before, list: l}
	return l, true
}
