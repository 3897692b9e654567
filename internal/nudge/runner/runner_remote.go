package runner

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/proc"
)

// inRemoteContainer is onRunner for a container runner whose engine is
// elsewhere (CONTAINER_HOST or DOCKER_HOST naming anything but a unix
// socket): the far engine cannot see the worktree, so nothing is mounted.
// The container is created, the task's start goes into it as a tar of
// its tree at the worktree's path (git archive | ENGINE cp - NAME:/), the
// command runs with ENGINE start --attach, and the worktree's folder
// comes back as a tar (ENGINE cp NAME:WORKTREE -). That tar is unpacked
// into a private folder (only folders, files and symlinks, nothing outside
// it or through a symlink), recorded through a temporary index, and the
// task's worktree is set to that tree for the usual capture (protected
// paths, sizes). When anything fails, nothing is imported and the
// worktree stays at its start. The container runs as the image's user
// (the files it gets are the archive's, owned by root), and is removed
// whatever happens.
func (w workspace) inRemoteContainer(ctx context.Context, p *runnerPlan, t *nudge.Task, c child, log io.Writer) (child, func(int) (int, error), error) {
	dir := w.RunnerDir(t.ID)
	if err := os.RemoveAll(dir); err != nil {
		return c, nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return c, nil, err
	}
	start, _ := w.runnerStart(ctx, t)
	startTree, err := w.Repo.TreeOf(ctx, start)
	if err != nil {
		return c, nil, err
	}
	wt := filepath.Clean(*t.Worktree)
	where := remoteEngineVar(p.engine) + "=" + remoteEngine(p.engine, c.env)
	p.remote = where
	name := "nudge-" + t.ID + "-" + strconv.Itoa(os.Getpid())
	engine := func(stdin io.Reader, stdout io.Writer, args ...string) error {
		var errb bytes.Buffer
		if err := proc.QuickIn(context.WithoutCancel(ctx), append([]string{p.engine}, args...), c.env, "", stdin, stdout, io.MultiWriter(log, &errb)); err != nil {
			return fmt.Errorf("%s %s: %v: %s", p.engine, strings.Join(args[:min(len(args), 2)], " "), err, strings.TrimSpace(errb.String()))
		}
		return nil
	}
	fail := func(what string, err error) error {
		return fmt.Errorf("runner %s (%s, %s): %s: %w; nothing was imported", p.name, p.engine, where, what, err)
	}
	remove := func() {
		for i := 0; i < 80; i++ {
			_ = engine(nil, io.Discard, "rm", "--force", name)
			if engine(nil, io.Discard, "container", "inspect", name) != nil {
				return
			}
			time.Sleep(250 * time.Millisecond)
		}
	}
	args := []string{"create", "--init", "--name", name,
		"--network", p.network,
		"--pids-limit", strconv.Itoa(p.procs),
		"--workdir", c.dir,
		"--env", "NUDGE_TASK=" + t.ID,
		"--env", "NUDGE_WORKSPACE=" + w.Repo.WorkTree,
		"--env", "NUDGE_RUNNER=" + p.name,
	}
	if v := envValue(c.env, "NUDGE_ATTEMPT"); v != "" {
		args = append(args, "--env", "NUDGE_ATTEMPT="+v)
	}
	review := envValue(c.env, nudge.ReviewEnv)
	if review != "" {
		args = append(args, "--env", nudge.ReviewEnv+"=/nudge-review.md")
	}
	if p.cpus != "" {
		args = append(args, "--cpus", p.cpus)
	}
	if p.memory != "" {
		args = append(args, "--memory", p.memory)
	}
	args = append(append(args, p.image), c.argv...)
	if err := engine(nil, io.Discard, args...); err != nil {
		return c, nil, fail("creating the container", fmt.Errorf("%w; check that %s info works with %s set so", err, p.engine, remoteEngineVar(p.engine)))
	}
	// The start's tree, at the worktree's path.
	in := filepath.Join(dir, "in.tar")
	f, err := os.Create(in)
	if err != nil {
		remove()
		return c, nil, err
	}
	// The tree as it is: no export-ignore or export-subst attribute
	// applies (they are read from an empty folder, not the tree).
	var errb bytes.Buffer
	noAttrs := filepath.Join(dir, "noattrs")
	err = os.Mkdir(noAttrs, 0o700)
	if err == nil {
		err = proc.Quick(ctx, []string{"git", "--git-dir=" + w.Repo.GitDir, "--work-tree=" + noAttrs, "-c", "core.attributesFile=/dev/null",
			"archive", "--worktree-attributes", "--format=tar", "--prefix=" + strings.TrimPrefix(filepath.ToSlash(wt), "/") + "/", start},
			append(os.Environ(), "GIT_ATTR_NOSYSTEM=1"), noAttrs, f, &errb)
	}
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err == nil {
		err = engine(f, io.Discard, "cp", "-", name+":/")
	}
	f.Close()
	if err == nil && review != "" {
		err = engine(nil, io.Discard, "cp", review, name+":/nudge-review.md")
	}
	if err != nil {
		remove()
		return c, nil, fail("sending the snapshot into the container", fmt.Errorf("%v %s", err, strings.TrimSpace(errb.String())))
	}
	c.argv = []string{p.engine, "start", "--attach", name}
	c.path = ""
	c.stdin = nil
	// An interrupt or termination stops the container itself: TERM, then
	// KILL 10 s later.
	stop := c.stopOnSignal(func() { _ = engine(nil, io.Discard, "stop", "--time", "10", name) })
	finish := func(code int) (int, error) {
		stop()
		defer os.RemoveAll(dir)
		defer remove()
		ctx := context.WithoutCancel(ctx)
		// The worktree's folder as the command left it.
		outTar := filepath.Join(dir, "out.tar")
		f, err := os.Create(outTar)
		if err != nil {
			return code, err
		}
		err = engine(nil, f, "cp", name+":"+wt, "-")
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return code, fail("fetching the result from the container", err)
		}
		root := filepath.Join(dir, "out")
		if err := os.Mkdir(root, 0o700); err != nil {
			return code, err
		}
		if err := untarTree(outTar, root, path.Base(filepath.ToSlash(wt))); err != nil {
			return code, fail("the result was refused", err)
		}
		tree, err := w.treeOfFolder(ctx, root, filepath.Join(dir, "index"))
		if err != nil {
			return code, fail("recording the result", err)
		}
		if tree == startTree && p.fresh {
			return code, nil
		}
		return code, w.resetToRunnerResult(ctx, t, tree)
	}
	return c, finish, nil
}

// treeOfFolder records the files of folder (git add -A, with the
// repository's ignore rules) through a temporary index at index, and
// returns the tree.
func (w workspace) treeOfFolder(ctx context.Context, folder, index string) (string, error) {
	env := append(os.Environ(), "GIT_INDEX_FILE="+index)
	base := []string{"git", "--git-dir=" + w.Repo.GitDir, "--work-tree=" + folder}
	var errb bytes.Buffer
	if err := proc.Quick(ctx, append(base, "add", "-A"), env, folder, io.Discard, &errb); err != nil {
		return "", fmt.Errorf("git add: %v: %s", err, strings.TrimSpace(errb.String()))
	}
	var out bytes.Buffer
	if err := proc.Quick(ctx, append(base, "write-tree"), env, folder, &out, &errb); err != nil {
		return "", fmt.Errorf("git write-tree: %v: %s", err, strings.TrimSpace(errb.String()))
	}
	return strings.TrimSpace(out.String()), nil
}

// untarTree unpacks the tar at file into dest, an empty folder: the
// entries under top/ only (top itself is dest), and only folders, regular
// files and symlinks. An entry whose path leaves dest, or goes through a
// symlink or a file, or that would replace an entry already there, is
// refused, and so is the whole tar.
func untarTree(file, dest, top string) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading the tar: %w", err)
		}
		name := path.Clean(strings.TrimPrefix(h.Name, "./"))
		if name == top {
			continue
		}
		rel, ok := strings.CutPrefix(name, top+"/")
		if !ok || !filepath.IsLocal(rel) {
			return fmt.Errorf("%q is outside the worktree's folder", h.Name)
		}
		target := filepath.Join(dest, filepath.FromSlash(rel))
		if err := realParents(dest, filepath.Dir(filepath.FromSlash(rel))); err != nil {
			return fmt.Errorf("%q: %w", h.Name, err)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.Mkdir(target, 0o755); err != nil {
				if st, lerr := os.Lstat(target); lerr != nil || !st.IsDir() {
					return fmt.Errorf("%q: %w", h.Name, err)
				}
			}
		case tar.TypeReg:
			mode := os.FileMode(0o644)
			if h.Mode&0o111 != 0 {
				mode = 0o755
			}
			out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
			if err != nil {
				return fmt.Errorf("%q: %w", h.Name, err)
			}
			_, err = io.Copy(out, tr)
			if cerr := out.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return fmt.Errorf("%q: %w", h.Name, err)
			}
		case tar.TypeSymlink:
			if err := os.Symlink(h.Linkname, target); err != nil {
				return fmt.Errorf("%q: %w", h.Name, err)
			}
		}
	}
}

// realParents makes sure every folder of rel below dest is a real folder
// (not a symlink), making the missing ones.
func realParents(dest, rel string) error {
	if rel == "." {
		return nil
	}
	cur := dest
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		st, err := os.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			if err := os.Mkdir(cur, 0o755); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		if !st.IsDir() {
			return errors.New("a path in it goes through a symlink or a file")
		}
	}
	return nil
}
