package git

import "testing"

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
