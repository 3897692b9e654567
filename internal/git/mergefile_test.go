package git

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nudgethis/git-nudge/internal/testutil"
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

// MergeFiles gives for each file what MergeFileLabeled gives, even in a
// repository whose attributes, merge drivers and configuration would make
// git's own merges differ (a union merge, a driver, renormalisation, end
// of line conversion, diff3 markers by default); and merge-tree, which it
// runs for all of them at once, answers for the clean ones.
func TestMergeFilesAgreesWithMergeFile(t *testing.T) {
	for _, format := range []string{"sha1", "sha256"} {
		t.Run(format, func(t *testing.T) { testMergeFilesAgree(t, format) })
	}
}

func testMergeFilesAgree(t *testing.T, format string) {
	ctx := context.Background()
	repo := testutil.Repo(t, "--object-format="+format)
	for _, kv := range [][2]string{{"merge.renormalize", "true"}, {"core.autocrlf", "true"}, {"merge.conflictStyle", "diff3"},
		{"merge.mine.driver", "cp %B %A"}, {"merge.default", "mine"}} {
		gitT(t, repo, "config", kv[0], kv[1])
	}
	r, err := Discover(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	dir := r.WorkTree
	writeT(t, dir, ".gitattributes", "* merge=union text eol=crlf\n*.drv merge=mine\n", 0o644)
	if err := os.WriteFile(r.GitDir+"/info/attributes", []byte("* merge=union conflict-marker-size=3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := "a\nb\nc\nd\ne\nf\ng\nh\n"
	crlf := func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }
	cases := []struct{ name, ours, base, theirs string }{
		{"clean", "X\n" + base, base, "a\nb\nc\nd\ne\nf\ng\nh\nT\n"},
		{"conflict", "a\nB\nc\nd\ne\nf\ng\nh\n", base, "a\nb2\nc\nd\ne\nf\ng\nh\n"},
		{"binary", "a\x00b\n" + base, base, base + "T\n"},
		{"crlf", crlf("X\n" + base), crlf(base), crlf(base + "T\n")},
		{"mixed eol", "X\r\n" + base, base, base + "T\n"},
		{"same change, other extents", "a\nb\nC\nD\ne\nf\ng\nh\n", base, "a\nb\nC\nD\nE\nf\ng\nh\n"},
		{"no final newline", "X\n" + strings.TrimSuffix(base, "\n"), strings.TrimSuffix(base, "\n"), strings.TrimSuffix(base, "\n") + "T"},
		{"empty base", "X\n", "", "T\n"},
		{"clean 2", base + "1\n2\n3\n4\n5\nY\n", base + "1\n2\n3\n4\n5\n6\n", "Q\n" + base + "1\n2\n3\n4\n5\n6\n"},
	}
	var in []MergeInput
	for i, c := range cases {
		m := MergeInput{Ours: []byte(c.ours), Base: []byte(c.base), Theirs: []byte(c.theirs)}
		if i%2 == 1 { // some of them stored already
			ids, err := r.WriteBlobsData(ctx, [][]byte{m.Base, m.Theirs})
			if err != nil {
				t.Fatal(err)
			}
			m.BaseID, m.TheirsID = ids[0], ids[1]
		}
		in = append(in, m)
	}
	labels := []string{"workspace", "snapshot", "task"}
	tmp := t.TempDir()
	clean, err := r.mergeApplyClean(ctx, tmp, in, true)
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.MergeFiles(ctx, tmp, in, labels)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		want, err := r.MergeFileLabeled(ctx, tmp, in[i].Ours, in[i].Base, in[i].Theirs, labels)
		if err != nil {
			t.Fatal(err)
		}
		if got[i].Conflicts != want.Conflicts || got[i].Binary != want.Binary || !bytes.Equal(got[i].Data, want.Data) {
			t.Errorf("%s: MergeFiles gave %+v (%q), merge-file %+v (%q)", c.name, got[i], got[i].Data, want, want.Data)
		}
		wantClean := want.Conflicts == 0 && !want.Binary
		if (clean[i] != nil) != wantClean || (wantClean && !bytes.Equal(clean[i], want.Data)) {
			t.Errorf("%s: git apply's merge gave %q, merge-file %+v (%q)", c.name, clean[i], want, want.Data)
		}
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("MergeFiles left %d files in its folder", len(ents))
	}
}

// On many small random three-way merges (few distinct lines, so that the
// line diffs have ties to break), MergeFiles gives what merge-file gives,
// with and without diff3 labels, and merge-tree's answers are the clean
// ones.
func TestMergeFilesRandom(t *testing.T) {
	ctx := context.Background()
	r := newApplyRepo(t)
	rnd := rand.New(rand.NewSource(28))
	lines := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = string(rune('a' + rnd.Intn(3)))
		}
		return out
	}
	edit := func(base []string) string {
		var out []string
		for _, l := range base {
			switch rnd.Intn(8) {
			case 0: // dropped
			case 1:
				out = append(out, lines(1+rnd.Intn(2))...)
			case 2:
				out = append(out, l)
				out = append(out, lines(1)...)
			default:
				out = append(out, l)
			}
		}
		return strings.Join(out, "\n") + "\n"
	}
	// The fast tier (go test -short) merges fewer cases.
	cases := 150
	if testing.Short() {
		cases = 40
	}
	var in []MergeInput
	for len(in) < cases {
		base := lines(4 + rnd.Intn(10))
		b, o, th := strings.Join(base, "\n")+"\n", edit(base), edit(base)
		if o == b || th == b || o == th {
			continue
		}
		in = append(in, MergeInput{Ours: []byte(o), Base: []byte(b), Theirs: []byte(th)})
	}
	tmp := t.TempDir()
	for _, labels := range [][]string{nil, {"workspace", "snapshot", "task"}} {
		clean, err := r.mergeApplyClean(ctx, tmp, in, labels != nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.MergeFiles(ctx, tmp, in, labels)
		if err != nil {
			t.Fatal(err)
		}
		nclean, nbatch := 0, 0
		for i := range in {
			want, err := r.MergeFileLabeled(ctx, tmp, in[i].Ours, in[i].Base, in[i].Theirs, labels)
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("labels %v, merge %d (%q %q %q)", labels, i, in[i].Ours, in[i].Base, in[i].Theirs)
			// Without labels merge-file names its temporary files on
			// the markers: only the count is compared then.
			if got[i].Conflicts != want.Conflicts || ((labels != nil || want.Conflicts == 0) && !bytes.Equal(got[i].Data, want.Data)) {
				t.Errorf("%s: MergeFiles gave %q, merge-file %q", name, got[i].Data, want.Data)
			}
			if want.Conflicts == 0 {
				nclean++
			}
			if clean[i] != nil {
				nbatch++
				if want.Conflicts != 0 || !bytes.Equal(clean[i], want.Data) {
					t.Errorf("%s: git apply's merge gave %q, merge-file %q (%d conflicts)", name, clean[i], want.Data, want.Conflicts)
				}
			}
		}
		if nbatch < nclean*9/10 {
			t.Errorf("labels %v: git apply merged %d of the %d clean merges", labels, nbatch, nclean)
		}
		if lo := 20 * len(in) / 150; nclean < lo || nclean > len(in)-lo {
			t.Errorf("labels %v: %d of %d merges clean: the cases test too little", labels, nclean, len(in))
		}
	}
}

// BenchmarkMergeFiles compares, round by round, MergeFiles on 10 files
// that merge cleanly (one git process) with the same 10 merges as one git
// merge-file each, four at a time (what apply --merge and save did
// before): wall time and the git processes' CPU time, medians.
func BenchmarkMergeFiles(b *testing.B) {
	ctx := context.Background()
	dir := testutil.Repo(b)
	r, err := Discover(ctx, dir)
	if err != nil {
		b.Fatal(err)
	}
	var in []MergeInput
	for f := 0; f < 10; f++ {
		var base []string
		for i := 0; i < 200; i++ {
			base = append(base, fmt.Sprintf("file %d line %d", f, i))
		}
		bs := strings.Join(base, "\n") + "\n"
		in = append(in, MergeInput{Ours: []byte("// mine\n" + bs), Base: []byte(bs), Theirs: []byte(bs + "// task\n")})
	}
	tmp := b.TempDir()
	children := func() time.Duration {
		var u syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &u)
		return time.Duration(u.Utime.Nano() + u.Stime.Nano())
	}
	var wall, cpu [2][]float64
	for n := 0; n < b.N; n++ {
		for k := 0; k < 2; k++ {
			t0, c0 := time.Now(), children()
			if k == 0 {
				if _, err := r.MergeFiles(ctx, tmp, in, nil); err != nil {
					b.Fatal(err)
				}
			} else {
				var wg sync.WaitGroup
				sem := make(chan struct{}, mergeFileProcs)
				for i := range in {
					wg.Add(1)
					sem <- struct{}{}
					go func(i int) {
						defer func() { <-sem; wg.Done() }()
						if _, err := r.MergeFile(ctx, tmp, in[i].Ours, in[i].Base, in[i].Theirs); err != nil {
							b.Error(err)
						}
					}(i)
				}
				wg.Wait()
			}
			wall[k] = append(wall[k], float64(time.Since(t0).Microseconds())/1000)
			cpu[k] = append(cpu[k], float64((children()-c0).Microseconds())/1000)
		}
	}
	median := func(v []float64) float64 {
		s := slices.Clone(v)
		slices.Sort(s)
		return s[len(s)/2]
	}
	b.ReportMetric(median(wall[0]), "batch-ms")
	b.ReportMetric(median(wall[1]), "mergefile-ms")
	b.ReportMetric(median(cpu[0]), "batch-cpu-ms")
	b.ReportMetric(median(cpu[1]), "mergefile-cpu-ms")
}
