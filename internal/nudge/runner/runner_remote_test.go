package runner

import (
	"archive/tar"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeTar(t *testing.T, entries []tar.Header, bodies map[string]string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "x.tar")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	tw := tar.NewWriter(f)
	for _, h := range entries {
		h := h
		body := bodies[h.Name]
		h.Size = int64(len(body))
		if h.Typeflag != tar.TypeReg {
			h.Size = 0
		}
		if h.Mode == 0 {
			h.Mode = 0o644
		}
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		if h.Size > 0 {
			if _, err := tw.Write([]byte(body)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return p
}

// A container's worktree comes back whole: folders, files (the executable
// bit kept), symlinks as links.
func TestUntarTreeUnpacks(t *testing.T) {
	p := writeTar(t, []tar.Header{
		{Name: "t1/", Typeflag: tar.TypeDir},
		{Name: "t1/a.txt", Typeflag: tar.TypeReg},
		{Name: "t1/sub/", Typeflag: tar.TypeDir},
		{Name: "t1/sub/run.sh", Typeflag: tar.TypeReg, Mode: 0o755},
		{Name: "t1/link", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"},
	}, map[string]string{"t1/a.txt": "a\n", "t1/sub/run.sh": "#!/bin/sh\n"})
	dest := t.TempDir()
	if err := untarTree(p, dest, "t1"); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dest, "a.txt")); err != nil || string(b) != "a\n" {
		t.Fatalf("a.txt: %q %v", b, err)
	}
	if st, err := os.Stat(filepath.Join(dest, "sub", "run.sh")); err != nil || st.Mode().Perm()&0o100 == 0 {
		t.Fatalf("run.sh: %v %v", st, err)
	}
	if l, err := os.Readlink(filepath.Join(dest, "link")); err != nil || l != "/etc/passwd" {
		t.Fatalf("link: %q %v", l, err)
	}
}

// Nothing is written outside the folder: not by a name that leaves it,
// not through a symlink the tar made, not over an entry already there.
func TestUntarTreeRefusesEscapes(t *testing.T) {
	outside := t.TempDir()
	for _, tc := range []struct {
		name    string
		entries []tar.Header
	}{
		{"dot-dot", []tar.Header{{Name: "t1/../../escape", Typeflag: tar.TypeReg}}},
		{"other top", []tar.Header{{Name: "t2/a", Typeflag: tar.TypeReg}}},
		{"absolute", []tar.Header{{Name: "/t1/a", Typeflag: tar.TypeReg}}},
		{"through a symlink", []tar.Header{
			{Name: "t1/d", Typeflag: tar.TypeSymlink, Linkname: outside},
			{Name: "t1/d/escape", Typeflag: tar.TypeReg}}},
		{"over a symlink", []tar.Header{
			{Name: "t1/f", Typeflag: tar.TypeSymlink, Linkname: filepath.Join(outside, "escape")},
			{Name: "t1/f", Typeflag: tar.TypeReg}}},
	} {
		p := writeTar(t, tc.entries, map[string]string{})
		dest := filepath.Join(t.TempDir(), "out")
		if err := os.Mkdir(dest, 0o700); err != nil {
			t.Fatal(err)
		}
		err := untarTree(p, dest, "t1")
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
		}
		if _, err := os.Lstat(filepath.Join(outside, "escape")); err == nil {
			t.Fatalf("%s: wrote outside the folder", tc.name)
		}
		if err != nil && !strings.Contains(err.Error(), "t") {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}
