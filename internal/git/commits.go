package git

// This file holds commits: writing them, their messages, ancestry, and searches of history.

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/nudgethis/git-nudge/internal/gitexec"
	"github.com/nudgethis/git-nudge/internal/gitstore"
)

// CommitInfo is one commit found by FindCommits.
type CommitInfo struct {
	ID      string
	Parents []string  // parent ids, first parent first
	Time    time.Time // committer date
	Message string    // full message, subject first
}

// Subject is the first line of the message.
func (c CommitInfo) Subject() string {
	s, _, _ := strings.Cut(c.Message, "\n")
	return s
}

// CommitQuery selects commits for FindCommits.
type CommitQuery struct {
	Revs     []string // starting points ("HEAD", commit ids)
	Globs    []string // ref globs ("refs/autodev/checkpoints/*")
	Branches []string // branch globs ("autodev/pre-restore-*")
	Grep     string   // regular expression the message must match ("" for all)
	Limit    int      // 0 for no limit
	NoWalk   bool     // only the starting points themselves, not their history
}

// FindCommits lists the commits reachable from the query's starting
// points, parents before children (with NoWalk: the starting points, in
// the order given). No starting point means no commits.
func (r *Repo) FindCommits(ctx context.Context, q CommitQuery) ([]CommitInfo, error) {
	args := []string{"log", "-z", "--format=%H%n%P%n%cI%n%B"}
	if !q.NoWalk {
		args = append(args, "--reverse", "--topo-order")
	}
	if q.Grep != "" {
		args = append(args, "--extended-regexp", "--grep="+q.Grep)
	}
	if q.NoWalk {
		args = append(args, "--no-walk")
	}
	if q.Limit > 0 {
		args = append(args, fmt.Sprintf("--max-count=%d", q.Limit))
	}
	for _, g := range q.Globs {
		args = append(args, "--glob="+g)
	}
	for _, b := range q.Branches {
		args = append(args, "--branches="+b)
	}
	if len(q.Revs)+len(q.Globs)+len(q.Branches) == 0 {
		return nil, nil
	}
	args = append(args, q.Revs...)
	args = append(args, "--")
	out, err := r.git(ctx, args...)
	if err != nil {
		return nil, err
	}
	var list []CommitInfo
	for _, rec := range gitexec.SplitZ(out) {
		id, rest, _ := strings.Cut(rec, "\n")
		parents, rest, _ := strings.Cut(rest, "\n")
		date, msg, _ := strings.Cut(rest, "\n")
		t, _ := time.Parse(time.RFC3339, date)
		list = append(list, CommitInfo{ID: id, Parents: strings.Fields(parents), Time: t, Message: strings.TrimRight(msg, "\n")})
	}
	return list, nil
}

// CommitRequest describes a commit object to create with commit-tree
// (gitstore.CommitRequest).
type CommitRequest = gitstore.CommitRequest

// Identity is an author or committer (gitstore.Identity). A zero
// Identity means "the user's own, from git config".
type Identity = gitstore.Identity

// CommitTree writes a commit object (never signed, no hook) and returns its id.
func (r *Repo) CommitTree(ctx context.Context, req CommitRequest) (string, error) {
	if id, ok, err := r.WriteCommitHere(req); ok || err != nil {
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
	out, err := r.run(ctx, cmd{Args: args, Env: env, Stdin: strings.NewReader(req.Message)})
	return strings.TrimSpace(string(out)), err
}

// CommitMessage returns the full message of a commit.
func (r *Repo) CommitMessage(ctx context.Context, commit string) (string, error) {
	// log.showSignature=true would put gpg's report on stdout: turn it off.
	out, err := r.git(ctx, "log", "-1", "--no-show-signature", "--format=%B", "--end-of-options", commit, "--")
	return strings.TrimRight(string(out), "\n"), err
}

// ReadCommit returns a commit's parents and message: read here when it
// can be (ReadObjectHere), else by git.
func (r *Repo) ReadCommit(ctx context.Context, id string) (parents []string, msg string, err error) {
	if r.InProcess() {
		typ, data, ok := r.ReadObjectHere(id)
		if ok && typ == "commit" {
			head, body, _ := bytes.Cut(data, []byte("\n\n"))
			for _, l := range strings.Split(string(head), "\n") {
				if p, ok := strings.CutPrefix(l, "parent "); ok {
					parents = append(parents, p)
				}
			}
			return parents, strings.TrimRight(string(body), "\n"), nil
		}
	}
	out, err := r.git(ctx, "log", "-1", "--no-show-signature", "--format=%P%x00%B", "--end-of-options", id, "--")
	if err != nil {
		return nil, "", err
	}
	ps, m, _ := strings.Cut(string(out), "\x00")
	return strings.Fields(ps), strings.TrimRight(m, "\n"), nil
}

// ChainCommit is one commit of a first-parent chain: its id, its tree, its
// parents and its message.
type ChainCommit struct {
	ID, Tree string
	Parents  []string
	Message  string
}

// ReadChain lists the first-parent chain from ref, newest first, in one
// git process. A missing ref is an empty chain.
func (r *Repo) ReadChain(ctx context.Context, ref string) ([]ChainCommit, error) {
	if _, ok, err := r.ReadRef(ctx, ref); err != nil || !ok {
		return nil, err
	}
	return r.ReadChains(ctx, []string{ref})
}

// ReadChains lists, in one git process, the first-parent chains from each
// of tips (refs or commits, which must exist), newest commit first; a
// commit two chains share is listed once.
func (r *Repo) ReadChains(ctx context.Context, tips []string) ([]ChainCommit, error) {
	if len(tips) == 0 {
		return nil, nil
	}
	args := append([]string{"log", "--first-parent", "--no-show-signature", "--format=%H %T %P%x01%B%x02", "--end-of-options"}, tips...)
	out, err := r.git(ctx, append(args, "--")...)
	if err != nil {
		return nil, err
	}
	var cs []ChainCommit
	for _, rec := range strings.Split(string(out), "\x02") {
		rec = strings.TrimLeft(rec, "\n")
		if rec == "" {
			continue
		}
		head, msg, ok := strings.Cut(rec, "\x01")
		f := strings.Fields(head)
		if !ok || len(f) < 2 {
			return nil, fmt.Errorf("git log of %s: unexpected record %q", strings.Join(tips, " "), head)
		}
		cs = append(cs, ChainCommit{ID: f[0], Tree: f[1], Parents: f[2:], Message: strings.TrimRight(msg, "\n")})
	}
	return cs, nil
}

// IsAncestor reports whether a is an ancestor of (or equal to) b.
func (r *Repo) IsAncestor(ctx context.Context, a, b string) (bool, error) {
	_, err := r.git(ctx, "merge-base", "--is-ancestor", a, b)
	if err != nil {
		if ExitCode(err) == 1 {
			return false, nil
		}
		return false, err
	}
	return true, nil
}
