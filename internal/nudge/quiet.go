package nudge

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/nudgethis/git-nudge/internal/filecache"
	"github.com/nudgethis/git-nudge/internal/guard"
	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/refs"
)

// Every mutating command's lock reconciles (Reconcile), and a snapshot's
// guard may look for suspects: both look for the few records that hold an
// unsettled state, a pending check, a suspect's state or the queued state
// (Pending, asked every second by an executor), among every task
// ever made. Most records are "quiet" (none of those, and a JSON object)
// and stay so: quietCacheName lists them with the key of the file each
// was read from (journal.FileKey: device, inode, size, modification and
// change times) and the record's "updated" field (what automatic pruning
// looks at, AnyOlder), and a record whose file still has that key is not
// read again (DECISIONS, 2026-12-01 "quiet records"). Records are written by
// rename, so any new version has a new key; a key is only listed once it
// is older than journal.Racy when read, so a later version in the same
// timestamp tick cannot share it. The file is a cache: written without a
// flush, ignored whole when anything in it does not parse, rebuilt from
// the records when missing.
const quietCacheName = "quiet-records"

// quietCacheMax bounds what is read of the cache (about 60 bytes a task).
const quietCacheMax = 64 << 20

// quietHeader starts the cache and names what "quiet" means: a binary
// that looks for other words in the records ignores a cache made by one
// that looked for these.
var quietHeader = func() string {
	h := sha256.New()
	// The lines' format: a cache of another format is not used.
	h.Write([]byte("id dev ino size mtime ctime updated\x00"))
	for _, words := range [][][]byte{unsettledStates, suspectWords, {guardPendingTrue, pendingWord}} {
		for _, w := range words {
			h.Write(w)
			h.Write([]byte{0})
		}
		h.Write([]byte{1})
	}
	return "git-nudge quiet records " + hex.EncodeToString(h.Sum(nil)[:8])
}()

// pendingWord is in the bytes of a record whose task is queued (Pending
// looks for it; a quiet record never holds it).
var pendingWord = []byte(`"` + StatePending + `"`)

// quiet reports whether a record's bytes need none of the scans' attention.
func quiet(path string, data []byte) bool {
	return !mayBeUnsettled(data) && !hasSuspectWord(data) && !bytes.Contains(data, guardPendingTrue) &&
		!bytes.Contains(data, pendingWord) &&
		journal.CheckObject(path, data) == nil
}

// quietRecords is the cache as read, and what a scan learns.
type quietRecords struct {
	path  string
	tasks *os.File // the tasks folder, to stat records in (nil: by path)
	keys  map[string]journal.FileKey
	// updated holds, for listed records, their "updated" field in Unix
	// nanoseconds (0: not known, the record is read).
	updated map[string]int64
	// shared is set while keys and updated are the ones quietParsed
	// holds for other scans of this process: copied before a change.
	shared bool
	// changes counts the listings added or removed; rewrite is set when
	// the file must be written whatever their number.
	changes int
	rewrite bool
}

// quietRewriteAfter is how many changed listings make a scan rewrite the
// cache: fewer cost a read each (a record made by one of the last
// commands, about 15 µs), a rewrite costs about as much as fifty of them.
const quietRewriteAfter = 32

// quietParsed is the cache as parsed, per path, kept for the other scans
// of this process (a mutating command scans the records two or three
// times, and automatic pruning once before it) while the file is the
// version it was parsed from (filecache: same key, settled when read).
// Its maps are never changed: a scan copies them before it notes a change.
var quietParsed struct {
	sync.Mutex
	c filecache.Cache[string, parsedQuiet]
}

type parsedQuiet struct {
	keys    map[string]journal.FileKey
	updated map[string]int64
}

// quietRecordsOf reads the workspace's cache; a missing or unreadable one
// is empty. close must be called.
func (w *Workspace) quietRecordsOf() *quietRecords {
	q := &quietRecords{path: filepath.Join(w.Dir, quietCacheName)}
	if f, err := os.Open(w.TasksDir()); err == nil {
		q.tasks = f
	}
	quietParsed.Lock()
	p, _, err := quietParsed.c.Load(q.path, q.path, func() (parsedQuiet, error) {
		data, err := readSmallRegular(q.path, quietCacheMax)
		if err != nil {
			return parsedQuiet{}, err
		}
		keys, updated, ok := parseQuiet(data)
		if !ok {
			return parsedQuiet{}, errQuietUnusable
		}
		return parsedQuiet{keys, updated}, nil
	})
	quietParsed.Unlock()
	switch {
	case err == nil:
		q.keys, q.updated, q.shared = p.keys, p.updated, true
	case errors.Is(err, errQuietUnusable):
		q.rewrite = true // replace what cannot be used
	default:
		// Built when missing, except by a command that only reads.
		q.rewrite = !errors.Is(err, fs.ErrNotExist) || q.tasks != nil && !w.readOnly
	}
	if q.keys == nil {
		q.keys, q.updated = map[string]journal.FileKey{}, map[string]int64{}
	}
	return q
}

// errQuietUnusable is a cache that does not parse.
var errQuietUnusable = errors.New("quiet-records cache does not parse")

// own makes keys and updated the scan's own before it changes them.
func (q *quietRecords) own() {
	if q.shared {
		q.keys, q.updated, q.shared = maps.Clone(q.keys), maps.Clone(q.updated), false
	}
}

func (q *quietRecords) close() {
	if q.tasks != nil {
		q.tasks.Close()
	}
}

// known reports whether id's record is quiet as listed: its file's key
// is the one it was read with. key is the key now (ok false if none).
func (q *quietRecords) known(w *Workspace, id string) (key journal.FileKey, ok, quietNow bool) {
	if q.tasks != nil {
		key, ok = journal.StatKeyAt(q.tasks, id+".json")
	} else {
		key, ok = journal.StatKey(w.TaskPath(id))
	}
	if !ok {
		return key, false, false
	}
	listed, isListed := q.keys[id]
	return key, true, isListed && listed == key
}

// note records what a read of id's record (data) found: key is its
// file's key taken before the read (a file replaced in between is listed
// under the older key, so the next scan reads it again), at when the read
// began.
func (q *quietRecords) note(id string, key journal.FileKey, haveKey, isQuiet bool, at time.Time, data []byte) {
	if isQuiet && haveKey && key.Settled(at) {
		if old, ok := q.keys[id]; !ok || old != key {
			q.own()
			q.keys[id] = key
			q.updated[id] = 0
			if t, ok := recordUpdated(data); ok {
				q.updated[id] = t.UnixNano()
			}
			q.changes++
		}
		return
	}
	if _, ok := q.keys[id]; ok {
		q.own()
		delete(q.keys, id)
		delete(q.updated, id)
		q.changes++
	}
}

// keep drops the listed records that are not in ids (dropped tasks).
func (q *quietRecords) keep(ids []string) {
	if len(q.keys) == 0 {
		return
	}
	present := make(map[string]bool, len(ids))
	for _, id := range ids {
		present[id] = true
	}
	for id := range q.keys {
		if !present[id] {
			q.own()
			delete(q.keys, id)
			delete(q.updated, id)
			q.changes++
		}
	}
}

// save writes the cache when it must be, or enough changed: a temp file
// renamed into place, not flushed (after a crash it is rebuilt), and not
// a journal (the operation log has nothing to record of it).
func (q *quietRecords) save(ids []string) {
	if !q.rewrite && q.changes < quietRewriteAfter {
		return
	}
	b := make([]byte, 0, 64*(len(q.keys)+2))
	b = append(append(b, quietHeader...), '\n')
	n := 0
	for _, id := range ids { // in id order
		k, ok := q.keys[id]
		if !ok {
			continue
		}
		b = append(b, id...)
		for _, v := range [...]int64{int64(k.Dev), int64(k.Ino), k.Size, k.Mtime, k.Ctime, q.updated[id]} {
			b = strconv.AppendInt(append(b, ' '), v, 10)
		}
		b = append(b, '\n')
		n++
	}
	b = strconv.AppendInt(append(b, "end "...), int64(n), 10)
	b = append(b, '\n')
	dir := filepath.Dir(q.path)
	removeStaleTemps(dir, "."+quietCacheName+".tmp-")
	f, err := os.CreateTemp(dir, "."+quietCacheName+".tmp-*")
	if err != nil {
		return
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), q.path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return
	}
	q.changes, q.rewrite = 0, false
}

// removeStaleTemps removes the temp files (name starting with prefix) that
// a process killed while saving left in dir: those over a minute old (one
// being written now lives for a millisecond).
func removeStaleTemps(dir, prefix string) {
	matches, _ := filepath.Glob(filepath.Join(dir, prefix+"*"))
	for _, m := range matches {
		if fi, err := os.Lstat(m); err == nil && fi.Mode().IsRegular() && time.Since(fi.ModTime()) > time.Minute {
			_ = os.Remove(m)
		}
	}
}

// parseQuiet reads the cache's lines: each listed record's file key and
// "updated" field; ok is false unless every line is as save writes it,
// and the count at the end agrees (a file cut short by a crash is not
// used).
func parseQuiet(data []byte) (keys map[string]journal.FileKey, updated map[string]int64, ok bool) {
	line, rest, _ := bytes.Cut(data, []byte{'\n'})
	if string(line) != quietHeader {
		return nil, nil, false
	}
	n := bytes.Count(rest, []byte{'\n'})
	keys, updated = make(map[string]journal.FileKey, n), make(map[string]int64, n)
	for len(rest) > 0 {
		var found bool
		line, rest, found = bytes.Cut(rest, []byte{'\n'})
		if !found {
			return nil, nil, false
		}
		id, nums, _ := bytes.Cut(line, []byte{' '})
		if string(id) == "end" {
			n, err := strconv.Atoi(string(nums))
			return keys, updated, err == nil && n == len(keys) && len(rest) == 0
		}
		var v [6]int64
		for i := range v {
			var num []byte
			num, nums, _ = bytes.Cut(nums, []byte{' '})
			x, err := strconv.ParseInt(string(num), 10, 64)
			if err != nil {
				return nil, nil, false
			}
			v[i] = x
		}
		if len(nums) != 0 || !refs.Task.Valid(string(id)) {
			return nil, nil, false
		}
		keys[string(id)] = journal.FileKey{Dev: uint64(v[0]), Ino: uint64(v[1]), Size: v[2], Mtime: v[3], Ctime: v[4]}
		updated[string(id)] = v[5]
	}
	return nil, nil, false
}

// readSmallRegular reads path if it is a regular file (see guard.OpenPlain) of
// at most max bytes.
func readSmallRegular(path string, max int64) ([]byte, error) {
	root, err := os.OpenRoot(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return guard.ReadPlain(root, filepath.Base(path), max)
}
