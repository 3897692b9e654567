package git

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// HashHere stores what git update-index would store for the same paths,
// and hands over to git whenever a setting or an attributes file could
// make git convert something.
func TestHashHereAgreesWithGit(t *testing.T) {
	t.Parallel()
	r := newApplyRepo(t)
	write := func(p, data string, mode os.FileMode) {
		t.Helper()
		full := filepath.Join(r.WorkTree, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(full, mode); err != nil {
			t.Fatal(err)
		}
	}
	write("plain.txt", "hello\n", 0o644)
	write("crlf.txt", "a\r\nb\r\n", 0o644)
	write("bin/run.sh", "#!/bin/sh\n", 0o755)
	write("empty", "", 0o644)
	write("deep/a/b/c.bin", "\x00\x01\xff", 0o600)
	write("group-exec", "x", 0o654) // only the owner's bit counts
	if err := os.Symlink("plain.txt", filepath.Join(r.WorkTree, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("deep", filepath.Join(r.WorkTree, "via")); err != nil {
		t.Fatal(err)
	}
	paths := []string{"plain.txt", "crlf.txt", "bin/run.sh", "empty", "deep/a/b/c.bin", "group-exec", "link", "missing", "gone/x", "via/a/b/c.bin"}
	ctx := context.Background()
	want, err := r.HashWorkTreePaths(ctx, nil, paths[:len(paths)-1], true) // git (git refuses a path beyond a link)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := r.HashHere(paths)
	if !ok {
		t.Fatal("HashHere left a plain work tree to git")
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("HashHere = %v\ngit       = %v", got, want)
	}

	// Whatever could make git convert: git hashes.
	for _, c := range []struct {
		name  string
		setup func(t *testing.T, r *Repo)
	}{
		{"gitattributes in a folder", func(t *testing.T, r *Repo) {
			os.WriteFile(filepath.Join(r.WorkTree, "deep", "a", ".gitattributes"), []byte("*.bin text\n"), 0o644)
		}},
		{"gitattributes at the top", func(t *testing.T, r *Repo) {
			os.WriteFile(filepath.Join(r.WorkTree, ".gitattributes"), []byte("* text=auto\n"), 0o644)
		}},
		{"info/attributes", func(t *testing.T, r *Repo) {
			os.MkdirAll(filepath.Join(r.CommonDir, "info"), 0o755)
			os.WriteFile(filepath.Join(r.CommonDir, "info", "attributes"), []byte("* text\n"), 0o644)
		}},
		{"autocrlf", func(t *testing.T, r *Repo) { gitT(t, r.WorkTree, "config", "core.autocrlf", "input") }},
		{"filemode off", func(t *testing.T, r *Repo) { gitT(t, r.WorkTree, "config", "core.fileMode", "false") }},
		{"symlinks off", func(t *testing.T, r *Repo) { gitT(t, r.WorkTree, "config", "core.symlinks", "false") }},
		{"sparse checkout", func(t *testing.T, r *Repo) { gitT(t, r.WorkTree, "config", "core.sparseCheckout", "true") }},
		{"attributes from a tree", func(t *testing.T, r *Repo) { gitT(t, r.WorkTree, "config", "attr.tree", "HEAD") }},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := newApplyRepo(t)
			os.MkdirAll(filepath.Join(r.WorkTree, "deep", "a", "b"), 0o755)
			os.WriteFile(filepath.Join(r.WorkTree, "deep", "a", "b", "c.bin"), []byte("x\r\n"), 0o644)
			c.setup(t, r)
			if _, ok := r.HashHere([]string{"deep/a/b/c.bin"}); ok {
				t.Error("HashHere hashed the file itself")
			}
		})
	}
	// A folder where a path is asked for: git decides.
	if _, ok := r.HashHere([]string{"deep"}); ok {
		t.Error("HashHere hashed a folder")
	}
}
