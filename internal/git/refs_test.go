package git_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/testutil"
)

func TestSetRefCompareAndSwap(t *testing.T) {
	t.Parallel()
	dir := testutil.Repo(t)
	c1 := testutil.Commit(t, dir, map[string]string{"f": "1\n"}, "one")
	c2 := testutil.Commit(t, dir, map[string]string{"f": "2\n"}, "two")
	ctx := context.Background()
	r := discover(t, dir)
	const name = "refs/nudgethis/test/x"

	if err := r.SetRef(ctx, git.SetRefRequest{Name: name, New: c1, Old: r.ZeroID()}); err != nil {
		t.Fatalf("create: %v", err)
	}
	if err := r.SetRef(ctx, git.SetRefRequest{Name: name, New: c2, Old: r.ZeroID()}); !errors.Is(err, git.ErrRefConflict) {
		t.Errorf("second create-only SetRef = %v, want ErrRefConflict", err)
	}
	if err := r.SetRef(ctx, git.SetRefRequest{Name: name, New: c2, Old: c2}); !errors.Is(err, git.ErrRefConflict) {
		t.Errorf("SetRef with a wrong old value = %v, want ErrRefConflict", err)
	}
	if err := r.SetRef(ctx, git.SetRefRequest{Name: "refs/nudgethis/test/missing", New: c2, Old: c1}); !errors.Is(err, git.ErrRefConflict) {
		t.Errorf("SetRef of a missing ref expected at c1 = %v, want ErrRefConflict", err)
	}
	if id, ok, err := r.ReadRef(ctx, name); err != nil || !ok || id != c1 {
		t.Fatalf("after refused updates ReadRef = %q, %v, %v; want c1 %s", id, ok, err, c1)
	}
	if err := r.SetRef(ctx, git.SetRefRequest{Name: name, New: c2, Old: c1}); err != nil {
		t.Fatalf("SetRef with the right old value: %v", err)
	}
	if id, _, _ := r.ReadRef(ctx, name); id != c2 {
		t.Errorf("ReadRef = %s, want c2 %s", id, c2)
	}
	// Another process holding the ref's lock is a conflict too.
	testutil.WriteFile(t, dir, ".git/"+name+".lock", "")
	if err := r.SetRef(ctx, git.SetRefRequest{Name: name, New: c1, Old: c2}); !errors.Is(err, git.ErrRefConflict) {
		t.Errorf("SetRef of a locked ref = %v, want ErrRefConflict", err)
	}
	if err := os.Remove(filepath.Join(dir, ".git", name+".lock")); err != nil {
		t.Fatal(err)
	}

	// Failures that are not about the ref's value are not conflicts, and
	// carry git's message.
	for _, req := range []git.SetRefRequest{
		{Name: "refs/nudgethis/test/a..b", New: c1, Old: r.ZeroID()},                   // bad name
		{Name: name + "/under", New: c1, Old: r.ZeroID()},                              // folder/file clash
		{Name: "refs/nudgethis/test/y", New: strings.Repeat("1", 40), Old: r.ZeroID()}, // no such object
	} {
		err := r.SetRef(ctx, req)
		var ge *git.Error
		if err == nil || errors.Is(err, git.ErrRefConflict) || !errors.As(err, &ge) || ge.Stderr == "" {
			t.Errorf("SetRef(%s -> %s) = %v, want a plain *git.Error with git's message", req.Name, req.New, err)
		}
	}

	refs, err := r.ListRefs(ctx, "refs/nudgethis/test/")
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) != 1 || refs[0].Name != name || refs[0].Object != c2 {
		t.Errorf("ListRefs = %+v, want only %s at %s", refs, name, c2)
	}
	if err := r.DeleteRef(ctx, name, c1); err == nil {
		t.Error("DeleteRef with a wrong old value succeeded")
	}
	if err := r.DeleteRef(ctx, name, c2); err != nil {
		t.Errorf("DeleteRef with the right old value: %v", err)
	}
	if _, ok, err := r.ReadRef(ctx, name); ok || err != nil {
		t.Errorf("ReadRef after DeleteRef = %v, %v; want absent", ok, err)
	}
}

// TestRefConflictOneType: SetRef and UpdateRefs report a failed comparison
// with the same error type, naming the ref.
func TestRefConflictOneType(t *testing.T) {
	t.Parallel()
	dir := testutil.Repo(t)
	c1 := testutil.Commit(t, dir, map[string]string{"f": "1\n"}, "one")
	ctx := context.Background()
	r := discover(t, dir)
	const name = "refs/nudgethis/test/one"
	if err := r.SetRef(ctx, git.SetRefRequest{Name: name, New: c1, Old: r.ZeroID()}); err != nil {
		t.Fatal(err)
	}
	for what, err := range map[string]error{
		"SetRef":     r.SetRef(ctx, git.SetRefRequest{Name: name, New: c1, Old: r.ZeroID()}),
		"UpdateRefs": r.UpdateRefs(ctx, "", git.RefUpdate{Name: name, New: c1, Old: r.ZeroID()}),
	} {
		var le *git.RefLockError
		if !errors.As(err, &le) || le.Ref != name || !errors.Is(err, git.ErrRefConflict) {
			t.Errorf("%s of an existing ref as create-only = %#v, want a *git.RefLockError naming %s", what, err, name)
		}
	}
}
