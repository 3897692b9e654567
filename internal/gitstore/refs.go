package gitstore

// This file holds ref files read in this process: loose refs (with a cache of the folders
// already listed), packed-refs, HEAD and its reflog, replace refs.

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// RefsFast reads the refs under prefixes (each ending in "/") from the ref
// files: loose refs override packed-refs. ok is false when it met anything
// it leaves to git (a symbolic ref, a malformed file).
func (r *Store) RefsFast(prefixes []string) (map[string]string, bool) {
	if !r.fastOK() {
		return nil, false
	}
	packed := filepath.Join(r.CommonDir, "packed-refs")
	for attempt := 0; attempt < 3; attempt++ {
		st1, err1 := os.Stat(packed)
		m := map[string]string{}
		if err1 == nil {
			// A version newer than st1 shows as st2 differing below.
			pl, ok := r.packed()
			if !ok {
				return nil, false
			}
			if pl != nil {
				for _, p := range outermost(prefixes) {
					pl.under(p, func(name, id string) { m[name] = id })
				}
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
func (r *Store) packedRefs(b []byte, each func(name, id string)) bool {
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
func (r *Store) walkLoose(name string, into map[string]string) bool {
	dir := filepath.Join(r.CommonDir, filepath.FromSlash(name))
	fi, err := os.Stat(dir)
	if err != nil {
		return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
	}
	if !fi.IsDir() {
		return true
	}
	stamp, _ := FolderID(dir)
	refDirs.Lock()
	e, ok := refDirs.m[dir]
	refDirs.Unlock()
	if ok && e.stamp == stamp {
		for n, f := range e.files {
			if id, ok := IDOfPath(filepath.Join(r.CommonDir, filepath.FromSlash(n))); !ok || id != f.stamp {
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
func (r *Store) relist(name, dir string, into map[string]string) bool {
	stamp, ok := FolderID(dir)
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
		if strings.HasSuffix(d.Name(), ".lock") || !GoodRefComponent(d.Name()) {
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
			id, ok := IDOfPath(p)
			if !ok {
				return false
			}
			b, err := ReadSmall(p)
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
	stamp FileID
}

// refDir is what one walk found in a ref folder.
type refDir struct {
	stamp   FileID
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

// GoodRefComponent leaves out names git would not take for a ref.
func GoodRefComponent(s string) bool {
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

// HeadFast reads HEAD from its file (never through a link: a symbolic-link
// HEAD is git's to read).
func (r *Store) HeadFast() (string, bool) {
	if !r.fastOK() {
		return "", false
	}
	b, err := ReadSmall(filepath.Join(r.GitDir, "HEAD"))
	if err != nil {
		return "", false
	}
	v := strings.TrimRight(string(b), "\n")
	if t, ok := strings.CutPrefix(v, "ref: "); ok && strings.HasPrefix(t, "refs/") {
		for _, c := range strings.Split(t, "/") {
			if !GoodRefComponent(c) || strings.HasSuffix(c, ".lock") {
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

// HeadFromFiles is HEAD read from the files: the branch it names and that
// branch's loose or packed ref, or the detached commit; ok is false when
// git should answer (HeadFast cannot, an unborn branch).
func (r *Store) HeadFromFiles() (h Head, ok bool) {
	v, ok := r.HeadFast()
	if !ok {
		return h, false
	}
	if name, sym := strings.CutPrefix(v, "ref: "); sym {
		id, found, handled := r.ReadOneRef(name)
		if !handled || !found {
			return h, false
		}
		return Head{Branch: name, Commit: id}, true
	}
	return Head{Commit: v}, true
}

// ReadOneRef reads one ref: its loose file, else packed-refs. handled is
// false when git should answer.
func (r *Store) ReadOneRef(name string) (v string, ok, handled bool) {
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
	pl, ok := r.packed()
	if !ok {
		return "", false, false
	}
	if pl == nil {
		// It may have been packed and pruned between the two reads.
		if _, err := os.Stat(filepath.Join(r.CommonDir, filepath.FromSlash(name))); err == nil {
			return "", false, false
		}
		return "", false, true
	}
	if found, ok := pl.lookup(name); ok {
		return found, true, true
	}
	if _, err := os.Stat(filepath.Join(r.CommonDir, filepath.FromSlash(name))); err == nil {
		return "", false, false
	}
	return "", false, true
}

// RefNeedsGit reports whether an update of name must be left to git: the
// ref has a reflog, or git would start one for it, which git appends to
// and this process does not. core.logAllRefUpdates, which git init sets
// to true in every repository with a work tree, starts reflogs only for
// branches, remote-tracking refs, notes and HEAD; only "always" starts
// one for every ref, and that value cannot be in force unless some config
// source spells the word (ConfigMayMention also answers true for
// includes and config from the environment).
func (r *Store) RefNeedsGit(name string) bool {
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

// LastHeadMove returns the newest entry of this worktree's HEAD reflog: the
// commit HEAD moved to and the reflog message; ok is false when there is
// no reflog. It reads the file (files ref backend); no git process.
func (r *Store) LastHeadMove() (commit, message string, ok bool) {
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

// HeadTreeFast is HeadTree read from the files, with no git process: HEAD
// and its branch (HeadFromFiles) and the tree line of its commit, loose or
// packed (ReadObjectHere). ok is false whenever git should answer instead:
// the in-process rule says no (fastOK), an unborn branch, a symbolic-link
// HEAD, an object not read here, or replace refs, which git would follow
// to another commit's tree.
func (r *Store) HeadTreeFast() (h Head, tree string, ok bool) {
	if h, ok = r.HeadFromFiles(); !ok || r.MayReplace() {
		return Head{}, "", false
	}
	typ, data, found := r.ReadObjectHere(h.Commit)
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

// PackedClash reports whether packed-refs holds a ref that name cannot
// exist beside: one of its leading folders as a ref, or a ref under it;
// true also when packed-refs cannot be read.
func (r *Store) PackedClash(name string) bool {
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

// MayReplace reports whether the repository may hold replace refs (a
// refs/replace folder, or a packed-refs file naming one): git reads a
// replaced commit's tree from its replacement.
func (r *Store) MayReplace() bool {
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

// replaceMemo keeps MayReplace's answer for a moment (as packList keeps
// the pack listing): a command reading hundreds of objects here looks for
// replace refs once, not once per object (reading all of packed-refs
// each time). git itself reads them once, when it starts.
var replaceMemo struct {
	sync.Mutex
	dir string
	at  time.Time
	may bool
}
