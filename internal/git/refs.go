package git

import (
	"context"
	"errors"
	"strings"
)

// ErrRefConflict is returned when a compare-and-swap ref update finds the
// ref not at the expected old value (or, for a create, already present).
var ErrRefConflict = errors.New("ref changed underneath (compare-and-swap failed)")

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
		if errors.As(err, &ge) && isRefLockFailure(ge.Stderr) {
			return &RefLockError{Ref: req.Name, Err: err}
		}
	}
	return err
}

// isRefLockFailure reports whether update-ref failed because the ref was not
// where the caller expected: it exists (create-only), it is at another
// object or is missing, or another process holds its
// lock file right now (it is being changed underneath). Other failures (a
// bad name, a folder/file clash, a missing object, permissions) are real
// errors: treating them as conflicts would make an allocation loop retry
// them a thousand times and hide git's message.
func isRefLockFailure(stderr string) bool {
	return strings.Contains(stderr, "reference already exists") ||
		strings.Contains(stderr, "but expected") ||
		strings.Contains(stderr, "unable to resolve reference") ||
		(strings.Contains(stderr, ".lock'") && strings.Contains(stderr, "File exists"))
}

// DeleteRef deletes a ref, only if it still points at old (when old != "").
func (r *Repo) DeleteRef(ctx context.Context, name, old string) error {
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
