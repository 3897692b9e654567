package git

// This file holds refs and HEAD: listing and reading refs,
// compare-and-swap updates one at a time or in one transaction (one
// conflict error), and the one way to read HEAD.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"
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
// process it costs no git call (headTreeFast); otherwise, on a born branch
// or a detached HEAD it costs one; an unborn branch costs two more. tree
// is "" when HEAD has no commit.
func (r *Repo) HeadTree(ctx context.Context) (h Head, tree string, err error) {
	if h, tree, ok := r.headTreeFast(); ok {
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
	_, err := r.run(ctx, cmd{args: args, stdin: &in})
	if err != nil {
		var ge *Error
		if errors.As(err, &ge) && isRefLockFailure(ge.Stderr) {
			ref := ""
			if m := lockedRefRe.FindStringSubmatch(ge.Stderr); m != nil {
				ref = m[1]
			}
			return &RefLockError{Ref: ref, Err: err}
		}
	}
	return err
}

// refsFast reads the refs under prefixes (each ending in "/") from the ref
// files: loose refs override packed-refs. ok is false when it met anything
// it leaves to git (a symbolic ref, a malformed file).
func (r *Repo) refsFast(prefixes []string) (map[string]string, bool) {
	if !r.fastOK() {
		return nil, false
	}
	packed := filepath.Join(r.CommonDir, "packed-refs")
	for attempt := 0; attempt < 3; attempt++ {
		st1, err1 := os.Stat(packed)
		m := map[string]string{}
		if err1 == nil {
			b, err := os.ReadFile(packed)
			if err != nil {
				return nil, false
			}
			if !r.packedRefs(b, func(name, id string) {
				for _, p := range prefixes {
					if strings.HasPrefix(name, p) {
						m[name] = id
						break
					}
				}
			}) {
				return nil, false
			}
		} else if !errors.Is(err1, fs.ErrNotExist) {
			return nil, false
		}
		for _, p := range outermost(prefixes) {
			if !r.walkLoose(strings.TrimSuffix(p, "/"), m) {
				return nil, false
			}
		}
		st2, err2 := os.Stat(packed)
		same := (err1 != nil && err2 != nil) || (err1 == nil && err2 == nil && os.SameFile(st1, st2) && st1.ModTime().Equal(st2.ModTime()) && st1.Size() == st2.Size())
		if same {
			return m, true
		}
	}
	return nil, false
}

// packedRefs calls each with every ref of a packed-refs file's text (peeled
// lines and the header left out): the one packed-refs reader. It returns
// false, having stopped, at a line it does not understand (git should
// answer then).
func (r *Repo) packedRefs(b []byte, each func(name, id string)) bool {
	for _, l := range strings.Split(string(b), "\n") {
		if l == "" || l[0] == '#' || l[0] == '^' {
			continue
		}
		id, name, ok := strings.Cut(l, " ")
		if !ok || !r.validID(id) {
			return false
		}
		each(name, id)
	}
	return true
}

// walkLoose adds the loose refs under name (a folder of the common dir).
// A folder whose inode, modification and change times are those of an
// earlier walk in this process is not listed again (git writes a ref by
// renaming its lock into place, which changes its folder's times), unless
// those times were too recent to tell a later change in the same clock
// tick apart. Each ref file of a folder not listed again is still looked at
// (one lstat): a file rewritten in place, by someone other than git, changes
// its own times and not its folder's, and is read again. Change times
// cannot be set back, so a task that resets a modification time does not
// make a stale answer stick (the dashboard is one long-lived process).
func (r *Repo) walkLoose(name string, into map[string]string) bool {
	dir := filepath.Join(r.CommonDir, filepath.FromSlash(name))
	fi, err := os.Stat(dir)
	if err != nil {
		return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
	}
	if !fi.IsDir() {
		return true
	}
	stamp, _ := folderID(dir)
	refDirs.Lock()
	e, ok := refDirs.m[dir]
	refDirs.Unlock()
	if ok && e.stamp == stamp {
		for n, f := range e.files {
			if id, ok := idOfPath(filepath.Join(r.CommonDir, filepath.FromSlash(n))); !ok || id != f.stamp {
				return r.relist(name, dir, into)
			}
			into[n] = f.value
		}
		for _, sub := range e.subdirs {
			if !r.walkLoose(sub, into) {
				return false
			}
		}
		return true
	}
	return r.relist(name, dir, into)
}

// relist lists and reads the ref folder name (at dir) afresh, adding its
// refs to into, and keeps what it found for walkLoose.
func (r *Repo) relist(name, dir string, into map[string]string) bool {
	stamp, ok := folderID(dir)
	if !ok {
		return true // gone, or not a folder
	}
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return true
	}
	if err != nil {
		return false
	}
	e := &refDir{stamp: stamp, files: map[string]refFile{}}
	recent := time.Now().UnixNano()-stamp.Ctime <= refCacheRecent
	for _, d := range ents {
		n := name + "/" + d.Name()
		if strings.HasSuffix(d.Name(), ".lock") || !goodRefComponent(d.Name()) {
			continue
		}
		switch {
		case d.IsDir():
			e.subdirs = append(e.subdirs, n)
			if !r.walkLoose(n, into) {
				return false
			}
		case d.Type().IsRegular():
			p := filepath.Join(r.CommonDir, filepath.FromSlash(n))
			id, ok := idOfPath(p)
			if !ok {
				return false
			}
			b, err := readSmall(p)
			if err != nil {
				return false // moved while read (or unreadable): let git answer
			}
			v := strings.TrimRight(string(b), "\n")
			if !r.validID(v) {
				return false // a symbolic ref, or a broken one
			}
			into[n] = v
			if time.Now().UnixNano()-id.Ctime <= refCacheRecent {
				recent = true
			}
			e.files[n] = refFile{value: v, stamp: id}
		default:
			return false
		}
	}
	// Kept only when every time is safely in the past: a change within the
	// same tick of the file system's clock would not show.
	refDirs.Lock()
	if refDirs.m == nil {
		refDirs.m = map[string]*refDir{}
	}
	if recent {
		delete(refDirs.m, dir)
	} else {
		refDirs.m[dir] = e
	}
	refDirs.Unlock()
	return true
}

// refFile is one ref file as a walk read it.
type refFile struct {
	value string
	stamp fileID
}

// refDir is what one walk found in a ref folder.
type refDir struct {
	stamp   fileID
	files   map[string]refFile
	subdirs []string
}

// refCacheRecent is how recent (in nanoseconds) a change time may be for
// a ref folder's listing not to be kept: within it, a later change in the
// same tick of the file system's clock would not show.
var refCacheRecent = int64(time.Second)

var refDirs struct {
	sync.Mutex
	m map[string]*refDir
}

// outermost drops the prefixes another one of them contains.
func outermost(prefixes []string) []string {
	var out []string
	for _, p := range prefixes {
		inner := false
		for _, q := range prefixes {
			if q != p && strings.HasPrefix(p, q) {
				inner = true
			}
		}
		if !inner {
			out = append(out, p)
		}
	}
	return out
}

// goodRefComponent leaves out names git would not take for a ref.
func goodRefComponent(s string) bool {
	if s == "" || s[0] == '.' || strings.Contains(s, "..") || strings.HasSuffix(s, ".") {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f || strings.IndexByte(" ~^:?*[\\", c) >= 0 {
			return false
		}
	}
	return !strings.Contains(s, "@{")
}

// RefsAndHead reads the refs under prefixes and HEAD ("ref: <branch>" or a
// commit id, "" when unreadable as either), from the files when it can,
// else with git.
func (r *Repo) RefsAndHead(ctx context.Context, prefixes ...string) (map[string]string, string, error) {
	if m, ok := r.refsFast(prefixes); ok {
		if h, ok := r.headFast(); ok {
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

// headFast reads HEAD from its file (never through a link: a symbolic-link
// HEAD is git's to read).
func (r *Repo) headFast() (string, bool) {
	if !r.fastOK() {
		return "", false
	}
	b, err := readSmall(filepath.Join(r.GitDir, "HEAD"))
	if err != nil {
		return "", false
	}
	v := strings.TrimRight(string(b), "\n")
	if t, ok := strings.CutPrefix(v, "ref: "); ok && strings.HasPrefix(t, "refs/") {
		for _, c := range strings.Split(t, "/") {
			if !goodRefComponent(c) || strings.HasSuffix(c, ".lock") {
				return "", false
			}
		}
		return "ref: " + t, true
	}
	if r.validID(v) {
		return v, true
	}
	return "", false
}

// headFromFiles is HEAD read from the files: the branch it names and that
// branch's loose or packed ref, or the detached commit; ok is false when
// git should answer (headFast cannot, an unborn branch).
func (r *Repo) headFromFiles() (h Head, ok bool) {
	v, ok := r.headFast()
	if !ok {
		return h, false
	}
	if name, sym := strings.CutPrefix(v, "ref: "); sym {
		id, found, handled := r.readOneRef(name)
		if !handled || !found {
			return h, false
		}
		return Head{Branch: name, Commit: id}, true
	}
	return Head{Commit: v}, true
}

// ReadRefFast is ReadRef answered from the ref files when it can.
func (r *Repo) ReadRefFast(ctx context.Context, name string) (string, bool, error) {
	if r.fastOK() && strings.HasPrefix(name, "refs/") {
		if v, ok, handled := r.readOneRef(name); handled {
			return v, ok, nil
		}
	}
	return r.ReadRef(ctx, name)
}

// readOneRef reads one ref: its loose file, else packed-refs. handled is
// false when git should answer.
func (r *Repo) readOneRef(name string) (v string, ok, handled bool) {
	b, err := os.ReadFile(filepath.Join(r.CommonDir, filepath.FromSlash(name)))
	if err == nil {
		v := strings.TrimRight(string(b), "\n")
		if r.validID(v) {
			return v, true, true
		}
		return "", false, false
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", false, false
	}
	pb, err := os.ReadFile(filepath.Join(r.CommonDir, "packed-refs"))
	if errors.Is(err, fs.ErrNotExist) {
		// It may have been packed and pruned between the two reads.
		if _, err := os.Stat(filepath.Join(r.CommonDir, filepath.FromSlash(name))); err == nil {
			return "", false, false
		}
		return "", false, true
	}
	if err != nil {
		return "", false, false
	}
	found := ""
	if !r.packedRefs(pb, func(n, id string) {
		if n == name {
			found = id
		}
	}) {
		return "", false, false
	}
	if found != "" {
		return found, true, true
	}
	if _, err := os.Stat(filepath.Join(r.CommonDir, filepath.FromSlash(name))); err == nil {
		return "", false, false
	}
	return "", false, true
}

// SetRefFast is SetRef (compare-and-swap; old ZeroID: must not exist)
// done in this process with git's lock protocol (<ref>.lock created
// exclusively, compared, written, renamed into place), for refs that keep
// no reflog. It falls back to git when it cannot.
func (r *Repo) SetRefFast(ctx context.Context, name, newID, old string) error {
	r.refsAboutToChange(name)
	if !r.fastOK() || !strings.HasPrefix(name, "refs/") || !r.validID(newID) || !r.validID(old) {
		return r.SetRef(ctx, SetRefRequest{Name: name, New: newID, Old: old})
	}
	for _, c := range strings.Split(name, "/") {
		if !goodRefComponent(c) || strings.HasSuffix(c, ".lock") {
			return fmt.Errorf("not a ref name: %q", name)
		}
	}
	p := filepath.Join(r.CommonDir, filepath.FromSlash(name))
	if r.refNeedsGit(name) || !r.hasObject(newID) {
		return r.SetRef(ctx, SetRefRequest{Name: name, New: newID, Old: old})
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return r.SetRef(ctx, SetRefRequest{Name: name, New: newID, Old: old})
	}
	lock := p + ".lock"
	f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%w: %s is locked", ErrRefConflict, name)
	}
	if err != nil {
		return r.SetRef(ctx, SetRefRequest{Name: name, New: newID, Old: old})
	}
	fail := func(err error) error {
		f.Close()
		os.Remove(lock)
		return err
	}
	cur, exists, handled := r.readOneRef(name)
	if !handled {
		fail(nil)
		return r.SetRef(ctx, SetRefRequest{Name: name, New: newID, Old: old})
	}
	if (old == r.ZeroID() && exists) || (old != r.ZeroID() && cur != old) {
		return fail(fmt.Errorf("%w: %s is at %q, expected %s", ErrRefConflict, name, cur, old))
	}
	if !exists && r.packedClash(name) {
		// A packed ref where a folder of name would be, or under name:
		// git refuses such a ref, in its own words.
		fail(nil)
		return r.SetRef(ctx, SetRefRequest{Name: name, New: newID, Old: old})
	}
	if _, err := f.WriteString(newID + "\n"); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(lock)
		return err
	}
	if err := os.Rename(lock, p); err != nil {
		os.Remove(lock)
		return err
	}
	return nil
}

// refNeedsGit reports whether an update of name must be left to git: the
// ref has a reflog, or git would start one for it, which git appends to
// and this process does not. core.logAllRefUpdates, which git init sets
// to true in every repository with a work tree, starts reflogs only for
// branches, remote-tracking refs, notes and HEAD; only "always" starts
// one for every ref, and that value cannot be in force unless some config
// source spells the word (ConfigMayMention also answers true for
// includes and config from the environment).
func (r *Repo) refNeedsGit(name string) bool {
	if _, err := os.Lstat(filepath.Join(r.CommonDir, "logs", filepath.FromSlash(name))); err == nil {
		return true
	}
	for _, p := range []string{"refs/heads/", "refs/remotes/", "refs/notes/"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return r.ConfigMayMention("always")
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
	if !r.validID(target) {
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

// Head describes where HEAD points.
type Head struct {
	Branch string // full ref name ("refs/heads/main"), "" when detached
	Commit string // "" on an unborn branch
}

// Unborn reports whether HEAD names a branch with no commit yet.
func (h Head) Unborn() bool { return h.Commit == "" }

// Detached reports whether HEAD is detached.
func (h Head) Detached() bool { return h.Branch == "" }

// ShortBranch is the branch name without refs/heads/.
func (h Head) ShortBranch() string { return strings.TrimPrefix(h.Branch, "refs/heads/") }

// Head reads HEAD: the branch it names (if any) and the commit (if any).
// It is HeadTree without the tree.
func (r *Repo) Head(ctx context.Context) (Head, error) {
	if h, ok := r.headFromFiles(); ok {
		// rev-parse HEAD^{commit} would peel a tag: only a commit is
		// taken as it is.
		if info, ok := r.objectInfoHere(h.Commit); ok && info.Type == "commit" {
			return h, nil
		}
	}
	h, _, err := r.HeadTree(ctx)
	return h, err
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

// LastHeadMove returns the newest entry of this worktree's HEAD reflog: the
// commit HEAD moved to and the reflog message; ok is false when there is
// no reflog. It reads the file (files ref backend); no git process.
func (r *Repo) LastHeadMove() (commit, message string, ok bool) {
	data, err := os.ReadFile(filepath.Join(r.GitDir, "logs", "HEAD"))
	if err != nil {
		return "", "", false
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	last := lines[len(lines)-1]
	meta, msg, found := strings.Cut(last, "\t")
	f := strings.Fields(meta)
	if !found || len(f) < 2 {
		return "", "", false
	}
	return f[1], msg, true
}

// headTreeFast is HeadTree read from the files, with no git process: HEAD
// and its branch (headFromFiles) and the tree line of its commit, loose or
// packed (readObjectHere). ok is false whenever git should answer instead:
// the in-process rule says no (fastOK), an unborn branch, a symbolic-link
// HEAD, an object not read here, or replace refs, which git would follow
// to another commit's tree.
func (r *Repo) headTreeFast() (h Head, tree string, ok bool) {
	if h, ok = r.headFromFiles(); !ok || r.mayReplace() {
		return Head{}, "", false
	}
	typ, data, found := r.readObjectHere(h.Commit)
	if !found || typ != "commit" {
		return Head{}, "", false
	}
	line, _, _ := bytes.Cut(data, []byte("\n"))
	t, isTree := bytes.CutPrefix(line, []byte("tree "))
	if !isTree || !r.validID(string(t)) {
		return Head{}, "", false
	}
	return h, string(t), true
}

// packedClash reports whether packed-refs holds a ref that name cannot
// exist beside: one of its leading folders as a ref, or a ref under it;
// true also when packed-refs cannot be read.
func (r *Repo) packedClash(name string) bool {
	pb, err := os.ReadFile(filepath.Join(r.CommonDir, "packed-refs"))
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if err != nil {
		return true
	}
	clash := false
	ok := r.packedRefs(pb, func(n, _ string) {
		if strings.HasPrefix(n, name+"/") || strings.HasPrefix(name, n+"/") {
			clash = true
		}
	})
	return clash || !ok
}

// mayReplace reports whether the repository may hold replace refs (a
// refs/replace folder, or a packed-refs file naming one): git reads a
// replaced commit's tree from its replacement.
func (r *Repo) mayReplace() bool {
	if os.Getenv("GIT_REPLACE_REF_BASE") != "" {
		return true
	}
	if v := os.Getenv("GIT_NO_REPLACE_OBJECTS"); v != "" {
		return false // git looks at no replace ref
	}
	replaceMemo.Lock()
	defer replaceMemo.Unlock()
	if replaceMemo.dir == r.CommonDir && time.Since(replaceMemo.at) < time.Second {
		return replaceMemo.may
	}
	may := true
	if _, err := os.Lstat(filepath.Join(r.CommonDir, "refs", "replace")); errors.Is(err, fs.ErrNotExist) {
		pb, err := os.ReadFile(filepath.Join(r.CommonDir, "packed-refs"))
		may = !errors.Is(err, fs.ErrNotExist) && (err != nil || bytes.Contains(pb, []byte(" refs/replace/")))
	}
	replaceMemo.dir, replaceMemo.at, replaceMemo.may = r.CommonDir, time.Now(), may
	return may
}

// replaceMemo keeps mayReplace's answer for a moment (as packList keeps
// the pack listing): a command reading hundreds of objects here looks for
// replace refs once, not once per object (reading all of packed-refs
// each time). git itself reads them once, when it starts.
var replaceMemo struct {
	sync.Mutex
	dir string
	at  time.Time
	may bool
}
