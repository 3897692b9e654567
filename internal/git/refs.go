package git

// This file holds refs and HEAD: listing and reading refs,
// compare-and-swap updates one at a time or in one transaction (one
// conflict error), and the one way to read HEAD.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/nudgethis/git-nudge/internal/gitexec"
	"github.com/nudgethis/git-nudge/internal/gitstore"
)

// ErrRefConflict is returned when a compare-and-swap ref update finds the
// ref not at the expected old value (or, for a create, already present).
var ErrRefConflict = gitstore.ErrRefConflict

// SetRefRequest is one compare-and-swap ref update.
type SetRefRequest struct {
	Name string // full ref name
	New  string // new object id
	Old  string // expected current id; ZeroID() means "must not exist"; "" means no check
	// Reason is recorded in the reflog when the ref has one.
	Reason string
}

// SetRef updates one ref with compare-and-swap semantics. A failed
// comparison is a *RefLockError naming the ref (errors.Is(err,
// ErrRefConflict) holds), as for UpdateRefs.
func (r *Repo) SetRef(ctx context.Context, req SetRefRequest) error {
	r.refsAboutToChange(req.Name)
	args := []string{"update-ref"}
	if req.Reason != "" {
		args = append(args, "-m", req.Reason)
	}
	args = append(args, "--", req.Name, req.New)
	if req.Old != "" {
		args = append(args, req.Old)
	}
	_, err := r.git(ctx, args...)
	if err != nil {
		var ge *Error
		if errors.As(err, &ge) && gitexec.RefLockFailure(ge.Stderr) {
			return &RefLockError{Ref: req.Name, Err: err}
		}
	}
	return err
}

// DeleteRef deletes a ref, only if it still points at old (when old != "").
func (r *Repo) DeleteRef(ctx context.Context, name, old string) error {
	r.refsAboutToChange(name)
	args := []string{"update-ref", "-d", "--", name}
	if old != "" {
		args = append(args, old)
	}
	_, err := r.git(ctx, args...)
	return err
}

// Ref is one ref and the object it points at.
type Ref struct {
	Name   string
	Object string
}

// ListRefs lists refs under prefix (for example "refs/nudgethis/snapshots/").
func (r *Repo) ListRefs(ctx context.Context, prefix string) ([]Ref, error) {
	out, err := r.git(ctx, "for-each-ref", "--format=%(objectname) %(refname)", "--", prefix)
	if err != nil {
		return nil, err
	}
	var refs []Ref
	for _, l := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		obj, name, ok := strings.Cut(l, " ")
		if ok {
			refs = append(refs, Ref{Name: name, Object: obj})
		}
	}
	return refs, nil
}

// ReadRef reports whether a full ref name exists, and where it points.
func (r *Repo) ReadRef(ctx context.Context, name string) (id string, ok bool, err error) {
	out, err := r.line(ctx, "rev-parse", "-q", "--verify", "--end-of-options", name)
	if err != nil {
		if ExitCode(err) == 1 {
			return "", false, nil
		}
		return "", false, err
	}
	return out, true, nil
}

// HeadTree reads where HEAD points and its tree: the one way HEAD is read
// (Head is HeadTree without the tree; Status reports HEAD as its own git
// call saw it). Where HEAD, its branch and its commit are read in this
// process it costs no git call (HeadTreeFast); otherwise, on a born branch
// or a detached HEAD it costs one; an unborn branch costs two more. tree
// is "" when HEAD has no commit.
func (r *Repo) HeadTree(ctx context.Context) (h Head, tree string, err error) {
	if h, tree, ok := r.HeadTreeFast(); ok {
		return h, tree, nil
	}
	out, err := r.git(ctx, "rev-parse", "HEAD^{commit}", "HEAD^{tree}", "--symbolic-full-name", "HEAD", "--")
	if err == nil {
		lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
		if len(lines) >= 3 {
			h.Commit, tree = lines[0], lines[1]
			if strings.HasPrefix(lines[2], "refs/") {
				h.Branch = lines[2]
			}
			return h, tree, nil
		}
	}
	// Unborn branch (or something stranger): ask the slow way, which
	// tells the two apart.
	h, err = r.headSlow(ctx)
	if err != nil {
		return h, "", err
	}
	if h.Commit != "" {
		tree, err = r.TreeOf(ctx, h.Commit)
	}
	return h, tree, err
}

// RefUpdate is one compare-and-swap update inside a transaction.
type RefUpdate struct {
	Name string // full ref name, or "HEAD"
	New  string
	Old  string // expected current id; ZeroID() means "must not exist"
	// NoDeref updates the symbolic ref itself (a detached HEAD) instead of
	// the ref it points at.
	NoDeref bool
}

// RefLockError is the one error of a ref that could not be moved: the ref
// was not where the caller expected (or already existed), or git's lock on
// it is held. SetRef and UpdateRefs return it with Ref and git's own Err;
// ResetHard, which checks before it starts, with the lock file it found
// (Lock). It satisfies errors.Is(err, ErrRefConflict).
type RefLockError struct {
	Ref  string // the ref (empty when git did not name it)
	Lock string // the lock file found before starting, else ""
	Err  error  // git's own error, nil when Lock was found first
}

func (e *RefLockError) Error() string {
	if e.Lock != "" {
		return fmt.Sprintf("%s exists: another git command is moving HEAD or its branch, or one was killed while it did; if no git command is running in this repository, remove %s, then try again", e.Lock, e.Lock)
	}
	return fmt.Sprintf("%s: %v", e.Ref, e.Err)
}

// Unwrap lets errors.Is find both ErrRefConflict and git's own error.
func (e *RefLockError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrRefConflict}
	}
	return []error{ErrRefConflict, e.Err}
}

var lockedRefRe = regexp.MustCompile(`cannot lock ref '([^']+)'`)

// UpdateRefs applies every update in one transaction: all of them happen or
// none does. A failed comparison is a *RefLockError naming the ref.
func (r *Repo) UpdateRefs(ctx context.Context, reason string, ups ...RefUpdate) error {
	names := make([]string, len(ups))
	for i, u := range ups {
		names[i] = u.Name
	}
	r.refsAboutToChange(names...)
	var in bytes.Buffer
	for _, u := range ups {
		if u.NoDeref {
			in.WriteString("option no-deref\n")
		}
		fmt.Fprintf(&in, "update %s %s %s\n", u.Name, u.New, u.Old)
	}
	args := []string{"update-ref"}
	if reason != "" {
		args = append(args, "-m", reason)
	}
	args = append(args, "--stdin")
	_, err := r.run(ctx, cmd{Args: args, Stdin: &in})
	if err != nil {
		var ge *Error
		if errors.As(err, &ge) && gitexec.RefLockFailure(ge.Stderr) {
			ref := ""
			if m := lockedRefRe.FindStringSubmatch(ge.Stderr); m != nil {
				ref = m[1]
			}
			return &RefLockError{Ref: ref, Err: err}
		}
	}
	return err
}

// RefsAndHead reads the refs under prefixes and HEAD ("ref: <branch>" or a
// commit id, "" when unreadable as either), from the files when it can,
// else with git.
func (r *Repo) RefsAndHead(ctx context.Context, prefixes ...string) (map[string]string, string, error) {
	if m, ok := r.RefsFast(prefixes); ok {
		if h, ok := r.HeadFast(); ok {
			return m, h, nil
		}
	}
	m, err := r.RefsUnder(ctx, prefixes...)
	if err != nil {
		return nil, "", err
	}
	h, err := r.HeadTargetKnowing(ctx, m)
	return m, h, err
}

// RefsNamedAndHead is RefsAndHead for the refs named alone (full names,
// each under one of prefixes; any other name is left out, as RefsAndHead
// would leave it): a ref named and absent is not in the map. Each ref is
// read from its file, else from packed-refs, so the cost is that of the
// names, not of every ref under the prefixes; git answers when the files
// cannot.
func (r *Repo) RefsNamedAndHead(ctx context.Context, names []string, prefixes ...string) (map[string]string, string, error) {
	var want []string
	for _, n := range names {
		if refUnder(n, prefixes) {
			want = append(want, n)
		}
	}
	if m, ok := r.refsNamedFast(want); ok {
		if h, ok := r.HeadFast(); ok {
			return m, h, nil
		}
	}
	m := map[string]string{}
	if len(want) > 0 {
		all, err := r.RefsUnder(ctx, want...)
		if err != nil {
			return nil, "", err
		}
		for _, n := range want {
			if v, ok := all[n]; ok {
				m[n] = v
			}
		}
	}
	h, err := r.HeadTargetKnowing(ctx, m)
	return m, h, err
}

// refUnder reports whether name is a ref name git would take under one
// of prefixes.
func refUnder(name string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(name, p) && len(name) > len(p) {
			for _, c := range strings.Split(name, "/") {
				if !gitstore.GoodRefComponent(c) || strings.HasSuffix(c, ".lock") {
					return false
				}
			}
			return true
		}
	}
	return false
}

// refsNamedFast reads names from the ref files; false when git should.
func (r *Repo) refsNamedFast(names []string) (map[string]string, bool) {
	if !r.InProcess() {
		return nil, false
	}
	m := make(map[string]string, len(names))
	for _, n := range names {
		v, ok, handled := r.ReadOneRef(n)
		if !handled {
			return nil, false
		}
		if ok {
			m[n] = v
		}
	}
	return m, true
}

// ReadRefFast is ReadRef answered from the ref files when it can.
func (r *Repo) ReadRefFast(ctx context.Context, name string) (string, bool, error) {
	if r.InProcess() && strings.HasPrefix(name, "refs/") {
		if v, ok, handled := r.ReadOneRef(name); handled {
			return v, ok, nil
		}
	}
	return r.ReadRef(ctx, name)
}

// SetRefFast is SetRef (compare-and-swap; old ZeroID: must not exist)
// done in this process with git's lock protocol where it can
// (gitstore's SetRefHere), else by git.
func (r *Repo) SetRefFast(ctx context.Context, name, newID, old string) error {
	r.refsAboutToChange(name)
	if done, err := r.SetRefHere(name, newID, old); done {
		return err
	}
	return r.SetRef(ctx, SetRefRequest{Name: name, New: newID, Old: old})
}

// RefsUnder lists refs under every prefix in one git process.
func (r *Repo) RefsUnder(ctx context.Context, prefixes ...string) (map[string]string, error) {
	args := append([]string{"for-each-ref", "--format=%(objectname) %(refname)", "--"}, prefixes...)
	out, err := r.git(ctx, args...)
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

// HeadTarget is HEAD as one string: "ref: <branch>" when it names a
// branch, the commit id when detached.
func (r *Repo) HeadTarget(ctx context.Context) (string, error) {
	h, err := r.Head(ctx)
	if err != nil {
		return "", err
	}
	if h.Branch != "" {
		return "ref: " + h.Branch, nil
	}
	return h.Commit, nil
}

// HeadTargetKnowing is HeadTarget with the branches already read (refs by
// full name): a HEAD on a branch costs one git process.
func (r *Repo) HeadTargetKnowing(ctx context.Context, refs map[string]string) (string, error) {
	br, err := r.headBranch(ctx)
	if err != nil {
		return "", err
	}
	if br != "" {
		return "ref: " + br, nil
	}
	return r.headCommit(ctx)
}

// SetHeadTarget points HEAD at target ("ref: <branch>" or a commit id),
// without touching the index or the work tree.
func (r *Repo) SetHeadTarget(ctx context.Context, target string) error {
	r.refsAboutToChange("HEAD")
	if b, ok := strings.CutPrefix(target, "ref: "); ok {
		_, err := r.git(ctx, "symbolic-ref", "HEAD", b)
		return err
	}
	if !r.ValidID(target) {
		return fmt.Errorf("not a commit id for HEAD: %q", target)
	}
	_, err := r.git(ctx, "update-ref", "--no-deref", "HEAD", target)
	return err
}

// RefsAt lists the refs under prefix (for example
// "refs/autodev/checkpoints/") that point at object.
func (r *Repo) RefsAt(ctx context.Context, prefix, object string) ([]string, error) {
	out, err := r.git(ctx, "for-each-ref", "--points-at="+object, "--format=%(refname)", "--", prefix)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, l := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		if l != "" {
			names = append(names, l)
		}
	}
	return names, nil
}

// headSlow is HeadTree's way of reading HEAD when it names an unborn
// branch: symbolic-ref tells the branch, rev-parse that it has no commit.
func (r *Repo) headSlow(ctx context.Context) (Head, error) {
	var h Head
	var err error
	if h.Branch, err = r.headBranch(ctx); err != nil {
		return h, err
	}
	h.Commit, err = r.headCommit(ctx)
	return h, err
}

// headBranch is the branch HEAD names, "" when it is detached.
func (r *Repo) headBranch(ctx context.Context) (string, error) {
	br, err := r.line(ctx, "symbolic-ref", "-q", "HEAD")
	if err != nil && ExitCode(err) != 1 {
		return "", err
	}
	return br, nil
}

// headCommit is the commit HEAD is at, "" on an unborn branch.
func (r *Repo) headCommit(ctx context.Context) (string, error) {
	c, err := r.line(ctx, "rev-parse", "-q", "--verify", "HEAD^{commit}")
	if err != nil && ExitCode(err) != 1 {
		return "", err
	}
	return c, nil
}

// ResolveCommit resolves rev to a full commit id; ok is false when it names
// no commit.
func (r *Repo) ResolveCommit(ctx context.Context, rev string) (id string, ok bool, err error) {
	out, err := r.line(ctx, "rev-parse", "-q", "--verify", "--end-of-options", rev+"^{commit}")
	if err != nil {
		if ExitCode(err) == 1 || ExitCode(err) == 128 {
			return "", false, nil
		}
		return "", false, err
	}
	return out, true, nil
}

// Head reads HEAD: the branch it names (if any) and the commit (if any).
// It is HeadTree without the tree.
func (r *Repo) Head(ctx context.Context) (Head, error) {
	if h, ok := r.HeadFromFiles(); ok {
		// rev-parse HEAD^{commit} would peel a tag: only a commit is
		// taken as it is.
		if info, ok := r.ObjectInfoHere(h.Commit); ok && info.Type == "commit" {
			return h, nil
		}
	}
	h, _, err := r.HeadTree(ctx)
	return h, err
}
