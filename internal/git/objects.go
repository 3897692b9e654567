package git

import (
	"context"
	"strings"
)

// Identity is an author or committer. A zero Identity means "the user's own,
// from git config" (git fails clearly when none is set).
type Identity struct {
	Name  string
	Email string
}

// CommitRequest describes a commit object to create with commit-tree.
type CommitRequest struct {
	Tree    string
	Parents []string
	Message string
	// Author and Committer, when set, override git config for this commit.
	Author    Identity
	Committer Identity
}

// CommitTree writes a commit object (never signed, no hook) and returns its id.
func (r *Repo) CommitTree(ctx context.Context, req CommitRequest) (string, error) {
	if id, ok, err := r.writeCommit(req); ok || err != nil {
		return id, err
	}
	args := []string{"commit-tree", "--no-gpg-sign"}
	for _, p := range req.Parents {
		args = append(args, "-p", p)
	}
	args = append(args, "-F", "-", req.Tree)
	var env []string
	if req.Author.Name != "" {
		env = append(env, "GIT_AUTHOR_NAME="+req.Author.Name, "GIT_AUTHOR_EMAIL="+req.Author.Email)
	}
	if req.Committer.Name != "" {
		env = append(env, "GIT_COMMITTER_NAME="+req.Committer.Name, "GIT_COMMITTER_EMAIL="+req.Committer.Email)
	}
	out, err := r.run(ctx, cmd{args: args, env: env, stdin: strings.NewReader(req.Message)})
	return strings.TrimSpace(string(out)), err
}

// CommitMessage returns the full message of a commit.
func (r *Repo) CommitMessage(ctx context.Context, commit string) (string, error) {
	// log.showSignature=true would put gpg's report on stdout: turn it off.
	out, err := r.git(ctx, "log", "-1", "--no-show-signature", "--format=%B", "--end-of-options", commit, "--")
	return strings.TrimRight(string(out), "\n"), err
}

// Modes of tree entries, as git spells them in ls-tree and index output:
// the one place the suite names them.
const (
	ModeFile    = "100644"
	ModeExec    = "100755"
	ModeSymlink = "120000"
	ModeGitlink = "160000" // a submodule's commit
	ModeTree    = "40000"  // as in a tree object; ls-files and --index-info say 040000
)

// MaxFileSize is the largest file content the suite captures or writes
// (16 MiB): snapshot.MaxFileSize and nudge.MaxFileSize are this.
const MaxFileSize = 16 << 20

// AbsentMode reports whether mode says "no file": git's zero mode
// "000000" on the absent side of a change (diff-tree, status), or any
// other spelling of zero (a record's "0", an empty TreeEdit mode). It is
// the one test for it.
func AbsentMode(mode string) bool { return strings.Trim(mode, "0") == "" }

// Index names an index file for plumbing commands. The zero value is the
// user's own index (only commands defined to touch it may use that).
type Index struct {
	Path string // absolute path of a private index file, "" for the user's index
}

func (ix Index) env() []string {
	if ix.Path == "" {
		return nil
	}
	return []string{"GIT_INDEX_FILE=" + ix.Path}
}

// ReadTree replaces the index's entries with tree's.
func (r *Repo) ReadTree(ctx context.Context, ix Index, tree string) error {
	_, err := r.run(ctx, cmd{args: []string{"read-tree", tree}, env: ix.env()})
	return err
}

// WriteTree writes the index as a tree and returns its id.
func (r *Repo) WriteTree(ctx context.Context, ix Index) (string, error) {
	out, err := r.run(ctx, cmd{args: []string{"write-tree"}, env: ix.env()})
	return strings.TrimSpace(string(out)), err
}

// AddAll stages every change in the work tree into ix (git add -A), leaving
// out ignored files and the given pathspec exclusions (":(exclude)...").
func (r *Repo) AddAll(ctx context.Context, ix Index, exclude ...string) error {
	args := []string{"add", "-A", "--", "."}
	for _, e := range exclude {
		args = append(args, excludeGlobs(e)...)
	}
	// The excludes are glob pathspecs: an inherited pathspec mode must not
	// turn them literal (or the "." into a pattern).
	env := append(ix.env(), "GIT_LITERAL_PATHSPECS=0", "GIT_GLOB_PATHSPECS=0", "GIT_NOGLOB_PATHSPECS=0")
	_, err := r.run(ctx, cmd{args: args, env: env})
	return err
}

// excludeGlobs are the pathspecs that keep the top-level path p and
// everything under it out of git add. They are written so that no
// pathspec is the plain text p: git add compares its pathspecs, excludes
// included, with the ignored paths it meets, and fails ("The following
// paths are ignored") when p is ignored by the user's own rules, as an
// .autodev/ line in .gitignore makes it. A glob whose first character is
// escaped matches the same paths without that plain prefix.
func excludeGlobs(p string) []string {
	var b strings.Builder
	for i, c := range p {
		switch {
		case i == 0 && !strings.ContainsRune(`*?[]\`, c):
			b.WriteString("[" + string(c) + "]")
		case strings.ContainsRune(`*?[]\`, c):
			b.WriteString(`\` + string(c))
		default:
			b.WriteRune(c)
		}
	}
	g := b.String()
	return []string{":(exclude,top,glob)" + g, ":(exclude,top,glob)" + g + "/**"}
}
