package nudge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/nudgethis/git-nudge/internal/proc"
)

// quarantineManifest is quarantine/<n>/found.json: what the guard found
// and put back, so that git nudge guard accept can put it in place again
// when the user says the change was theirs.
type quarantineManifest struct {
	Version int              `json:"version"`
	Tasks   []string         `json:"tasks"` // the suspects whose records got Lines
	Lines   []string         `json:"lines"`
	Found   []quarantineFile `json:"found"`
}

// quarantineFile is one watched file as it was found: File nil when it
// had been removed; Copy is where its content is kept, inside the folder.
type quarantineFile struct {
	Path string     `json:"path"`
	File *guardFile `json:"file"`
	Copy string     `json:"copy,omitempty"`
}

const (
	manifestName = "found.json"
	acceptedName = "accepted.json"
)

// writeQuarantineManifest records in qdir what putBack took away.
func (w *Workspace) writeQuarantineManifest(qdir string, changes []guardChange, tasks, lines []string) error {
	m := quarantineManifest{Version: 1, Tasks: tasks, Lines: lines}
	for _, c := range changes {
		q := quarantineFile{Path: c.Path}
		if c.New != nil {
			f := *c.New
			f.data = nil
			q.File = &f
			q.Copy = c.Path
			if f.Mode == "120000" {
				q.Copy += ".symlink-target"
			}
		}
		m.Found = append(m.Found, q)
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(qdir, manifestName), append(b, '\n'), 0o600)
}

// GuardAccepted is what AcceptGuard did.
type GuardAccepted struct {
	Folder string   // the quarantine folder taken back
	Paths  []string // the settings files put in place again (for people)
	Tasks  []string // the tasks whose records no longer hold the change
}

// ErrNothingToAccept: no quarantine folder waits for guard accept.
var ErrNothingToAccept = errors.New("nothing to accept: the guard has put back no change since the last guard accept")

// AcceptGuard is git nudge guard accept: the user says that the shared git
// settings the guard found changed and put back (the newest quarantine
// folder, or quarantine/<n>) were their own change. The versions found
// are put in place again, trusted from then on, and the lines the guard
// added to the suspect tasks' records for them are removed (so their
// apply no longer refuses for them).
func (w *Workspace) AcceptGuard(ctx context.Context, n string) (GuardAccepted, error) {
	var res GuardAccepted
	l, err := w.Lock(ctx, "git-nudge guard accept")
	if err != nil {
		return res, err
	}
	defer l.Release()
	base := filepath.Join(w.Dir, "quarantine")
	if n == "" {
		ents, _ := os.ReadDir(base)
		best := 0
		for _, e := range ents {
			k, err := strconv.Atoi(e.Name())
			if err != nil || k <= best {
				continue
			}
			if _, err := os.Stat(filepath.Join(base, e.Name(), manifestName)); err == nil {
				best = k
			}
		}
		if best == 0 {
			return res, ErrNothingToAccept
		}
		n = strconv.Itoa(best)
	} else if _, err := strconv.Atoi(n); err != nil {
		return res, fmt.Errorf("%q is not a quarantine folder number (see .nudgethis/quarantine/)", n)
	}
	qdir := filepath.Join(base, n)
	res.Folder = qdir
	qroot, err := os.OpenRoot(qdir)
	if err != nil {
		return res, fmt.Errorf("no quarantine folder %s: %v", qdir, err)
	}
	defer qroot.Close()
	// Read as untrusted input: a plain file, bounded, never a fifo.
	b, err := readPlain(qroot, manifestName, 4<<20)
	if errors.Is(err, fs.ErrNotExist) {
		if _, aerr := qroot.Lstat(acceptedName); aerr == nil {
			return res, fmt.Errorf("%s was accepted already", qdir)
		}
		return res, fmt.Errorf("%s holds no record of what was found there (%s); put the files back by hand", qdir, manifestName)
	}
	if err != nil {
		return res, err
	}
	var m quarantineManifest
	if err := json.Unmarshal(b, &m); err != nil {
		return res, fmt.Errorf("%s: %v", filepath.Join(qdir, manifestName), err)
	}
	root, err := os.OpenRoot(w.Repo.CommonDir)
	if err != nil {
		return res, err
	}
	defer root.Close()
	// Only the watched settings files, nothing else of the git folder.
	watched := func(p string) bool {
		if !filepath.IsLocal(filepath.FromSlash(p)) {
			return false
		}
		for _, r := range w.guardRoots() {
			if p == r || strings.HasPrefix(p, r+"/") {
				return true
			}
		}
		return false
	}
	for _, q := range m.Found {
		if !watched(q.Path) {
			return res, fmt.Errorf("%s names %q, which is none of the settings files the guard watches; nothing was changed", manifestName, q.Path)
		}
		if q.File != nil && q.File.Mode != "100644" && q.File.Mode != "100755" && q.File.Mode != "120000" {
			return res, fmt.Errorf("%s: %q was not a file when found (%s); nothing was changed", manifestName, q.Path, q.File.Mode)
		}
	}
	for _, q := range m.Found {
		res.Paths = append(res.Paths, w.displayGuardPath(q.Path))
		if q.File == nil {
			if err := root.Remove(filepath.FromSlash(q.Path)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return res, fmt.Errorf("removing %s: %v", w.displayGuardPath(q.Path), err)
			}
			continue
		}
		data, err := readPlain(qroot, filepath.FromSlash(q.Copy), 64<<20)
		if err != nil {
			return res, fmt.Errorf("reading the kept copy of %s: %v", w.displayGuardPath(q.Path), err)
		}
		if err := writeGuardFile(root, q.File, data); err != nil {
			return res, fmt.Errorf("putting %s in place: %v", w.displayGuardPath(q.Path), err)
		}
	}
	now, err := w.scanGuard()
	if err != nil {
		return res, err
	}
	if err := w.trust(ctx, now); err != nil {
		return res, err
	}
	for _, id := range m.Tasks {
		t, err := w.Load(id)
		if err != nil {
			continue // dropped since
		}
		kept := t.ConfigChanges[:0]
		for _, line := range t.ConfigChanges {
			if !slices.Contains(m.Lines, line) {
				kept = append(kept, line)
			}
		}
		if len(kept) == len(t.ConfigChanges) {
			continue
		}
		t.ConfigChanges = kept
		if len(kept) == 0 {
			t.ConfigChanges = nil
		}
		if err := w.Save(t); err != nil {
			return res, err
		}
		res.Tasks = append(res.Tasks, id)
	}
	if err := os.Rename(filepath.Join(qdir, manifestName), filepath.Join(qdir, acceptedName)); err != nil {
		return res, err
	}
	return res, nil
}

// suspectNames are the suspect tasks for people, with the processes that
// make them suspects: "t3 (running: its command, pid 4242, outlived
// git-nudge)".
func (w *Workspace) suspectNames(ts []*Task) []string {
	var out []string
	for _, t := range ts {
		var why []string
		if nudgePID, cmdPID, ok := w.Orphaned(t); ok {
			if cmdPID > 0 {
				why = append(why, fmt.Sprintf("its command (pid %d) or something it started outlived git-nudge (pid %d)", cmdPID, nudgePID))
			} else {
				why = append(why, fmt.Sprintf("something it started outlived git-nudge (pid %d)", nudgePID))
			}
		} else {
			if t.PID != nil && *t.PID != os.Getpid() && !proc.Gone(*t.PID) && (t.State == StatePreparing || t.State == StateRunning) {
				why = append(why, fmt.Sprintf("git-nudge pid %d is running it", *t.PID))
			}
			if t.CommandPID != nil {
				if proc.Gone(*t.CommandPID) {
					why = append(why, fmt.Sprintf("its command ran as pid %d", *t.CommandPID))
				} else {
					why = append(why, fmt.Sprintf("its command pid %d is running", *t.CommandPID))
				}
			}
		}
		if t.Worktree != nil && len(why) == 0 {
			why = append(why, "its worktree "+QuotePath(*t.Worktree))
		}
		name := t.ID + " (" + StateLabel(t.State)
		if len(why) > 0 {
			name += ": " + strings.Join(why, ", ")
		}
		out = append(out, name+")")
	}
	return out
}
