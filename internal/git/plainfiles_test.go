package git

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// PlainFiles says "git converts nothing" only where git agrees: the id
// hash-object gives each file is the id of its bytes, and cat-file
// --filters writes each blob as it is. Anything that could make git
// convert answers false.
func TestPlainFilesAgreesWithGit(t *testing.T) {
	t.Parallel()
	r := newApplyRepo(t)
	gitT(t, r.WorkTree, "commit", "-q", "--allow-empty", "-m", "base")
	writeT(t, r.WorkTree, "a.txt", "one\r\ntwo\n", 0o644)
	writeT(t, r.WorkTree, "deep/a/b/c.bin", "x\r\n\x00", 0o644)
	paths := []string{"a.txt", "deep/a/b/c.bin", "new/not/there.txt"}
	if !r.PlainFiles(paths) {
		t.Fatal("PlainFiles: a repository without attributes or autocrlf is not plain")
	}
	ctx := context.Background()
	ids, err := r.HashFiles(ctx, paths[:2])
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range paths[:2] {
		data, err := os.ReadFile(filepath.Join(r.WorkTree, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		if own := r.BlobID(data); own != ids[i] {
			t.Errorf("%s: git hashes %s, its bytes are %s", p, ids[i], own)
		}
		blob, err := r.WriteBlob(ctx, data)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := r.NewBlobReader().Read(blob)
		if !ok || string(got) != string(data) {
			t.Errorf("%s: BlobReader.Read = %q, %v", p, got, ok)
		}
	}

	for _, c := range []struct {
		name  string
		paths []string
		setup func(t *testing.T, r *Repo)
	}{
		{"gitattributes in a leading folder", []string{"deep/a/b/c.bin"}, func(t *testing.T, r *Repo) {
			writeT(t, r.WorkTree, "deep/a/.gitattributes", "*.bin text\n", 0o644)
		}},
		{"gitattributes at the top", []string{"deep/a/b/c.bin"}, func(t *testing.T, r *Repo) {
			writeT(t, r.WorkTree, ".gitattributes", "* text=auto\n", 0o644)
		}},
		{"gitattributes in the file's own folder", []string{"deep/a/b/c.bin"}, func(t *testing.T, r *Repo) {
			writeT(t, r.WorkTree, "deep/a/b/.gitattributes", "*.bin ident\n", 0o644)
		}},
		{"a gitattributes path", []string{"x/.gitattributes"}, func(t *testing.T, r *Repo) {}},
		{"info/attributes", []string{"deep/a/b/c.bin"}, func(t *testing.T, r *Repo) {
			writeT(t, r.CommonDir, "info/attributes", "* text\n", 0o644)
		}},
		{"autocrlf", []string{"deep/a/b/c.bin"}, func(t *testing.T, r *Repo) { gitT(t, r.WorkTree, "config", "core.autocrlf", "true") }},
		{"attributes file in the config", []string{"deep/a/b/c.bin"}, func(t *testing.T, r *Repo) {
			gitT(t, r.WorkTree, "config", "core.attributesFile", filepath.Join(r.WorkTree, "attrs"))
		}},
		{"a committed gitattributes deleted from the work tree", []string{"deep/a/b/c.bin"}, func(t *testing.T, r *Repo) {
			// git reads it from the index then.
			writeT(t, r.WorkTree, "deep/a/.gitattributes", "*.bin text\n", 0o644)
			gitT(t, r.WorkTree, "add", "deep/a/.gitattributes")
			gitT(t, r.WorkTree, "commit", "-qm", "attributes")
			os.Remove(filepath.Join(r.WorkTree, "deep/a/.gitattributes"))
		}},
		{"an unborn branch", []string{"deep/a/b/c.bin"}, func(t *testing.T, r *Repo) {
			// No HEAD to look in; the index could hold a .gitattributes.
		}},
		{"a leading folder that cannot be read", []string{"locked/x.txt"}, func(t *testing.T, r *Repo) {
			if os.Geteuid() == 0 {
				t.Skip("root reads every folder")
			}
			writeT(t, r.WorkTree, "locked/x.txt", "x", 0o644)
			os.Chmod(filepath.Join(r.WorkTree, "locked"), 0)
			t.Cleanup(func() { os.Chmod(filepath.Join(r.WorkTree, "locked"), 0o755) })
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := newApplyRepo(t)
			if c.name != "an unborn branch" {
				gitT(t, r.WorkTree, "commit", "-q", "--allow-empty", "-m", "base")
			}
			writeT(t, r.WorkTree, "deep/a/b/c.bin", "x\r\n", 0o644)
			c.setup(t, r)
			if r.PlainFiles(c.paths) {
				t.Error("PlainFiles: git might convert, but the paths were called plain")
			}
		})
	}
}
