package gitstore

import (
	"context"
	"encoding/hex"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestIsDotGitName(t *testing.T) {
	for name, want := range map[string]bool{
		".git": true, ".GIT": true, ".Git": true, ".git.": true, ".git  ": true,
		"git~1": true, "GIT~1": true, ".git::$INDEX_ALLOCATION": true,
		".g\u200cit": true, "\ufeff.git": true,
		".gitignore": false, "git": false, ".gitx": false, "git~2x": false, "a.git": false,
	} {
		if got := isDotGitName(name); got != want {
			t.Errorf("isDotGitName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestCheckEntries(t *testing.T) {
	const id = "1111111111111111111111111111111111111111"
	zero := "0000000000000000000000000000000000000000"
	codes := func(entries ...treeEntry) []string {
		var out []string
		for _, p := range checkEntries("", entries, zero) {
			out = append(out, p.Code)
		}
		return out
	}
	same := func(got []string, want ...string) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("got %q, want %q", got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("got %q, want %q", got, want)
			}
		}
	}
	// git's order: "a.txt" < "a" (folder, compared as "a/") < "ab".
	same(codes(treeEntry{"100644", "a.txt", id}, treeEntry{"40000", "a", id}, treeEntry{"100755", "ab", id}))
	same(codes(treeEntry{"40000", "a", id}, treeEntry{"100644", "a.txt", id}), "treeNotSorted")
	same(codes(treeEntry{"100644", "x", id}, treeEntry{"40000", "x", id}), "duplicateEntries")
	same(codes(treeEntry{"100644", "x", id}, treeEntry{"100644", "x", id}), "duplicateEntries")
	same(codes(treeEntry{"100664", "m", id}), "badFilemode")
	same(codes(treeEntry{"040000", "d", id}), "zeroPaddedFilemode")
	same(codes(treeEntry{"100644", "n", zero}), "nullSha1")
	same(codes(treeEntry{"100644", "", id}), "emptyName")
	same(codes(treeEntry{"100644", "a/b", id}), "fullPathname")
	same(codes(treeEntry{"40000", ".GIT", id}), "hasDotgit")
}

// CheckTree says the same whether it reads the trees in this process or
// asks git cat-file (a replace ref makes it ask git), on a crafted result:
// a folder with a duplicate entry and a null id, a folder entry naming a
// blob, one naming a missing tree, an unchanged folder (not read again),
// all a few levels down.
func TestCheckTreeHereAgreesWithGit(t *testing.T) {
	t.Parallel()
	r := newTestStore(t)
	if !r.InProcess() {
		t.Skip("git's files are not read in this process here")
	}
	ctx := context.Background()
	dir := r.WorkTree
	blob := strings.TrimSpace(gitT(t, dir, "hash-object", "-w", "--stdin"))
	raw := func(id string) string {
		b, err := hex.DecodeString(id)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	tree := func(entries ...string) string {
		t.Helper()
		path := filepath.Join(t.TempDir(), "tree")
		if err := os.WriteFile(path, []byte(strings.Join(entries, "")), 0o644); err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(gitT(t, dir, "hash-object", "-t", "tree", "-w", "--literally", path))
	}
	ent := func(mode, name, id string) string { return mode + " " + name + "\x00" + raw(id) }
	zero := strings.Repeat("0", len(blob))
	missing := strings.Repeat("7", len(blob))
	same := tree(ent("100644", "kept.txt", blob))
	bad := tree(ent("100644", "x", blob), ent("100644", "x", blob), ent("100644", "z", zero))
	deep := tree(ent("40000", "bad", bad), ent("40000", "gone", missing), ent("40000", "notatree", blob))
	base := tree(ent("40000", "same", same), ent("100644", "top.txt", blob))
	result := tree(ent("40000", "deep", deep), ent("40000", "same", same), ent("100644", "top.txt", blob))

	here, err := r.CheckTree(ctx, result, base)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(r.CommonDir, "refs", "replace"), 0o755); err != nil {
		t.Fatal(err)
	}
	viaGit, err := r.CheckTree(ctx, result, base)
	if err != nil {
		t.Fatal(err)
	}
	if len(here) == 0 || !reflect.DeepEqual(here, viaGit) {
		t.Errorf("in this process: %+v\ngit:             %+v", here, viaGit)
	}
	codes := map[string]bool{}
	for _, p := range here {
		codes[p.Folder+":"+p.Code] = true
	}
	for _, want := range []string{"deep/bad:duplicateEntries", "deep/bad:nullSha1", "deep/gone:missingTree", "deep/notatree:badTree"} {
		if !codes[want] {
			t.Errorf("no %s in %+v", want, here)
		}
	}
}
