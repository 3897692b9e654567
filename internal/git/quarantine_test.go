package git_test

import (
	"bytes"
	"compress/zlib"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/nudgethis/git-nudge/internal/testutil"
)

// writeLoose stores content as a loose object file named id in the object
// directory dir, whatever id the content really hashes to.
func writeLoose(t *testing.T, dir, id, kind, content string) {
	t.Helper()
	var b bytes.Buffer
	z := zlib.NewWriter(&b)
	z.Write([]byte(kind + " " + strconv.Itoa(len(content)) + "\x00" + content))
	z.Close()
	p := filepath.Join(dir, id[:2], id[2:])
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b.Bytes(), 0o444); err != nil {
		t.Fatal(err)
	}
}

// ImportObjects brings a quarantine's objects in, each under the id its
// content hashes to: an object file planted under another object's name
// never stands in for that object.
func TestImportObjectsRehashes(t *testing.T) {
	t.Parallel()
	dir := testutil.Repo(t)
	testutil.Commit(t, dir, map[string]string{"f": "1\n"}, "one")
	r := discover(t, dir)
	ctx := context.Background()
	q := t.TempDir()

	// An honest object, and garbage under the name of a blob the user
	// will write later.
	wantHonest := hashBlob(t, dir, "task output\n")
	writeLoose(t, q, wantHonest, "blob", "task output\n")
	future := hashBlob(t, dir, "the user's future file\n")
	writeLoose(t, q, future, "blob", "planted content\n")
	planted := hashBlob(t, dir, "planted content\n")

	n, err := r.ImportObjects(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("ImportObjects counted %d objects, want 2", n)
	}
	for id, want := range map[string]bool{wantHonest: true, planted: true, future: false} {
		if ok, err := r.HasObject(ctx, id); err != nil || ok != want {
			t.Errorf("HasObject(%s) = %v, %v; want %v", id, ok, err, want)
		}
	}
	// Nothing to import is no error.
	if n, err := r.ImportObjects(ctx, t.TempDir()); err != nil || n != 0 {
		t.Errorf("empty quarantine: %d, %v", n, err)
	}
}

func hashBlob(t *testing.T, dir, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "blob")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return testutil.Git(t, dir, "hash-object", "--no-filters", p)
}
