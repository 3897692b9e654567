package gitstore

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/nudgethis/git-nudge/internal/testutil"
)

// Every object of a packed repository (whole entries, deltas against an
// offset and, packed the other way, deltas against a named base) reads
// here exactly as git cat-file reads it.
func TestReadObjectHereAgreesWithGit(t *testing.T) {
	t.Parallel()
	for _, ofs := range []string{"true", "false"} {
		t.Run("deltaBaseOffset="+ofs, func(t *testing.T) {
			t.Parallel()
			r := newTestStore(t)
			var text strings.Builder
			for i := 0; i < 300; i++ {
				fmt.Fprintf(&text, "line %d of a file that changes a little each commit\n", i)
			}
			for i := 0; i < 12; i++ {
				body := strings.Replace(text.String(), fmt.Sprintf("line %d ", i*7), fmt.Sprintf("LINE %d ", i), 1)
				for _, p := range []string{"a.txt", "dir/b.txt", fmt.Sprintf("dir/sub/c%d.txt", i%3)} {
					full := filepath.Join(r.WorkTree, filepath.FromSlash(p))
					os.MkdirAll(filepath.Dir(full), 0o755)
					if err := os.WriteFile(full, []byte(body+p), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				gitT(t, r.WorkTree, "add", "-A")
				gitT(t, r.WorkTree, "commit", "-qm", fmt.Sprintf("commit %d", i))
			}
			gitT(t, r.WorkTree, "-c", "repack.useDeltaBaseOffset="+ofs, "repack", "-adf", "-q", "--depth=20", "--window=50")
			list := gitT(t, r.WorkTree, "cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objecttype) %(objectsize)")
			lines := strings.Split(strings.TrimSpace(list), "\n")
			var all []string
			for _, l := range lines {
				all = append(all, strings.Fields(l)[0])
			}
			bodies := catFileBatch(t, r.WorkTree, all)
			n := 0
			for _, l := range lines {
				f := strings.Fields(l)
				id, typ := f[0], f[1]
				// Described here too (a delta by its chain), as git does.
				if info, ok := r.ObjectInfoHere(id); !ok || info.Type != typ || strconv.FormatInt(info.Size, 10) != f[2] {
					t.Errorf("%s: described here as %+v (%v), git: %s %s", id, info, ok, typ, f[2])
				}
				gotTyp, got, ok := r.ReadObjectHere(id)
				if !ok {
					t.Errorf("%s: not read here", id)
					continue
				}
				want := bodies[id]
				if gotTyp != typ || want.typ != typ || !bytes.Equal(got, want.data) {
					t.Errorf("%s: read %s of %d bytes, git: %s of %d bytes", id, gotTyp, len(got), want.typ, len(want.data))
				}
				n++
			}
			if n < 40 {
				t.Fatalf("only %d objects compared", n)
			}
			// Through one walk, which keeps the entries it resolved, in
			// both orders: the same bytes, whatever was kept before.
			walk := r.NewObjectWalk()
			for pass := range 2 {
				for i := range all {
					id := all[i]
					if pass == 1 {
						id = all[len(all)-1-i]
					}
					typ, got, ok := walk.Read(id)
					if want := bodies[id]; !ok || typ != want.typ || !bytes.Equal(got, want.data) {
						t.Errorf("%s, walk pass %d: read %s of %d bytes (%v), git: %s of %d bytes", id, pass, typ, len(got), ok, want.typ, len(want.data))
					}
				}
			}
			if len(walk.bases.m) == 0 {
				t.Fatal("the walk kept no entry")
			}
			// Deltas were made (else the test reads only whole entries).
			verify := gitT(t, r.WorkTree, "verify-pack", "-v", filepath.Join(r.CommonDir, "objects", "pack", firstPack(t, r)))
			if !strings.Contains(verify, "chain length = ") {
				t.Fatalf("no deltas in the pack:\n%s", verify)
			}
		})
	}
	// An id in no pack, or a corrupt pack: not read here.
	r := newTestStore(t)
	if _, _, ok := r.ReadObjectHere(strings.Repeat("ab", 20)); ok {
		t.Error("a missing object was read")
	}
}

// catObject is an object as git cat-file --batch prints it.
type catObject struct {
	typ  string
	data []byte
}

// catFileBatch reads ids in dir's repository with one git cat-file
// --batch: each id's type and content, as git reads them.
func catFileBatch(t *testing.T, dir string, ids []string) map[string]catObject {
	t.Helper()
	cmd := exec.Command("git", "-C", dir, "cat-file", "--batch")
	cmd.Env = testutil.Env()
	cmd.Stdin = strings.NewReader(strings.Join(ids, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git cat-file --batch: %v", err)
	}
	objs := map[string]catObject{}
	br := bufio.NewReader(bytes.NewReader(out))
	for range ids {
		header, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("git cat-file --batch: %v after %d objects", err, len(objs))
		}
		f := strings.Fields(header)
		if len(f) != 3 {
			t.Fatalf("git cat-file --batch: %q", header)
		}
		size, err := strconv.Atoi(f[2])
		if err != nil {
			t.Fatalf("git cat-file --batch: %q", header)
		}
		data := make([]byte, size+1) // the content and a newline
		if _, err := io.ReadFull(br, data); err != nil {
			t.Fatalf("git cat-file --batch: %s: %v", f[0], err)
		}
		objs[f[0]] = catObject{typ: f[1], data: data[:size]}
	}
	return objs
}

func firstPack(t *testing.T, r *Store) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(r.CommonDir, "objects", "pack", "pack-*.idx"))
	if len(m) == 0 {
		t.Fatal("no pack")
	}
	return filepath.Base(m[0])
}

// A delta that copies more than the size it declares is refused at the
// first copy past it, before it allocates (a task can plant a pack).
func TestApplyDeltaStopsAtDeclaredSize(t *testing.T) {
	base := bytes.Repeat([]byte("b"), 64<<10)
	delta := []byte{0x80, 0x80, 0x04, 10}                      // source size 65536, result size 10
	delta = append(delta, bytes.Repeat([]byte{0x80}, 2000)...) // each: copy 64 KiB from 0
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	out, err := applyDelta(base, delta)
	runtime.ReadMemStats(&after)
	if err == nil || out != nil {
		t.Fatalf("applyDelta of an oversized delta = %d bytes, %v", len(out), err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 4<<20 {
		t.Errorf("refusing the delta allocated %d bytes", n)
	}
}

// Packs stay open between reads here (packList): a repack that replaces
// them, while other goroutines keep reading, never makes a read give a
// wrong answer or fail for good. Reads racing the repack may fall back to
// git (ok false); once it is over, every object, old and new, is read here
// again, as git reads it.
func TestReadObjectHereAcrossRepack(t *testing.T) {
	r := newTestStore(t)
	objects := func() map[string]string {
		list := gitT(t, r.WorkTree, "cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objecttype)")
		m := map[string]string{}
		for _, l := range strings.Split(strings.TrimSpace(list), "\n") {
			id, typ, _ := strings.Cut(l, " ")
			m[id] = typ
		}
		return m
	}
	commit := func(i int) {
		writeT(t, r.WorkTree, fmt.Sprintf("d%d/f.txt", i%3), strings.Repeat(fmt.Sprintf("line %d\n", i), 40+i), 0o644)
		gitT(t, r.WorkTree, "add", "-A")
		gitT(t, r.WorkTree, "commit", "-qm", fmt.Sprintf("c%d", i))
	}
	check := func(want map[string]string) {
		t.Helper()
		var ids []string
		for id := range want {
			ids = append(ids, id)
		}
		bodies := catFileBatch(t, r.WorkTree, ids)
		for id, typ := range want {
			gotTyp, got, ok := r.ReadObjectHere(id)
			if !ok {
				t.Errorf("%s: not read here", id)
				continue
			}
			body := bodies[id]
			if gotTyp != typ || body.typ != typ || !bytes.Equal(got, body.data) {
				t.Errorf("%s: read %s %q, git: %s %q", id, gotTyp, got, body.typ, body.data)
			}
		}
	}
	for i := 0; i < 4; i++ {
		commit(i)
	}
	gitT(t, r.WorkTree, "repack", "-adq")
	check(objects())

	stop := make(chan struct{})
	var wrong atomic.Int32
	var wg sync.WaitGroup
	ids := objects()
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				for id, typ := range ids {
					if gotTyp, data, ok := r.ReadObjectHere(id); ok && (gotTyp != typ || r.ObjectID(gotTyp, data) != id) {
						wrong.Add(1)
					}
				}
			}
		}()
	}
	for i := 4; i < 8; i++ {
		commit(i)
		gitT(t, r.WorkTree, "repack", "-adq")
	}
	close(stop)
	wg.Wait()
	if n := wrong.Load(); n > 0 {
		t.Fatalf("%d reads during the repacks gave a wrong object", n)
	}
	check(objects())
}
