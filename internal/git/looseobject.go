package git

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// This file writes objects in this process, the way git writes them by
// default: a loose object (zlib) in a temporary file of its fan-out folder,
// made read-only and linked (else renamed) to its name, with no fsync. When
// it may is decided in one place, fastOK: otherwise git writes them.

// looseObjectDir is the object folder where this process may write loose
// objects itself, or "" when git must write them (see fastOK).
func (r *Repo) looseObjectDir() string {
	if !r.fastOK() {
		return ""
	}
	return filepath.Join(r.CommonDir, "objects")
}

// writeObject stores data as a loose object of type typ and returns its
// id. The caller has checked fastOK.
func (r *Repo) writeObject(typ string, data []byte) (string, error) {
	id := r.ObjectID(typ, data)
	return id, writeLooseObject(filepath.Join(r.CommonDir, "objects"), typ, id, data)
}

// writeLooseObject stores an object of the given type and body under id
// (computed by the caller from the same bytes) in the object folder dir,
// unless a loose object of that name is there already. A packed copy is
// not looked for: a second, loose copy is harmless and gc drops it. It is
// the one loose-object writer, with git's default permissions (the fan-out
// folder 0777 and the file 0444, less the umask) and git's default of no
// fsync for loose objects; fastOK leaves a shared repository, or a config
// that mentions fsync, to git.
func writeLooseObject(dir, typ, id string, body []byte) error {
	if len(id) < 4 {
		return fmt.Errorf("writing object: bad id %q", id)
	}
	fan := filepath.Join(dir, id[:2])
	final := filepath.Join(fan, id[2:])
	if _, err := os.Lstat(final); err == nil {
		return nil
	}
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestSpeed)
	zw.Write(strconv.AppendInt([]byte(typ+" "), int64(len(body)), 10))
	zw.Write([]byte{0})
	zw.Write(body)
	if err := zw.Close(); err != nil {
		return err
	}
	f, err := createObjectTemp(fan)
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.Mkdir(fan, 0o777); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("writing object %s: %w", id, err)
		}
		f, err = createObjectTemp(fan)
	}
	if err != nil {
		return fmt.Errorf("writing object %s: %w", id, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if _, err := f.Write(z.Bytes()); err != nil {
		f.Close()
		return fmt.Errorf("writing object %s: %w", id, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing object %s: %w", id, err)
	}
	// A link never replaces an object already there (another writer's).
	if err := os.Link(tmp, final); err != nil && !errors.Is(err, fs.ErrExist) {
		if err := os.Rename(tmp, final); err != nil {
			return fmt.Errorf("writing object %s: %w", id, err)
		}
	}
	return nil
}

// createObjectTemp creates a new temporary file in dir, read-only (0444
// less the umask, as git's temporary objects) but open for writing.
func createObjectTemp(dir string) (*os.File, error) {
	for try := 0; ; try++ {
		f, err := os.OpenFile(filepath.Join(dir, "tmp_obj_"+strconv.FormatUint(rand.Uint64(), 36)), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o444)
		if errors.Is(err, fs.ErrExist) && try < 100 {
			continue
		}
		return f, err
	}
}

// writeCommit writes the commit object git commit-tree would write for
// req, here and without a git process, when that is plainly the same
// object: both identities given and clean, full object ids, no NUL in the
// message, no date or encoding that git would take from the environment
// or config, and loose objects that this process may write (fastOK). It
// is the one commit writer: CommitTree uses it. ok is false when git must write it.
func (r *Repo) writeCommit(req CommitRequest) (id string, ok bool, err error) {
	if !r.validID(req.Tree) || !cleanIdent(req.Author) || !cleanIdent(req.Committer) || strings.IndexByte(req.Message, 0) >= 0 {
		return "", false, nil
	}
	for _, p := range req.Parents {
		if !r.validID(p) {
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
	if !r.fastOK() || r.configMentions("encoding") {
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
	if id, err = r.writeObject("commit", b.Bytes()); err != nil {
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
