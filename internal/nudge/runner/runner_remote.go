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
	r := &remoteRun{w: w, ctx: ctx, p: p, t: t, env: c.env, log: log, dir: w.RunnerDir(t.ID)}
	if err := os.RemoveAll(r.dir); err != nil {
		return c, nil, err
	}
	if err := os.MkdirAll(r.dir, 0o700); err != nil {
		return c, nil, err
	}
	r.start, _ = w.runnerStart(ctx, t)
	var err error
	if r.startTree, err = w.Repo.TreeOf(ctx, r.start); err != nil {
		return c, nil, err
	}
	r.wt = filepath.Clean(*t.Worktree)
	r.where = remoteEngineVar(p.engine) + "=" + remoteEngine(p.engine, c.env)
	p.remote = r.where
	r.name = "nudge-" + t.ID + "-" + strconv.Itoa(os.Getpid())
	review := envValue(c.env, ReviewEnv)
	if err := r.create(c, review != ""); err != nil {
		return c, nil, err
	}
	if err := r.sendStart(review); err != nil {
		r.remove()
		return c, nil, err
	}
	c.argv = []string{p.engine, "start", "--attach", r.name}
	c.path = ""
	c.stdin = nil
	// An interrupt or termination stops the container itself: TERM, then
	// KILL 10 s later.
	stop := c.stopOnSignal(func() { _ = r.engine(nil, io.Discard, "stop", "--time", "10", r.name) })
	finish := func(code int) (int, error) {
		stop()
		defer os.RemoveAll(r.dir)
		defer r.remove()
		return code, r.takeResult()
	}
	return c, finish, nil
}

// remoteRun is one run of a task's command in a container of a remote
// engine (inRemoteContainer).
type remoteRun struct {
	w   workspace
	ctx context.Context
	p   *runnerPlan
	t   *nudge.Task
	env []string // the engine client's environment
	log io.Writer

	dir       string // the run's local folder (the tars, the result)
	wt        string // the task's worktree, the same path in the container
	where     string // the engine's variable, as the user set it
	name      string // the container's name
	start     string // the start commit and its tree
	startTree string
}

// engine runs the engine's client with args, its errors kept in the log.
// It is not cut short by an interrupt: the container must be removed.
func (r *remoteRun) engine(stdin io.Reader, stdout io.Writer, args ...string) error {
	var errb bytes.Buffer
	if err := proc.QuickIn(context.WithoutCancel(r.ctx), append([]string{r.p.engine}, args...), r.env, "", stdin, stdout, io.MultiWriter(r.log, &errb)); err != nil {
		return fmt.Errorf("%s %s: %v: %s", r.p.engine, strings.Join(args[:min(len(args), 2)], " "), err, strings.TrimSpace(errb.String()))
	}
	return nil
}

// fail is the error of a step after which nothing is imported.
func (r *remoteRun) fail(what string, err error) error {
	return fmt.Errorf("runner %s (%s, %s): %s: %w; nothing was imported", r.p.name, r.p.engine, r.where, what, err)
}

// remove removes the container, asking again until the engine no
// longer knows it (20 s at most).
func (r *remoteRun) remove() {
	for i := 0; i < 80; i++ {
		_ = r.engine(nil, io.Discard, "rm", "--force", r.name)
		if r.engine(nil, io.Discard, "container", "inspect", r.name) != nil {
			return
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// create creates the container that runs c's command in c's folder,
// with the runner's network, limits and image; review says that the
// review comments are copied in.
func (r *remoteRun) create(c child, review bool) error {
	p := r.p
	args := []string{"create", "--init", "--name", r.name,
		"--network", p.network,
		"--pids-limit", strconv.Itoa(p.procs),
		"--workdir", c.dir,
		"--env", "NUDGE_TASK=" + r.t.ID,
		"--env", "NUDGE_WORKSPACE=" + r.w.Repo.WorkTree,
		"--env", "NUDGE_RUNNER=" + p.name,
	}
	if v := envValue(c.env, "NUDGE_ATTEMPT"); v != "" {
		args = append(args, "--env", "NUDGE_ATTEMPT="+v)
	}
	if review {
		args = append(args, "--env", ReviewEnv+"=/nudge-review.md")
	}
	if p.cpus != "" {
		args = append(args, "--cpus", p.cpus)
	}
	if p.memory != "" {
		args = append(args, "--memory", p.memory)
	}
	args = append(append(args, p.image), c.argv...)
	if err := r.engine(nil, io.Discard, args...); err != nil {
		return r.fail("creating the container", fmt.Errorf("%w; check that %s info works with %s set so", err, p.engine, remoteEngineVar(p.engine)))
	}
	return nil
}

// sendStart copies the start's tree into the container at the
// worktree's path, and the review comments file when there is one.
func (r *remoteRun) sendStart(review string) error {
	f, err := os.Create(filepath.Join(r.dir, "in.tar"))
	if err != nil {
		return err
	}
	// The tree as it is: no export-ignore or export-subst attribute
	// applies (they are read from an empty folder, not the tree).
	var errb bytes.Buffer
	noAttrs := filepath.Join(r.dir, "noattrs")
	err = os.Mkdir(noAttrs, 0o700)
	if err == nil {
		err = proc.Quick(r.ctx, []string{"git", "--git-dir=" + r.w.Repo.GitDir, "--work-tree=" + noAttrs, "-c", "core.attributesFile=/dev/null",
			"archive", "--worktree-attributes", "--format=tar", "--prefix=" + strings.TrimPrefix(filepath.ToSlash(r.wt), "/") + "/", r.start},
			append(os.Environ(), "GIT_ATTR_NOSYSTEM=1"), noAttrs, f, &errb)
	}
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err == nil {
		err = r.engine(f, io.Discard, "cp", "-", r.name+":/")
	}
	f.Close()
	if err == nil && review != "" {
		err = r.engine(nil, io.Discard, "cp", review, r.name+":/nudge-review.md")
	}
	if err != nil {
		return r.fail("sending the snapshot into the container", fmt.Errorf("%v %s", err, strings.TrimSpace(errb.String())))
	}
	return nil
}

// takeResult fetches the worktree's folder as the command left it,
// unpacks and records it, and sets the task's worktree to that tree
// (unless the run's fresh worktree holds it already).
func (r *remoteRun) takeResult() error {
	ctx := context.WithoutCancel(r.ctx)
	outTar := filepath.Join(r.dir, "out.tar")
	f, err := os.Create(outTar)
	if err != nil {
		return err
	}
	err = r.engine(nil, f, "cp", r.name+":"+r.wt, "-")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return r.fail("fetching the result from the container", err)
	}
	root := filepath.Join(r.dir, "out")
	if err := os.Mkdir(root, 0o700); err != nil {
		return err
	}
	if err := untarTree(outTar, root, path.Base(filepath.ToSlash(r.wt))); err != nil {
		return r.fail("the result was refused", err)
	}
	tree, err := r.w.treeOfFolder(ctx, root, filepath.Join(r.dir, "index"))
	if err != nil {
		return r.fail("recording the result", err)
	}
	if tree == r.startTree && r.p.fresh {
		return nil
	}
	return r.w.resetToRunnerResult(ctx, r.t, tree)
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
