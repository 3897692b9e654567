package git

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"strconv"
	"strings"
)

// RefsAll lists every ref of the repository (name -> object), one git
// process.
func (r *Repo) RefsAll(ctx context.Context) (map[string]string, error) {
	out, err := r.git(ctx, "for-each-ref", "--format=%(objectname) %(refname)")
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	for _, l := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		if obj, name, ok := strings.Cut(l, " "); ok {
			m[name] = obj
		}
	}
	return m, nil
}

// revStdin is rev-list's standard input: include as they are, exclude
// each as ^<id>.
func revStdin(include, exclude []string) *bytes.Buffer {
	var b bytes.Buffer
	for _, id := range include {
		b.WriteString(id + "\n")
	}
	for _, id := range exclude {
		b.WriteString("^" + id + "\n")
	}
	return &b
}

// keptByGit are the rev-list arguments, after --not, for what git gc
// keeps besides refs: HEAD, every reflog and the index.
var keptByGit = []string{"--not", "HEAD", "--reflog", "--indexed-objects"}

// DiskUsage is the bytes on disk of the objects reachable from include
// and from none of exclude (object ids), nor from HEAD, a reflog or the
// index: what git gc could delete once include no longer pinned them.
// One git process (rev-list --disk-usage, git 2.38 or later; older
// versions sum the sizes through cat-file).
func (r *Repo) DiskUsage(ctx context.Context, include, exclude []string) (int64, error) {
	if len(include) == 0 {
		return 0, nil
	}
	args := append([]string{"rev-list", "--objects", "--disk-usage", "--stdin"}, keptByGit...)
	out, err := r.run(ctx, cmd{Args: args, Stdin: revStdin(include, exclude)})
	if err == nil {
		return strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	}
	sizes, err2 := r.UniqueObjects(ctx, include, exclude)
	if err2 != nil {
		return 0, err
	}
	var n int64
	for _, s := range sizes {
		n += s
	}
	return n, nil
}

// UniqueObjects is the objects DiskUsage counts, each with its bytes on
// disk: two git processes (rev-list, cat-file), whatever their number.
func (r *Repo) UniqueObjects(ctx context.Context, include, exclude []string) (map[string]int64, error) {
	sizes := map[string]int64{}
	if len(include) == 0 {
		return sizes, nil
	}
	args := append([]string{"rev-list", "--objects", "--no-object-names", "--stdin"}, keptByGit...)
	// rev-list's ids go straight to cat-file, both running at once.
	pr, pw := io.Pipe()
	revDone := make(chan error, 1)
	go func() {
		_, err := r.run(ctx, cmd{Args: args, Stdin: revStdin(include, exclude), Stdout: pw})
		pw.CloseWithError(err)
		revDone <- err
	}()
	out, err := r.run(ctx, cmd{Args: []string{"cat-file", "--batch-check=%(objectname) %(objectsize:disk)"}, Stdin: pr})
	pr.CloseWithError(io.ErrClosedPipe) // rev-list stops if cat-file did
	if revErr := <-revDone; revErr != nil {
		return nil, revErr
	}
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		id, size, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		if n, err := strconv.ParseInt(size, 10, 64); err == nil {
			sizes[id] = n
		}
	}
	return sizes, nil
}

// CommitObjects returns, for each of commits, the commit itself and the
// blobs it adds or changes against its first parent (all of them for a
// root commit): one git process (log --no-walk --raw) for any number.
func (r *Repo) CommitObjects(ctx context.Context, commits []string) (map[string][]string, error) {
	objs := map[string][]string{}
	if len(commits) == 0 {
		return objs, nil
	}
	var in bytes.Buffer
	for _, c := range commits {
		in.WriteString(c + "\n")
	}
	out, err := r.run(ctx, cmd{Args: []string{"log", "--no-walk=unsorted", "--stdin", "--raw", "--no-abbrev", "--no-renames", "--root", "-r", "--first-parent", "--format=commit %H"}, Stdin: &in})
	if err != nil {
		return nil, err
	}
	var cur string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for sc.Scan() {
		l := sc.Text()
		if c, ok := strings.CutPrefix(l, "commit "); ok {
			cur = c
			objs[cur] = append(objs[cur], c)
			continue
		}
		// :100644 100644 <old> <new> M\tpath
		if cur == "" || !strings.HasPrefix(l, ":") {
			continue
		}
		meta, _, _ := strings.Cut(l, "\t")
		f := strings.Fields(meta)
		if len(f) >= 4 && f[3] != strings.Repeat("0", len(f[3])) {
			objs[cur] = append(objs[cur], f[3])
		}
	}
	return objs, nil
}

// NotReachable returns those of commits that none of from reaches: one
// git process, whose work follows the commits outside from's history,
// not its length.
func (r *Repo) NotReachable(ctx context.Context, commits, from []string) (map[string]bool, error) {
	out := map[string]bool{}
	if len(commits) == 0 {
		return out, nil
	}
	want := map[string]bool{}
	for _, c := range commits {
		want[c] = true
	}
	var in bytes.Buffer
	for c := range want {
		in.WriteString(c + "\n")
	}
	for _, f := range from {
		if f != "" {
			in.WriteString("^" + f + "\n")
		}
	}
	data, err := r.run(ctx, cmd{Args: []string{"rev-list", "--stdin"}, Stdin: &in})
	if err != nil {
		return nil, err
	}
	for _, l := range strings.Split(string(data), "\n") {
		if want[l] {
			out[l] = true
		}
	}
	return out, nil
}
