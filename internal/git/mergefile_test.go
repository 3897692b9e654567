package git

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
)

// TreeEntriesAt and IndexEntriesAt (read in this process) agree with
// ls-tree and ls-files, for present, absent, nested, executable and
// oddly named paths, a folder's name, and a path with conflict stages;
// index version 4 (left to git) too.
func TestEntriesAtAgreeWithGit(t *testing.T) {
	ctx := context.Background()
	r := newApplyRepo(t)
	dir := r.WorkTree
	names := append([]string{"a/b/c.txt", "a/x.sh", "top.txt"}, oddNames...)
	for _, p := range names {
		mode := os.FileMode(0o644)
		if strings.HasSuffix(p, ".sh") {
			mode = 0o755
		}
		writeT(t, dir, p, "content of "+p+"\n", mode)
	}
	gitT(t, dir, "add", "-A")
	gitT(t, dir, "commit", "-qm", "base")
	writeT(t, dir, "top.txt", "staged\n", 0o644)
	writeT(t, dir, "new.txt", "new\n", 0o644)
	gitT(t, dir, "add", "top.txt", "new.txt")
	gitT(t, dir, "rm", "-q", "--cached", "a/x.sh")
	asked := append(append([]string{}, names...), "missing.txt", "a/b", "a/b/none", "new.txt")

	want, err := r.TreeEntries(ctx, "HEAD", asked)
	if err != nil {
		t.Fatal(err)
	}
	head := strings.TrimSpace(gitT(t, dir, "rev-parse", "HEAD"))
	got, err := r.TreeEntriesAt(ctx, head+"^{tree}", asked)
	if err != nil {
		t.Fatal(err)
	}
	// ls-tree names a folder too (mode 040000): TreeEntriesAt is about files.
	for i := range want {
		if want[i].Mode == "040000" {
			want[i] = IndexEntry{Path: want[i].Path}
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("TreeEntriesAt:\n got %v\nwant %v", got, want)
	}

	for _, version := range []string{"2", "4"} {
		gitT(t, dir, "update-index", "--index-version", version)
		want, err = r.IndexEntries(ctx, asked)
		if err != nil {
			t.Fatal(err)
		}
		got, unmerged, err := r.IndexEntriesAt(ctx, asked)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) || len(unmerged) != 0 {
			t.Errorf("index version %s: IndexEntriesAt:\n got %v (unmerged %v)\nwant %v", version, got, unmerged, want)
		}
	}

	// A conflict in the index: stage 1-3 entries of top.txt.
	gitT(t, dir, "update-index", "--index-version", "2")
	blob := strings.TrimSpace(gitT(t, dir, "rev-parse", "HEAD:top.txt"))
	info := ""
	for _, stage := range []string{"1", "2", "3"} {
		info += "100644 " + blob + " " + stage + "\ttop.txt\n"
	}
	cmd := "0 " + strings.Repeat("0", len(blob)) + "\ttop.txt\n" + info
	testIndexInfo(t, dir, cmd)
	got, unmerged, err := r.IndexEntriesAt(ctx, []string{"top.txt", "new.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if !unmerged["top.txt"] || got[0].Blob != "" || got[1].Blob == "" {
		t.Errorf("with a conflict: %v, unmerged %v", got, unmerged)
	}
}

func testIndexInfo(t *testing.T, dir, info string) {
	t.Helper()
	c := command(context.Background(), os.Environ(), dir, []string{"update-index", "--index-info"})
	c.Stdin = strings.NewReader(info)
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("update-index --index-info: %v\n%s", err, out)
	}
}

// MergeFile is git merge-file: a clean merge, a conflict (counted), and a
// binary file (refused).
func TestMergeFile(t *testing.T) {
	ctx := context.Background()
	r := newApplyRepo(t)
	tmp := t.TempDir()
	base := []byte("a\nb\nc\nd\ne\n")
	res, err := r.MergeFile(ctx, tmp, []byte("X\na\nb\nc\nd\ne\n"), base, []byte("a\nb\nc\nd\nT\ne\n"))
	if err != nil || res.Conflicts != 0 || res.Binary || string(res.Data) != "X\na\nb\nc\nd\nT\ne\n" {
		t.Errorf("clean merge: %q %+v %v", res.Data, res, err)
	}
	res, err = r.MergeFile(ctx, tmp, []byte("a\nB\nc\nd\ne\n"), base, []byte("a\nb2\nc\nd\ne\n"))
	if err != nil || res.Conflicts != 1 {
		t.Errorf("conflict: %+v %v", res, err)
	}
	res, err = r.MergeFile(ctx, tmp, []byte("a\x00b"), base, []byte("a\nb2\n"))
	if err != nil || !res.Binary {
		t.Errorf("binary: %+v %v", res, err)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("MergeFile left %d files in its folder", len(ents))
	}
}
