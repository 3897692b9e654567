package git

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// CreateBundle writes a git bundle at path holding ref and everything it
// reaches (git bundle create).
func (r *Repo) CreateBundle(ctx context.Context, path, ref string) error {
	_, err := r.run(ctx, cmd{Args: []string{"bundle", "create", "-q", path, ref}})
	return err
}

// ImportBundle brings the commit that ref names in the bundle at path,
// and the objects it needs, into the repository's store, and returns that
// commit. The bundle is unpacked into a private object folder first (its
// prerequisites read from the store), then imported the way a sandboxed
// command's objects are (ImportObjects), but strictly: an object git fsck
// would call broken, or one naming an object that exists nowhere, is
// refused and nothing of the bundle is kept.
func (r *Repo) ImportBundle(ctx context.Context, path, ref string) (string, error) {
	heads, err := r.run(ctx, cmd{Args: []string{"bundle", "list-heads", path}})
	if err != nil {
		return "", fmt.Errorf("reading the bundle: %w", err)
	}
	var commit string
	for _, line := range strings.Split(string(heads), "\n") {
		id, name, ok := strings.Cut(line, " ")
		if ok && name == ref {
			commit = id
		}
	}
	if commit == "" {
		return "", fmt.Errorf("the bundle holds no ref %s", ref)
	}
	tmp, err := os.MkdirTemp(r.CommonDir, "nudgethis-bundle-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	if err := os.Mkdir(filepath.Join(tmp, "pack"), 0o755); err != nil {
		return "", err
	}
	env := []string{"GIT_OBJECT_DIRECTORY=" + tmp, "GIT_ALTERNATE_OBJECT_DIRECTORIES=" + filepath.Join(r.CommonDir, "objects")}
	if _, err := r.run(ctx, cmd{Args: []string{"bundle", "unbundle", path}, Env: env}); err != nil {
		return "", fmt.Errorf("unpacking the bundle: %w", err)
	}
	typ, err := r.run(ctx, cmd{Args: []string{"cat-file", "-t", commit}, Env: env})
	if err != nil {
		return "", fmt.Errorf("the bundle's %s names %s, which it does not hold: %w", ref, commit, err)
	}
	if t := strings.TrimSpace(string(typ)); t != "commit" {
		return "", fmt.Errorf("the bundle's %s names a %s, not a commit", ref, t)
	}
	if _, err := r.importObjects(ctx, tmp, true); err != nil {
		return "", fmt.Errorf("importing the bundle's objects: %w", err)
	}
	return commit, nil
}
