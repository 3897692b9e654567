package gitstore

// This file holds writing a commit object in process, byte for byte as
// git commit-tree writes it.

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// CommitRequest describes a commit object to create with commit-tree.
type CommitRequest struct {
	Tree    string
	Parents []string
	Message string
	// Author and Committer, when set, override git config for this commit.
	Author    Identity
	Committer Identity
}

// Identity is an author or committer. A zero Identity means "the user's own,
// from git config" (git fails clearly when none is set).
type Identity struct {
	Name  string
	Email string
}

// WriteCommitHere writes the commit object git commit-tree would write
// for req, here and without a git process, when that is plainly the same
// object: both identities given and clean, full object ids, no NUL in the
// message, no date or encoding that git would take from the environment
// or config, and loose objects that this process may write (fastOK). It
// is the one commit writer: the porcelain's CommitTree uses it. ok is
// false when git must write it.
func (r *Store) WriteCommitHere(req CommitRequest) (id string, ok bool, err error) {
	if !r.ValidID(req.Tree) || !cleanIdent(req.Author) || !cleanIdent(req.Committer) || strings.IndexByte(req.Message, 0) >= 0 {
		return "", false, nil
	}
	for _, p := range req.Parents {
		if !r.ValidID(p) {
			return "", false, nil
		}
	}
	if os.Getenv("GIT_TEST_DATE_NOW") != "" {
		return "", false, nil
	}
	now := time.Now() // one clock reading for both, as git does
	authorDate, ok1 := gitDate(os.Getenv("GIT_AUTHOR_DATE"), now)
	committerDate, ok2 := gitDate(os.Getenv("GIT_COMMITTER_DATE"), now)
	if !ok1 || !ok2 {
		return "", false, nil
	}
	if !r.InProcess() || r.ConfigMayMention("encoding") {
		return "", false, nil
	}
	var b bytes.Buffer
	b.WriteString("tree " + req.Tree + "\n")
	for _, p := range req.Parents {
		b.WriteString("parent " + p + "\n")
	}
	fmt.Fprintf(&b, "author %s <%s> %s\n", req.Author.Name, req.Author.Email, authorDate)
	fmt.Fprintf(&b, "committer %s <%s> %s\n\n", req.Committer.Name, req.Committer.Email, committerDate)
	b.WriteString(req.Message)
	if id, err = r.WriteObject("commit", b.Bytes()); err != nil {
		return "", true, err
	}
	return id, true, nil
}

// cleanIdent reports whether git would record the identity as given: a
// name and email with nothing git strips or refuses.
func cleanIdent(id Identity) bool {
	crud := func(c byte) bool {
		return c <= 32 || strings.IndexByte(".,:;<>\"\\'", c) >= 0
	}
	for _, s := range []string{id.Name, id.Email} {
		if s == "" || crud(s[0]) || crud(s[len(s)-1]) || strings.ContainsAny(s, "<>\n\x00") {
			return false
		}
	}
	return true
}

// gitDate is the date git records for a GIT_AUTHOR_DATE or
// GIT_COMMITTER_DATE value ("<seconds> <+hhmm>"): now in the local zone
// when empty; the forms "<seconds> <+hhmm>", "@<seconds> <+hhmm>" and RFC
// 3339 ("2026-01-02T03:04:05Z"); ok is false for any other form, which
// git parses itself.
func gitDate(v string, now time.Time) (string, bool) {
	zone := func(off int) string {
		sign := byte('+')
		if off < 0 {
			sign, off = '-', -off
		}
		return fmt.Sprintf("%c%02d%02d", sign, off/3600, off%3600/60)
	}
	if v == "" {
		_, off := now.Zone()
		return fmt.Sprintf("%d %s", now.Unix(), zone(off)), true
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil && t.Nanosecond() == 0 && t.Unix() > 0 {
		_, off := t.Zone()
		return fmt.Sprintf("%d %s", t.Unix(), zone(off)), true
	}
	secs, tz, ok := strings.Cut(strings.TrimPrefix(v, "@"), " ")
	if !ok || len(tz) != 5 || (tz[0] != '+' && tz[0] != '-') {
		return "", false
	}
	n, err := strconv.ParseInt(secs, 10, 64)
	if err != nil || n <= 0 || strconv.FormatInt(n, 10) != secs {
		return "", false
	}
	for i := 1; i < 5; i++ {
		if tz[i] < '0' || tz[i] > '9' {
			return "", false
		}
	}
	return secs + " " + tz, true
}
