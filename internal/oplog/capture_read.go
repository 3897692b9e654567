package oplog

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/nudgethis/git-nudge/internal/git"
	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/refs"
	"github.com/nudgethis/git-nudge/internal/worktree"
)

// state is what a command may change, read before and after it.
type state struct {
	// refNames are the loose refs of the scope's NewRefs folder.
	refNames map[string]bool
	// written are the task records the command changed (WrittenTasks
	// scope), and writtenRefs the refs (WrittenRefs scope), set on the
	// state read before it, for the read after it.
	written     []string
	writtenRefs []string
	head        string
	refs        map[string]string
	journals    map[string][]byte
	jids        map[string]fileID
	// told, on the state read before the command, are the journals the
	// command appended to in place and said what it wrote
	// (JournalAppended); on the state read after it, told holds those
	// whose change is taken as told (not read again), with a nil entry
	// in journals.
	told  map[string]*toldAppend
	index *git.IndexFile
	files map[string]*File
}

// journalFiles lists the journals of the work tree in sc: task records,
// saves.json, checkpoints.json, state.json.
func journalFiles(top string, sc Scope, prev *state) []string {
	var fs []string
	if sc.Saves {
		fs = append(fs, refs.SavesJournal)
	}
	if sc.Autodev {
		fs = append(fs, refs.CheckpointsJournal, refs.StateJournal)
	}
	if sc.Tasks == NoTasks {
		return fs
	}
	if sc.Tasks == WrittenTasks {
		if prev != nil {
			fs = append(fs, prev.written...)
		}
		return fs
	}
	ents, _ := os.ReadDir(filepath.Join(top, filepath.FromSlash(refs.TasksFolder)))
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".json") || !e.Type().IsRegular() {
			continue
		}
		fs = append(fs, refs.TasksFolder+e.Name())
	}
	return fs
}

// read reads what a command may change. prev, when set, is what was read
// before the command: an index or journal whose file was not replaced is
// kept from it instead of being read again.
func (l *Log) read(ctx context.Context, paths []string, prev *state, touchesIndex bool, sc Scope) (*state, error) {
	s := &state{journals: map[string][]byte{}, files: map[string]*File{}}
	var err error
	// Read from the ref files in this process where possible (no git
	// process: recording must cost next to nothing).
	prefixes := sc.Refs
	if sc.NewRefs != "" && !l.Repo.InProcess() {
		// The folder listing below reads loose ref files, which a
		// repository git's own files are not read in (reftable) lacks:
		// read the whole folder through git instead.
		prefixes = append(append([]string{}, prefixes...), sc.NewRefs)
	}
	if sc.WrittenRefs {
		var names []string
		if prev != nil {
			names = prev.writtenRefs
			if b, ok := strings.CutPrefix(prev.head, "ref: "); ok {
				names = append(names, b)
			}
		}
		if s.refs, s.head, err = l.headAndRefs(ctx, names); err != nil {
			return nil, err
		}
	} else if s.refs, s.head, err = l.Repo.RefsAndHead(ctx, prefixes...); err != nil {
		return nil, err
	}
	for n := range s.refs {
		if strings.HasPrefix(n, refs.Oplog) {
			delete(s.refs, n)
		}
	}
	if sc.NewRefs != "" && l.Repo.InProcess() {
		l.readNewRefs(sc.NewRefs, s, prev)
	}
	s.jids = map[string]fileID{}
	for _, j := range journalFiles(l.Repo.WorkTree, sc, prev) {
		p := filepath.Join(l.Repo.WorkTree, j)
		if prev != nil && prev.told[j].holds(p, prev.journals[j]) {
			// Appended to in place, as the command said: nothing is read.
			if s.told == nil {
				s.told = map[string]*toldAppend{}
			}
			s.told[j] = prev.told[j]
			continue
		}
		if prev != nil {
			// A journal whose file was not replaced or changed is not
			// read again.
			if id, ok := journalID(p); ok && id != (fileID{}) && prev.jids[j] == id {
				s.journals[j], s.jids[j] = prev.journals[j], id
				continue
			}
		}
		if b, id, ok := readJournal(p); ok {
			s.journals[j], s.jids[j] = b, id
		}
	}
	switch {
	case !touchesIndex:
		s.index = noIndex
	case prev != nil && prev.index != nil && prev.index.Unchanged(l.Repo):
		s.index = prev.index
	default:
		if s.index, err = l.Repo.ReadIndexFile(); err != nil {
			return nil, err
		}
	}
	if err := l.readFiles(ctx, paths, s.files); err != nil {
		return nil, err
	}
	return s, nil
}

// headAndRefs reads HEAD, the branch it names and the refs names.
func (l *Log) headAndRefs(ctx context.Context, names []string) (map[string]string, string, error) {
	h, err := l.Repo.Head(ctx)
	if err != nil {
		return nil, "", err
	}
	head := h.Commit
	if h.Branch != "" {
		head = "ref: " + h.Branch
		names = append(names, h.Branch)
	}
	refs := map[string]string{}
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			continue
		}
		seen[n] = true
		v, ok, err := l.Repo.ReadRefFast(ctx, n)
		if err != nil {
			return nil, "", err
		}
		if ok {
			refs[n] = v
		}
	}
	return refs, head, nil
}

// readNewRefs lists the loose refs of folder into s.refNames and, after
// the command (prev set), reads those prev did not have into s.refs. A
// new ref is a loose file (git writes it so); one whose file does not
// hold an object id is left out, as git would not resolve it either.
func (l *Log) readNewRefs(folder string, s, prev *state) {
	s.refNames = map[string]bool{}
	dir := filepath.Join(l.Repo.CommonDir, filepath.FromSlash(strings.TrimSuffix(folder, "/")))
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		n := e.Name()
		if !e.Type().IsRegular() || strings.HasSuffix(n, ".lock") {
			continue
		}
		s.refNames[n] = true
		if prev == nil || prev.refNames[n] {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			continue
		}
		if v := strings.TrimSpace(string(b)); l.Repo.ValidID(v) {
			s.refs[folder+n] = v
		}
	}
}

// readFiles records each path's mode and raw bytes (written as blobs, in
// this process where it can: see git.WriteObjects).
func (l *Log) readFiles(ctx context.Context, paths []string, into map[string]*File) error {
	return l.readFilesWrite(ctx, paths, into, true)
}

func (l *Log) readFilesWrite(ctx context.Context, paths []string, into map[string]*File, write bool) error {
	if len(paths) == 0 {
		return nil
	}
	t, err := worktree.Open(l.Repo.WorkTree)
	if err != nil {
		return err
	}
	defer t.Close()
	var datas [][]byte
	var sets []*File
	for _, p := range paths {
		if _, ok := into[p]; ok {
			continue
		}
		e, err := t.Lstat(p)
		if err != nil {
			into[p] = &File{Mode: "unreadable"}
			continue
		}
		switch e.Kind {
		case worktree.Absent:
			into[p] = nil
		case worktree.File:
			mode := git.ModeFile
			if e.Exec {
				mode = git.ModeExec
			}
			b, err := journal.ReadRegular(filepath.Join(l.Repo.WorkTree, p))
			if err != nil {
				into[p] = &File{Mode: "unreadable"}
				continue
			}
			f := &File{Mode: mode}
			into[p] = f
			datas, sets = append(datas, b), append(sets, f)
		case worktree.Symlink:
			target, err := os.Readlink(filepath.Join(l.Repo.WorkTree, p))
			if err != nil {
				return err
			}
			f := &File{Mode: git.ModeSymlink}
			into[p] = f
			datas, sets = append(datas, []byte(target)), append(sets, f)
		default:
			into[p] = &File{Mode: "040000"}
		}
	}
	if !write {
		for i, f := range sets {
			f.Blob = l.Repo.ObjectID("blob", datas[i])
		}
		return nil
	}
	ids, err := l.Repo.WriteBlobsData(ctx, datas)
	if err != nil {
		return err
	}
	for i, f := range sets {
		f.Blob = ids[i]
	}
	return nil
}
