package snapshot

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nudgethis/git-nudge/internal/git"
)

// captureWith runs CaptureWith under p on the fixture, with HEAD as the
// caller would read it.
func (f *fixture) captureWith(p Policy) (Result, error) {
	f.t.Helper()
	ctx := context.Background()
	repo, err := git.Discover(ctx, f.dir)
	if err != nil {
		f.t.Fatal(err)
	}
	head, headTree, err := repo.HeadTree(ctx)
	if err != nil {
		f.t.Fatal(err)
	}
	res, _, err := CaptureWith(ctx, repo, Request{Policy: p, Head: head, HeadTree: headTree})
	return res, err
}

// lsTree lists tree's entries as "mode path".
func (f *fixture) lsTree(tree string) map[string]string {
	f.t.Helper()
	out := map[string]string{}
	for _, l := range strings.Split(f.git("ls-tree", "-r", tree), "\n") {
		meta, path, ok := strings.Cut(l, "\t")
		if !ok {
			continue
		}
		fields := strings.Fields(meta)
		out[path] = fields[0] + " " + fields[2]
	}
	return out
}

// The one engine under its two policies, on one work tree: each
// difference the policies name shows in what is taken and what is
// reported, and the user's index is untouched by both.
func TestPoliciesOnOneWorkTree(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "sha1")
	f.write(".env", "TOKEN=old\n")
	f.write("src/a", "a\n")
	f.git("add", "-A")
	f.git("commit", "-qm", "base")
	f.git("config", "autodev.protect", "secret*")

	f.write(".env", "TOKEN=new\n")         // tracked and protected
	f.write(".env.local", "X=1\n")         // protected for checkpoints only
	f.write("secret.txt", "s\n")           // autodev.protect
	f.write("node_modules/m.js", "m\n")    // a dependency folder
	f.write(".autodev/state.json", "{}\n") // autodev's own folder
	f.write("src/a", "edited\n")           // a plain edit
	f.write("src/new", "n\n")              // a plain new file
	f.write("inner/file", "i\n")           // a nested repository
	inner := &fixture{t: t, dir: filepath.Join(f.dir, "inner")}
	inner.git("init", "-q")
	inner.git("add", "-A")
	inner.git("commit", "-qm", "inner")
	big := filepath.Join(f.dir, "big.bin")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, MaxFileSize+1); err != nil {
		t.Fatal(err)
	}
	indexBefore, err := os.ReadFile(filepath.Join(f.dir, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	snap, err := f.captureWith(SnapshotPolicy)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Index.Path != "" || snap.IndexTree != "" {
		t.Errorf("a snapshot kept an index: %+v", snap)
	}
	got := f.lsTree(snap.Tree)
	if want := f.lsTree("HEAD")[".env"]; got[".env"] != want {
		t.Errorf("snapshot: tracked .env is %q, want HEAD's %q", got[".env"], want)
	}
	for _, p := range []string{".env.local", "secret.txt", "src/new"} {
		if _, ok := got[p]; !ok {
			t.Errorf("snapshot left out %s", p)
		}
	}
	for _, p := range []string{"node_modules/m.js", ".autodev/state.json", "inner", "big.bin"} {
		if _, ok := got[p]; ok {
			t.Errorf("snapshot took %s", p)
		}
	}
	wantSnap := []Skipped{
		{Path: ".autodev/", Reason: ReasonProtected},
		{Path: ".env", Reason: ReasonProtected},
		{Path: "big.bin", Reason: ReasonTooLarge, Size: MaxFileSize + 1},
		{Path: "inner/", Reason: ReasonNestedRepo},
		{Path: "node_modules/", Reason: ReasonDependency},
	}
	if !reflect.DeepEqual(snap.Skipped, wantSnap) {
		t.Errorf("snapshot skipped %+v, want %+v", snap.Skipped, wantSnap)
	}

	ckpt, err := f.captureWith(CheckpointPolicy)
	if err != nil {
		t.Fatal(err)
	}
	if ckpt.Index.Path == "" || ckpt.IndexTree != f.git("rev-parse", "HEAD^{tree}") || ckpt.Clean {
		t.Errorf("checkpoint capture: index %q, index tree %q, clean %v", ckpt.Index.Path, ckpt.IndexTree, ckpt.Clean)
	}
	got = f.lsTree(ckpt.Tree)
	if got[".env"] == f.lsTree("HEAD")[".env"] {
		t.Errorf("checkpoint kept HEAD's tracked .env")
	}
	if got["inner"] != "160000 "+inner.git("rev-parse", "HEAD") {
		t.Errorf("checkpoint: inner is %q, want its commit", got["inner"])
	}
	for _, p := range []string{"node_modules/m.js", "src/new", "src/a"} {
		if _, ok := got[p]; !ok {
			t.Errorf("checkpoint left out %s", p)
		}
	}
	for _, p := range []string{".env.local", "secret.txt", ".autodev/state.json", "big.bin"} {
		if _, ok := got[p]; ok {
			t.Errorf("checkpoint took %s", p)
		}
	}
	wantCkpt := []Skipped{
		{Path: ".env.local", Reason: ReasonProtected},
		{Path: "big.bin", Reason: ReasonTooLarge, Size: MaxFileSize + 1},
		{Path: "secret.txt", Reason: ReasonProtected},
	}
	if !reflect.DeepEqual(ckpt.Skipped, wantCkpt) {
		t.Errorf("checkpoint skipped %+v, want %+v", ckpt.Skipped, wantCkpt)
	}
	// The private index holds the captured tree.
	if tree := f.gitEnv([]string{"GIT_INDEX_FILE=" + ckpt.Index.Path}, "write-tree"); tree != ckpt.Tree {
		t.Errorf("the checkpoint's index holds %s, its tree is %s", tree, ckpt.Tree)
	}
	ixPath := ckpt.Index.Path
	ckpt.Discard()
	if _, err := os.Lstat(ixPath); !errors.Is(err, os.ErrNotExist) || ckpt.Index.Path != "" {
		t.Errorf("Discard left the private index: %v, %q", err, ckpt.Index.Path)
	}
	indexAfter, err := os.ReadFile(filepath.Join(f.dir, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(indexBefore, indexAfter) {
		t.Error("a capture changed the user's index")
	}
}

// nudge.maxUntracked bounds a snapshot, never a checkpoint.
func TestPoliciesUntrackedLimit(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "sha1")
	f.write("a", "a\n")
	f.git("add", "-A")
	f.git("commit", "-qm", "base")
	f.git("config", "nudge.maxUntracked", "2")
	for _, n := range []string{"gen/1", "gen/2", "gen/3"} {
		f.write(n, n+"\n")
	}
	var tooMany *TooManyUntrackedError
	if _, err := f.captureWith(SnapshotPolicy); !errors.As(err, &tooMany) {
		t.Errorf("snapshot of 3 untracked files with a limit of 2: %v", err)
	}
	res, err := f.captureWith(CheckpointPolicy)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Discard()
	if res.Untracked != 3 {
		t.Errorf("checkpoint took %d untracked files, want 3", res.Untracked)
	}
	// A capture in the index that limits untracked files refuses too,
	// and removes its private index.
	limited := CheckpointPolicy
	limited.Name, limited.IndexName, limited.LimitUntracked = "limited", "limited", true
	if _, err := f.captureWith(limited); !errors.As(err, &tooMany) || tooMany.Folders[0] != (FolderCount{Folder: "gen/", Files: 3}) {
		t.Errorf("limited capture in the index of 3 untracked files: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(f.dir, ".git", "limited-*")); len(left) > 0 {
		t.Errorf("a refused capture left %v", left)
	}
}

// A policy the engine cannot build is refused before anything is read.
func TestPolicyCheck(t *testing.T) {
	t.Parallel()
	for _, p := range []Policy{
		{Name: "index keeping HEAD's protected paths", InIndex: true, IndexName: "x", ProtectTracked: true},
		{Name: "index without a name", InIndex: true},
		{Name: "HEAD's tree with nested repositories", TakeNestedRepos: true},
		{Name: "HEAD's tree with excludes", Exclude: []string{".x"}},
	} {
		if err := p.check(); err == nil {
			t.Errorf("policy %q accepted", p.Name)
		}
	}
	for _, p := range []Policy{SnapshotPolicy, CheckpointPolicy} {
		if err := p.check(); err != nil {
			t.Errorf("policy %s refused: %v", p.Name, err)
		}
	}
}
