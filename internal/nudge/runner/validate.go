package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/nudge"
	"github.com/nudgethis/git-nudge/internal/refs"
)

// DefaultValidateTimeout bounds each validation command unless git config
// nudge.validateTimeout says otherwise.
const DefaultValidateTimeout = 30 * time.Minute

// ValidateOptions says how to validate a task.
type ValidateOptions struct {
	Environ []string
	// Output shows the commands' output live (it is also kept in
	// logs/<id>/validate.log); nil shows nothing.
	Output io.Writer
	// Skip records the validation as skipped (--no-validate) instead of
	// running it.
	Skip bool
	// Signals (SIGINT, SIGTERM) received while the commands run stop the
	// running one with its process group and skip the rest.
	Signals <-chan os.Signal
}

// validateCommands returns the nudge.validate commands and the bound on
// each one's time.
func (w workspace) validateCommands(ctx context.Context) ([]string, time.Duration, error) {
	cmds, err := w.Repo.ConfigGetAll(ctx, "nudge.validate")
	if err != nil || len(cmds) == 0 {
		return nil, 0, err
	}
	timeout := DefaultValidateTimeout
	if s, ok, err := w.Repo.ConfigGet(ctx, "nudge.validateTimeout"); err != nil {
		return nil, 0, err
	} else if ok {
		d, err := parseTimeout(s)
		if err != nil {
			return nil, 0, fmt.Errorf("git config nudge.validateTimeout %q: %v; give a duration such as 90s, 10m or 1h (git config nudge.validateTimeout 30m)", s, err)
		}
		timeout = d
	}
	return cmds, timeout, nil
}

// parseTimeout reads a duration ("90s", "10m", "1h30m"; a bare number is
// seconds).
func parseTimeout(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if n, err := time.ParseDuration(s + "s"); err == nil && !strings.ContainsAny(s, "hmsuµn") {
		s = n.String()
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, errors.New("not a duration")
	}
	if d <= 0 {
		return 0, errors.New("must be more than zero")
	}
	return d, nil
}

// SkipValidation records that t's validation was skipped (--no-validate)
// when nudge.validate names commands; without any, nothing is recorded.
// The record is not saved.
func (w workspace) skipValidation(ctx context.Context, t *nudge.Task, reason string) {
	cmds, _, err := w.validateCommands(ctx)
	if err != nil || len(cmds) == 0 {
		t.Validation = nil
		return
	}
	t.Validation = &nudge.Validation{State: nudge.ValidationSkipped, Commands: []nudge.ValidationCommand{}, Result: nudge.Deref(t.Result), Reason: reason}
}

// validateHeld validates t, whose result was just captured from its
// worktree: the workspace lock l is held and so is the task's own lock
// (hold). It records t as validating, releases l while the commands run,
// then takes the lock again (returned, held) and records the outcome;
// t's state goes back to what it was. Without nudge.validate commands
// nothing happens.
func (w workspace) validateHeld(ctx context.Context, t *nudge.Task, l *journal.Lock, hold *os.File, o ValidateOptions) (*journal.Lock, error) {
	cmds, timeout, err := w.validateCommands(ctx)
	if err != nil {
		msg := err.Error()
		t.Validation = &nudge.Validation{State: nudge.ValidationFailed, Commands: []nudge.ValidationCommand{}, Result: nudge.Deref(t.Result), Reason: msg}
		return l, w.Save(t)
	}
	if len(cmds) == 0 {
		t.Validation = nil
		return l, nil
	}
	if t.Result == nil || !w.HasWorktree(t) {
		return l, nil
	}
	after := t.State
	now := w.Now().UTC()
	logPath := filepath.Join(w.LogDir(t.ID), "validate.log")
	pid := os.Getpid()
	t.State = nudge.StateValidating
	t.PID, t.CommandPID = &pid, nil
	t.Validation = &nudge.Validation{State: nudge.StateValidating, Commands: []nudge.ValidationCommand{}, Result: *t.Result, Started: &now, Log: logPath}
	if err := w.Save(t); err != nil {
		return l, err
	}
	l.Release()

	results, verr := w.runValidation(ctx, t, cmds, timeout, logPath, hold, o)

	ctx = context.WithoutCancel(ctx)
	l, err = w.Lock(ctx, "git-nudge validate")
	if err != nil {
		return nil, err
	}
	v := t.Validation
	v.Commands = results
	v.State = nudge.ValidationPassed
	for _, c := range results {
		if c.ExitCode == nil || *c.ExitCode != 0 || c.Error != "" {
			v.State = nudge.ValidationFailed
		}
	}
	if verr != nil {
		v.State, v.Reason = nudge.ValidationFailed, verr.Error()
	}
	if err := w.putBackAfterValidation(ctx, t); err != nil {
		v.Reason = strings.TrimPrefix(v.Reason+"; ", "; ") + "the worktree could not be checked after validation: " + err.Error()
	}
	t.State = after
	t.PID, t.CommandPID = nil, nil
	return l, w.Save(t)
}

// runValidation runs each command with sh -c in t's worktree, bounded by
// timeout (its whole process group is stopped then), output kept in the
// bounded validate.log. Every command runs, also after one failed, so
// that the record says which pass. An interrupt (ctx) stops the current
// one and skips the rest.
func (w workspace) runValidation(ctx context.Context, t *nudge.Task, cmds []string, timeout time.Duration, logPath string, hold *os.File, o ValidateOptions) ([]nudge.ValidationCommand, error) {
	results := make([]nudge.ValidationCommand, 0, len(cmds))
	log, err := openShellLog(logPath, o.Output)
	if err != nil {
		return results, err
	}
	defer log.Close()
	// After a sandboxed run, validation runs the task's code (its tests,
	// build files, scripts) in the same sandbox: a task must not escape it
	// by writing what validation executes.
	var plan *sandboxPlan
	if t.Sandbox {
		on := true
		if plan, err = w.planSandbox(ctx, &on, o.Environ); err != nil {
			return results, err
		}
		log.Printf("%s", plan.fallbackGaps())
		log.Printf("git nudge: validating in the sandbox the task ran in: %s\n", plan.describe())
	}
	var interrupted bool
	for _, c := range cmds {
		if ctx.Err() != nil || interrupted {
			return results, fmt.Errorf("interrupted before %q ran", c)
		}
		res := nudge.ValidationCommand{Command: c}
		sigs := make(chan os.Signal, 4)
		stop := make(chan struct{})
		timedOut := make(chan struct{})
		signalled := make(chan struct{})
		go func() {
			timer := time.NewTimer(timeout)
			defer timer.Stop()
			select {
			case <-stop:
				return
			case <-ctx.Done():
			case <-o.Signals:
				close(signalled)
			case <-timer.C:
				close(timedOut)
			}
			sigs <- syscall.SIGTERM
			select {
			case <-stop:
			case <-time.After(2 * time.Second):
				sigs <- syscall.SIGKILL
			}
		}()
		start := time.Now()
		ch := log.command(c, *t.Worktree, w.childEnv(o.Environ, t, *t.Worktree), hold, sigs)
		var done func() []string
		var err error
		if plan != nil {
			ch, done, err = w.sandboxed(ctx, plan, t.ID, *t.Worktree, ch)
		}
		code := 127
		if err == nil {
			code, err = ch.run()
		} else {
			err = fmt.Errorf("%w: %v", ErrCommandNotStarted, err)
		}
		if done != nil {
			if put := done(); len(put) > 0 {
				log.Printf("git nudge: the validation command changed %s, which git reads as configuration or as the way to the repository; put back as it was\n", strings.Join(put, ", "))
			}
		}
		close(stop)
		res.DurationMS = time.Since(start).Milliseconds()
		select {
		case <-timedOut:
			res.TimedOut = true
			res.Error = fmt.Sprintf("stopped after %s (git config nudge.validateTimeout)", timeout)
			log.Printf("git nudge: %s\n", res.Error)
		default:
		}
		if err != nil {
			res.Error = err.Error()
			log.Printf("git nudge: %v\n", err)
		} else {
			res.ExitCode = &code
			if code != 0 && !res.TimedOut {
				log.Printf("git nudge: exit status %d\n", code)
			}
		}
		select {
		case <-signalled:
			interrupted = true
		default:
		}
		results = append(results, res)
		if ctx.Err() != nil || interrupted {
			return results, fmt.Errorf("interrupted while %q ran", c)
		}
	}
	return results, nil
}

// putBackAfterValidation checks that the validation commands left t's
// worktree as the result has it (ignored files aside). What they changed
// is kept in a commit (refs/nudgethis/validation/<id>, parent: the
// result) and listed in the record, and the worktree is put back to the
// result, so that a later capture does not take it for the task's work.
func (w workspace) putBackAfterValidation(ctx context.Context, t *nudge.Task) error {
	tree, _, err := w.CaptureWorktree(ctx, t)
	if err != nil {
		return err
	}
	resTree, err := w.Repo.TreeOf(ctx, *t.Result)
	if err != nil {
		return err
	}
	if tree == resTree {
		return nil
	}
	changes, err := w.Repo.DiffTrees(ctx, resTree, tree)
	if err != nil {
		return err
	}
	commit, err := w.pinLeftover(ctx, t, tree)
	if err != nil {
		return err
	}
	v := t.Validation
	v.LeftoverCommit = commit
	for _, c := range changes {
		v.Leftover = append(v.Leftover, c.Path)
	}
	return w.resetWorktree(ctx, t, changes)
}

// pinLeftover records tree (the worktree as validation left it) as a
// commit on t's result, pinned by refs/nudgethis/validation/<id>, so that
// putting the worktree back loses nothing.
func (w workspace) pinLeftover(ctx context.Context, t *nudge.Task, tree string) (string, error) {
	r := w.Repo
	commit, err := r.CommitTree(ctx, git.CommitRequest{
		Tree: tree, Parents: []string{*t.Result}, Message: "nudge validation leftovers " + t.ID,
		Author: nudge.Identity, Committer: nudge.Identity,
	})
	if err != nil {
		return "", err
	}
	ref := refs.Validations + t.ID
	old, ok, err := r.ReadRef(ctx, ref)
	if err != nil {
		return "", err
	}
	if !ok {
		old = r.ZeroID()
	}
	return commit, r.SetRef(ctx, git.SetRefRequest{Name: ref, New: commit, Old: old})
}

// resetWorktree puts the paths validation changed (changes: result ->
// worktree) back to the result's version: files it added are removed,
// the others written from the result. Writes go through an os.Root at the
// worktree, so a symlink planted there cannot lead them outside.
func (w workspace) resetWorktree(ctx context.Context, t *nudge.Task, changes []git.TreeChange) error {
	var back []string
	var added []string
	for _, c := range changes {
		if c.Status == "A" {
			added = append(added, c.Path)
		} else {
			back = append(back, c.Path)
		}
	}
	root, err := os.OpenRoot(*t.Worktree)
	if err != nil {
		return err
	}
	defer root.Close()
	var errs []error
	for _, p := range added {
		if err := root.RemoveAll(p); err != nil {
			errs = append(errs, err)
		}
	}
	if len(back) > 0 {
		entries, err := w.Repo.TreeEntries(ctx, *t.Result, back)
		if err != nil {
			return err
		}
		stage, err := w.NewStage()
		if err != nil {
			return err
		}
		defer w.RemoveStage(filepath.Base(stage))
		if err := w.Repo.CheckoutTo(ctx, stage, entries); err != nil {
			return err
		}
		for _, e := range entries {
			if err := putBack(root, stage, e.Path); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", nudge.QuotePath(e.Path), err))
			}
		}
	}
	return errors.Join(errs...)
}

// putBack copies stage/p over p in root (a file by temp file and rename,
// a symlink as a symlink).
func putBack(root *os.Root, stage, p string) error {
	src := filepath.Join(stage, filepath.FromSlash(p))
	st, err := os.Lstat(src)
	if err != nil {
		return err
	}
	if d := filepath.Dir(filepath.FromSlash(p)); d != "." {
		if fi, err := root.Lstat(d); err == nil && !fi.IsDir() {
			if err := root.Remove(d); err != nil {
				return err
			}
		}
		if err := root.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if fi, err := root.Lstat(p); err == nil && fi.IsDir() {
		if err := root.RemoveAll(p); err != nil {
			return err
		}
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		target, err := os.Readlink(src)
		if err != nil {
			return err
		}
		_ = root.Remove(p)
		return root.Symlink(target, p)
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	tmp := p + ".nudge-validate.tmp"
	_ = root.Remove(tmp)
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, st.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := root.Chmod(tmp, st.Mode().Perm()); err != nil {
		return err
	}
	return root.Rename(tmp, p)
}

// Validate runs the nudge.validate commands on task id's result, in its
// worktree, and records the outcome (git nudge validate ID, and after
// git nudge capture). The worktree must hold exactly the result.
func Validate(ctx context.Context, ws *nudge.Workspace, id string, o ValidateOptions) (*nudge.Task, error) {
	w := workspace{ws}
	l, err := w.Lock(ctx, "git-nudge validate")
	if err != nil {
		return nil, err
	}
	defer func() { l.Release() }()
	t, err := w.loadIdle(id, "cannot validate "+id)
	if err != nil {
		return nil, err
	}
	refuse := func(reason, next string) error {
		return &nudge.RefusedError{What: "cannot validate " + id, Reasons: []string{reason}, Next: next}
	}
	switch {
	case t.State == nudge.StatePending:
		return nil, refuse(nudge.PendingAdvice(id), "")
	case t.State == nudge.StateReady || t.State == nudge.StateUndone:
	case t.State == nudge.StateFailed && t.Result != nil:
	default:
		return nil, refuse(fmt.Sprintf("it is %s; only a captured result that is not applied is validated", nudge.StateLabel(t.State)),
			nudge.ResultAdvice(t.ID, t.Worktree != nil))
	}
	if t.Result == nil {
		return nil, refuse("it has no result yet", nudge.ResultAdvice(t.ID, t.Worktree != nil))
	}
	if o.Skip {
		w.skipValidation(ctx, t, "--no-validate")
		return t, w.Save(t)
	}
	cmds, _, err := w.validateCommands(ctx)
	if err != nil {
		t.Validation = &nudge.Validation{State: nudge.ValidationFailed, Commands: []nudge.ValidationCommand{}, Result: *t.Result, Reason: err.Error()}
		return t, w.Save(t)
	}
	if len(cmds) == 0 {
		return nil, refuse("no validation command is configured",
			"Add one with git config --add nudge.validate 'CMD' (for example 'go test ./...'), then run git nudge validate "+id+" again.")
	}
	if !w.HasWorktree(t) && t.WorktreeReleased {
		return nil, refuse("its worktree was given back once its result was recorded, and validation runs in it",
			fmt.Sprintf("git nudge start %s brings a worktree back at the result; then git nudge validate %s.", id, id))
	}
	if !w.HasWorktree(t) {
		return nil, refuse("it has no worktree to run the validation commands in",
			fmt.Sprintf("Validation runs in the task's worktree; a task captured without one (capture --from) is not validated. git nudge apply --unvalidated %s applies it anyway.", id))
	}
	tree, _, err := w.CaptureWorktree(ctx, t)
	if err != nil {
		return nil, err
	}
	resTree, err := w.Repo.TreeOf(ctx, *t.Result)
	if err != nil {
		return nil, err
	}
	if tree != resTree {
		return nil, refuse("its worktree no longer holds its result (it was changed after the last capture, or the result came from capture --from)",
			fmt.Sprintf("git nudge capture %s records the worktree as the result and validates it.", id))
	}
	hold, err := w.HoldTask(ctx, t.ID)
	if err != nil {
		return nil, err
	}
	defer hold.Release()
	l, err = w.validateHeld(ctx, t, l, hold.File(), o)
	return t, err
}
