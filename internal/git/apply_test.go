package git

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nudgethis/git-nudge/internal/testutil"
)

// newApplyRepo makes a repository in a temp folder (the test process is
// isolated from the developer's git configuration by TestMain).
func newApplyRepo(t *testing.T, config ...string) *Repo {
	t.Helper()
	dir := testutil.Repo(t)
	for i := 0; i+1 < len(config); i += 2 {
		gitT(t, dir, "config", config[i], config[i+1])
	}
	r, err := Discover(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func gitT(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return testutil.Git(t, dir, args...)
}

func writeT(t *testing.T, root, p, content string, mode os.FileMode) {
	t.Helper()
	full := filepath.Join(root, p)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(full, mode); err != nil {
		t.Fatal(err)
	}
}

// staged returns path -> "mode blob" of the user's index.
func staged(t *testing.T, dir string) map[string]string {
	out := gitT(t, dir, "ls-files", "-s", "-z")
	m := map[string]string{}
	for _, rec := range strings.Split(strings.TrimSuffix(out, "\x00"), "\x00") {
		meta, p, _ := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		m[p] = f[0] + " " + f[1]
	}
	return m
}

var oddNames = []string{"plain.txt", "with space.txt", "nl\nname.txt", `"quoted.txt`, "tab\there.txt", "cr\r.txt", "ünï/cödé.txt", "-dash.txt", `back\slash.txt`}

func TestHashFilesMatchesGitAdd(t *testing.T) {
	r := newApplyRepo(t, "core.autocrlf", "true")
	for i, n := range oddNames {
		writeT(t, r.WorkTree, n, strings.Repeat("line\r\n", i+1), 0o644)
	}
	writeT(t, r.WorkTree, "bin.dat", "\x00\x01\r\n\xff", 0o755)
	names := append(append([]string{}, oddNames...), "bin.dat")
	ids, err := r.HashFiles(context.Background(), names)
	if err != nil {
		t.Fatal(err)
	}
	gitT(t, r.WorkTree, "add", "-A")
	want := staged(t, r.WorkTree)
	for i, n := range names {
		if !strings.HasSuffix(want[n], " "+ids[i]) {
			t.Errorf("%q: HashFiles %s, git add %s", n, ids[i], want[n])
		}
	}
}

func TestHashIndexedKeepsCommittedCRLF(t *testing.T) {
	r := newApplyRepo(t)
	writeT(t, r.WorkTree, "crlf.txt", "a\r\nb\r\n", 0o644)
	gitT(t, r.WorkTree, "add", "crlf.txt")
	gitT(t, r.WorkTree, "commit", "-qm", "crlf")
	gitT(t, r.WorkTree, "config", "core.autocrlf", "true")
	blob := strings.TrimSpace(gitT(t, r.WorkTree, "rev-parse", "HEAD:crlf.txt"))
	ctx := context.Background()
	plain, err := r.HashFiles(ctx, []string{"crlf.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if plain[0] == blob {
		t.Log("hash-object already keeps committed CRLF on this git version")
	}
	idx, err := r.HashIndexed(ctx, []IndexEntry{{Mode: "100644", Blob: blob, Path: "crlf.txt"}})
	if err != nil {
		t.Fatal(err)
	}
	if idx[0] != blob {
		t.Errorf("HashIndexed = %s, want the committed blob %s", idx[0], blob)
	}
	if strings.TrimSpace(gitT(t, r.WorkTree, "status", "--porcelain")) != "" {
		t.Errorf("git itself considers the file changed")
	}
}

func TestCheckoutToAsCheckout(t *testing.T) {
	r := newApplyRepo(t, "core.autocrlf", "true")
	ctx := context.Background()
	writeT(t, r.WorkTree, ".gitattributes", "*.id ident\n*.lf eol=lf\n", 0o644)
	files := map[string]string{"a.txt": "one\ntwo\n", "keep.lf": "x\ny\n", "v.id": "$Id$\n", "nl\nname": "n\n", "run.sh": "#!/bin/sh\n", "bin.dat": "\x00a\nb"}
	for p, c := range files {
		mode := os.FileMode(0o644)
		if p == "run.sh" {
			mode = 0o755
		}
		writeT(t, r.WorkTree, p, c, mode)
	}
	gitT(t, r.WorkTree, "add", "-A")
	gitT(t, r.WorkTree, "commit", "-qm", "files")
	idxBefore, _ := os.ReadFile(filepath.Join(r.GitDir, "index"))
	stBefore, _ := os.Stat(filepath.Join(r.GitDir, "index"))
	var entries []IndexEntry
	var blobs []string
	for p := range files {
		blob := strings.TrimSpace(gitT(t, r.WorkTree, "rev-parse", "HEAD:"+p))
		mode := "100644"
		if p == "run.sh" {
			mode = "100755"
		}
		entries = append(entries, IndexEntry{Mode: mode, Blob: blob, Path: "out/" + p})
		blobs = append(blobs, blob)
	}
	scratch := filepath.Join(t.TempDir(), "co")
	if err := r.CheckoutTo(ctx, scratch, entries); err != nil {
		t.Fatal(err)
	}
	idxAfter, _ := os.ReadFile(filepath.Join(r.GitDir, "index"))
	stAfter, _ := os.Stat(filepath.Join(r.GitDir, "index"))
	if !bytes.Equal(idxBefore, idxAfter) || !stBefore.ModTime().Equal(stAfter.ModTime()) {
		t.Errorf("CheckoutTo touched the user's index")
	}
	if _, err := os.Stat(filepath.Join(r.WorkTree, "out")); err == nil {
		t.Errorf("CheckoutTo wrote into the work tree")
	}
	// What git checkout itself writes for the same blobs.
	for p := range files {
		if err := os.Remove(filepath.Join(r.WorkTree, p)); err != nil {
			t.Fatal(err)
		}
	}
	gitT(t, r.WorkTree, "checkout", "--", ".")
	for _, e := range entries {
		p := strings.TrimPrefix(e.Path, "out/")
		got, err := os.ReadFile(filepath.Join(scratch, e.Path))
		if err != nil {
			t.Fatal(err)
		}
		want, _ := os.ReadFile(filepath.Join(r.WorkTree, p))
		if !bytes.Equal(got, want) {
			t.Errorf("%q: CheckoutTo wrote %q, git checkout %q", p, got, want)
		}
		st, _ := os.Stat(filepath.Join(scratch, e.Path))
		if (st.Mode()&0o100 != 0) != (e.Mode == "100755") {
			t.Errorf("%q: mode %v", p, st.Mode())
		}
	}
	if got, _ := os.ReadFile(filepath.Join(scratch, "out/a.txt")); string(got) != "one\r\ntwo\r\n" {
		t.Errorf("autocrlf not applied: %q", got)
	}
	// Sizes.
	infos, err := r.ObjectInfos(ctx, append(blobs, r.ZeroID()))
	if err != nil {
		t.Fatal(err)
	}
	if !infos[len(infos)-1].Missing || infos[0].Type != "blob" {
		t.Errorf("ObjectInfos = %+v", infos)
	}
}
