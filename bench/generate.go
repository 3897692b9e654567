package main

import (
	"bufio"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Generating the bench repositories and editing them between rounds.

// generate makes a repository of n files of a few KB each in nested folders,
// committed and packed, with a checked-out work tree and a fresh index.
func (b *bench) generate(n int) (string, error) {
	dir := filepath.Join(b.work, fmt.Sprintf("repo-%d", n))
	fmt.Fprintf(os.Stderr, "generating %d files in %s\n", n, dir)
	// A repository left by an earlier run with the same -work folder is
	// made again (fast-import refuses to move its branch, and its tasks,
	// checkpoints and op log would skew the rows), unless -reuse asks to
	// keep it: then only its work tree, index and the suites' state are
	// put back (generating 1,000,000 files takes many minutes).
	if _, err := os.Stat(filepath.Join(dir, ".git", "bench-generated")); err == nil && *reuse {
		fmt.Fprintf(os.Stderr, "reusing %s\n", dir)
		os.Remove(filepath.Join(b.work, fmt.Sprintf("pool-last-%d", n)))
		err := b.must(dir, "git nudge pool clear >/dev/null 2>&1; rm -rf .nudgethis .autodev && git worktree prune && git reset -q --hard main && git clean -qfdx && for r in $(git for-each-ref --format='%(refname)' refs/nudgethis refs/autodev); do git update-ref -d $r; done; git config --unset-all nudge.pool; git config --unset core.untrackedCache; git config --unset core.fsmonitor; git status --porcelain >/dev/null")
		return dir, err
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	if err := b.must(b.work, "git init -q "+dir); err != nil {
		return "", err
	}
	// fast-import is the quickest way to make n blobs and one commit.
	fi := exec.Command("git", "fast-import", "--quiet")
	fi.Dir = dir
	fi.Env = b.env
	in, err := fi.StdinPipe()
	if err != nil {
		return "", err
	}
	fi.Stderr = os.Stderr
	if err := fi.Start(); err != nil {
		return "", err
	}
	w := bufio.NewWriterSize(in, 1<<20)
	rng := rand.New(rand.NewSource(int64(n)))
	words := []string{"alpha", "beta", "gamma", "delta", "nudge", "func", "return", "value", "index", "tree"}
	for i := 0; i < n; i++ {
		var sb strings.Builder
		size := 1024 + rng.Intn(3072)
		fmt.Fprintf(&sb, "// file %d\n", i)
		for sb.Len() < size {
			sb.WriteString(words[rng.Intn(len(words))])
			if rng.Intn(8) == 0 {
				sb.WriteByte('\n')
			} else {
				sb.WriteByte(' ')
			}
		}
		sb.WriteByte('\n')
		fmt.Fprintf(w, "blob\nmark :%d\ndata %d\n%s\n", i+1, sb.Len(), sb.String())
	}
	fmt.Fprintf(w, "commit refs/heads/main\ncommitter Bench <bench@example.com> 1700000000 +0000\ndata 9\ngenerate\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(w, "M 100644 :%d %s\n", i+1, filePath(i))
	}
	w.WriteString("\n")
	if err := w.Flush(); err != nil {
		return "", err
	}
	in.Close()
	if err := fi.Wait(); err != nil {
		return "", fmt.Errorf("fast-import: %v", err)
	}
	if err := b.must(dir, "git repack -adq && git reset -q --hard main && git status --porcelain >/dev/null && touch .git/bench-generated"); err != nil {
		return "", err
	}
	return dir, nil
}

func filePath(i int) string {
	return fmt.Sprintf("src/d%03d/e%02d/file%06d.txt", i/1000, (i/50)%20, i)
}

// edit appends a line to k files chosen by seed and creates one new file.
func (b *bench) edit(dir string, n, k int, seed int64, newFile bool) error {
	rng := rand.New(rand.NewSource(seed))
	for j := 0; j < k; j++ {
		p := filepath.Join(dir, filePath(rng.Intn(n)))
		f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		fmt.Fprintf(f, "edit %d %d\n", seed, j)
		f.Close()
	}
	if newFile {
		return os.WriteFile(filepath.Join(dir, fmt.Sprintf("new-%d.txt", seed)), []byte("new file\n"), 0o644)
	}
	return nil
}
