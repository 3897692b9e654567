package nudge

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"testing"
	"time"
)

// quietListed is what the workspace's quiet-records cache lists (nil when
// it cannot be used).
func quietListed(t *testing.T, w *Workspace) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(w.Dir, quietCacheName))
	if err != nil {
		t.Fatal(err)
	}
	keys, _, ok := parseQuiet(data)
	if !ok {
		return nil
	}
	var ids []string
	for id := range keys {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// Records listed as quiet are not read again while their files are the
// same; any other version of a record is: replaced as git-nudge writes
// (a crashed apply), or rewritten in place with its old modification time
// put back (only the change time tells). A cache cut short is not used.
func TestQuietRecordsCache(t *testing.T) {
	t.Parallel()
	r, base := baseRepo(t)
	w := r.workspace()
	// t1-t3 to look at, t4 prepared, and enough others for a scan that
	// finds them quiet to rewrite the cache (quietRewriteAfter).
	var others []string
	for n := 10; n < 10+quietRewriteAfter; n++ {
		others = append(others, "t"+strconv.Itoa(n))
	}
	for _, id := range append([]string{"t1", "t2", "t3", "t4"}, others...) {
		r.mkTask(id, base, base)
	}
	t3 := r.load("t3")
	t3.State = StateApplied
	t4 := r.load("t4")
	t4.State = StatePrepared
	for _, task := range []*Task{t3, t4} {
		if err := w.Save(task); err != nil {
			t.Fatal(err)
		}
	}
	// A record is listed only once its file is older than journal.Racy.
	// Their modification times are set ahead first, so that however slow
	// the machine, none is settled at the first scan; then set back, which
	// leaves the change time (now) as the only recent one.
	all := append([]string{"t1", "t2", "t3", "t4"}, others...)
	setMtimes := func(at time.Time) {
		for _, id := range all {
			if err := os.Chtimes(w.TaskPath(id), at, at); err != nil {
				t.Fatal(err)
			}
		}
	}
	setMtimes(time.Now().Add(time.Hour))
	if err := w.Reconcile(); err != nil {
		t.Fatal(err)
	}
	if got := quietListed(t, w); len(got) != 0 {
		t.Fatalf("records listed while too recent to trust: %v", got)
	}
	setMtimes(time.Now().Add(-time.Hour))
	time.Sleep(2100 * time.Millisecond)
	if err := w.Reconcile(); err != nil {
		t.Fatal(err)
	}
	if got, want := quietListed(t, w), sorted(append([]string{"t1", "t2", "t3"}, others...)); !slices.Equal(got, want) {
		t.Fatalf("listed %v, want %v (a prepared task is never quiet)", got, want)
	}

	// t2 replaced by a record left in applying by a process that died.
	t2 := r.load("t2")
	t2.State, t2.Undo = StateApplying, &Undo{Branch: t2.Branch, Head: t2.Head}
	if err := w.Save(t2); err != nil {
		t.Fatal(err)
	}
	// t3 rewritten in place, the same size, its modification time put back.
	path := w.TaskPath("t3")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	edited := bytes.Replace(data, []byte(`"state": "applied"`), []byte(`"state": "undoing"`), 1)
	if bytes.Equal(edited, data) {
		t.Fatalf("no state to edit in %s", data)
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(edited, 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if err := w.Reconcile(); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"t2", "t3"} {
		if got := r.load(id); got.State != StateRecoveryRequired {
			t.Errorf("%s is %s after reconciling, want %s", id, got.State, StateRecoveryRequired)
		}
	}
	if got := r.load("t1"); got.State != StateReady {
		t.Errorf("t1 is %s, want it untouched", got.State)
	}

	// A cache cut short (no end line) is not used, and is written again.
	cache := filepath.Join(w.Dir, quietCacheName)
	data, err = os.ReadFile(cache)
	if err != nil {
		t.Fatal(err)
	}
	cut := data[:bytes.LastIndex(data, []byte("end "))]
	if _, _, ok := parseQuiet(cut); ok {
		t.Fatal("a cache without its end line parsed")
	}
	if err := os.WriteFile(cache, cut, 0o644); err != nil {
		t.Fatal(err)
	}
	// A temp file left by a process killed while saving the cache goes
	// with the next save (an old one only).
	stale := filepath.Join(w.Dir, "."+quietCacheName+".tmp-123")
	fresh := filepath.Join(w.Dir, "."+quietCacheName+".tmp-456")
	for _, p := range []string{stale, fresh} {
		if err := os.WriteFile(p, []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * time.Minute)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	if err := w.Reconcile(); err != nil {
		t.Fatal(err)
	}
	if got, want := quietListed(t, w), sorted(append([]string{"t1"}, others...)); !slices.Equal(got, want) {
		t.Errorf("after a cut cache, listed %v, want %v (t2, t3 were just rewritten)", got, want)
	}
	if _, err := os.Lstat(stale); err == nil {
		t.Error("a stale temp file of the cache was left")
	}
	if _, err := os.Lstat(fresh); err != nil {
		t.Errorf("a recent temp file (another process saving) was removed: %v", err)
	}
}

func sorted(s []string) []string {
	sort.Strings(s)
	return s
}

// An executor asks Pending every second and skips the records listed as
// quiet: a queued record is never listed, so a task queued before the
// list was made, or re-queued since, is still found.
func TestPendingNeverQuiet(t *testing.T) {
	t.Parallel()
	r, base := baseRepo(t)
	w := r.workspace()
	var all []string
	for n := 1; n <= quietRewriteAfter+2; n++ {
		all = append(all, "t"+strconv.Itoa(n))
	}
	for _, id := range all {
		r.mkTask(id, base, base)
	}
	t1 := r.load("t1")
	t1.State, t1.Result = StatePending, nil
	if err := w.Save(t1); err != nil {
		t.Fatal(err)
	}
	settleQuiet(t, w, all)
	listed := quietListed(t, w)
	if slices.Contains(listed, "t1") || !slices.Contains(listed, "t2") {
		t.Fatalf("quiet records %v: want t2 and the other ready tasks, never the pending t1", listed)
	}
	ids := func() []string {
		p, err := w.Pending()
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, task := range p {
			out = append(out, task.ID)
		}
		return out
	}
	if got := ids(); !slices.Equal(got, []string{"t1"}) {
		t.Fatalf("pending %v, want [t1]", got)
	}
	// t1 runs and ends; t2 (listed as quiet) is queued again.
	t1.State = StateReady
	t2 := r.load("t2")
	t2.State = StatePending
	for _, task := range []*Task{t1, t2} {
		if err := w.Save(task); err != nil {
			t.Fatal(err)
		}
	}
	if got := ids(); !slices.Equal(got, []string{"t2"}) {
		t.Fatalf("pending %v, want [t2]", got)
	}
}

// The cache keeps each listed record's "updated" field, and automatic
// pruning's first look (AnyOlder) takes it from there while the record's
// file is the one it was read from, and reads the record when it is not.
func TestAnyOlderFromQuietCache(t *testing.T) {
	t.Parallel()
	r, base := baseRepo(t)
	w := r.workspace()
	start := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	clock := start
	w.Now = func() time.Time { return clock }
	var all []string
	for n := 1; n <= quietRewriteAfter+2; n++ {
		id := "t" + strconv.Itoa(n)
		all = append(all, id)
		r.mkTask(id, base, base)
		task := r.load(id)
		clock = start.Add(time.Duration(n) * time.Hour) // t1 is the oldest
		if err := w.Save(task); err != nil {
			t.Fatal(err)
		}
	}
	settleQuiet(t, w, all)
	data, err := os.ReadFile(filepath.Join(w.Dir, quietCacheName))
	if err != nil {
		t.Fatal(err)
	}
	keys, updated, ok := parseQuiet(data)
	if !ok || len(keys) != len(all) {
		t.Fatalf("cache lists %d records (ok %v), want %d", len(keys), ok, len(all))
	}
	for _, id := range all {
		if want := r.load(id).Updated.UnixNano(); updated[id] != want {
			t.Errorf("cache holds %d as %s's updated, want %d", updated[id], id, want)
		}
	}
	// The newest record changed at start+N h, the oldest at start+1 h.
	clock = start.Add(time.Duration(len(all))*time.Hour + 30*time.Minute)
	if w.AnyOlder(time.Hour) != true {
		t.Error("AnyOlder(1h) from the cache: false, want true (t1 changed hours ago)")
	}
	if w.AnyOlder(time.Duration(len(all)) * time.Hour) {
		t.Error("AnyOlder from the cache: true, want false (nothing that old)")
	}
	// t1 rewritten with an older "updated" (as op undo puts an old record
	// back): its file is not the cached one, so it is read.
	t1 := r.load("t1")
	clock = start.Add(-48 * time.Hour)
	if err := w.Save(t1); err != nil {
		t.Fatal(err)
	}
	clock = start.Add(time.Duration(len(all))*time.Hour + 30*time.Minute)
	if !w.AnyOlder(time.Duration(len(all)) * time.Hour) {
		t.Error("AnyOlder after t1 was rewritten with an old time: false, want true")
	}
}

// settleQuiet makes the records of ids look written an hour ago, waits
// until their change times are older than journal.Racy, and reconciles,
// so that the quiet-records cache lists every one that is settled.
func settleQuiet(t *testing.T, w *Workspace, ids []string) {
	t.Helper()
	past := time.Now().Add(-time.Hour)
	for _, id := range ids {
		if err := os.Chtimes(w.TaskPath(id), past, past); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(2100 * time.Millisecond) // change times older than journal.Racy
	if err := w.Reconcile(); err != nil {
		t.Fatal(err)
	}
}

// The cache is parsed once per process while its file is the same: the
// scans after the first share what was parsed, and a scan that notes a
// change works on its own copy, so that neither the other scans of the
// process nor the ones after it see a listing their file does not hold.
func TestQuietCacheParsedOnce(t *testing.T) {
	t.Parallel()
	r, base := baseRepo(t)
	w := r.workspace()
	var all []string
	for n := 1; n <= quietRewriteAfter+2; n++ {
		id := "t" + strconv.Itoa(n)
		all = append(all, id)
		r.mkTask(id, base, base)
	}
	settleQuiet(t, w, all)
	time.Sleep(2100 * time.Millisecond) // the cache file itself settled
	q1 := w.quietRecordsOf()
	defer q1.close()
	q2 := w.quietRecordsOf()
	defer q2.close()
	if !q1.shared || !q2.shared || len(q1.keys) != len(all) {
		t.Fatalf("scans share the parsed cache: %v, %v, %d listed; want both, %d", q1.shared, q2.shared, len(q1.keys), len(all))
	}
	// q1 learns that t1 is gone and that t2 is no longer quiet.
	q1.keep(all[2:])
	key, ok, _ := q1.known(w, "t2")
	if !ok {
		t.Fatal("t2 has no key")
	}
	q1.note("t2", key, true, false, time.Now(), nil)
	if _, listed := q1.keys["t1"]; listed || q1.shared {
		t.Fatalf("q1 still lists t1 (%v) or still shares the parsed cache (%v)", listed, q1.shared)
	}
	if _, listed := q1.keys["t2"]; listed {
		t.Fatal("q1 still lists t2 after noting it is not quiet")
	}
	q3 := w.quietRecordsOf()
	defer q3.close()
	for _, q := range []*quietRecords{q2, q3} {
		for _, id := range []string{"t1", "t2"} {
			if _, listed := q.keys[id]; !listed {
				t.Errorf("another scan lost %s from the cache as parsed", id)
			}
			if q.updated[id] == 0 {
				t.Errorf("another scan lost %s's updated field", id)
			}
		}
	}
	// A new version of the file is parsed again.
	q1.rewrite = true
	q1.save(all[2:])
	q4 := w.quietRecordsOf()
	defer q4.close()
	if _, listed := q4.keys["t1"]; listed {
		t.Error("the cache written without t1 still lists it")
	}
}
