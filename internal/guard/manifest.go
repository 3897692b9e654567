package guard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Manifest is quarantine/<n>/found.json: what the guard found
// and put back, so that git nudge guard accept can put it in place again
// when the user says the change was theirs.
type Manifest struct {
	Version int      `json:"version"`
	Tasks   []string `json:"tasks"` // the suspects whose records got Lines
	Lines   []string `json:"lines"`
	Found   []Found  `json:"found"`
}

// Found is one watched file as it was found: File nil when it
// had been removed; Copy is where its content is kept, inside the folder.
type Found struct {
	Path string `json:"path"`
	File *File  `json:"file"`
	Copy string `json:"copy,omitempty"`
}

const (
	manifestName = "found.json"
	acceptedName = "accepted.json"
)

// WriteManifest records in qdir what PutBack took away.
func (g *Guard) WriteManifest(qdir string, changes []Change, tasks, lines []string) error {
	m := Manifest{Version: 1, Tasks: tasks, Lines: lines}
	for _, c := range changes {
		q := Found{Path: c.Path}
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

// Accepted is what Accept did.
type Accepted struct {
	Folder string   // the quarantine folder taken back
	Paths  []string // the settings files put in place again (for people)
	// Tasks are the suspects the guard recorded the change in, and Lines
	// what it recorded: the caller removes Lines from their records.
	Tasks, Lines []string
}

// ErrNothingToAccept: no quarantine folder waits for guard accept.
var ErrNothingToAccept = errors.New("nothing to accept: the guard has put back no change since the last guard accept")

// Accept is the files' part of git nudge guard accept: the user says that
// the shared git settings the guard found changed and put back (the newest
// quarantine folder, or quarantine/<n>) were their own change. The
// versions found are put in place again and trusted from then on. The
// caller takes the change out of the records of res.Tasks, then marks the
// folder accepted (MarkAccepted); until then Accept can be run again. The
// workspace lock is held.
func (g *Guard) Accept(ctx context.Context, n string) (Accepted, error) {
	var res Accepted
	base := filepath.Join(g.Dir, "quarantine")
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
	b, err := ReadPlain(qroot, manifestName, 4<<20)
	if errors.Is(err, fs.ErrNotExist) {
		if _, aerr := qroot.Lstat(acceptedName); aerr == nil {
			return res, fmt.Errorf("%s was accepted already", qdir)
		}
		return res, fmt.Errorf("%s holds no record of what was found there (%s); put the files back by hand", qdir, manifestName)
	}
	if err != nil {
		return res, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return res, fmt.Errorf("%s: %v", filepath.Join(qdir, manifestName), err)
	}
	root, err := os.OpenRoot(g.Repo.CommonDir)
	if err != nil {
		return res, err
	}
	defer root.Close()
	// Only the watched settings files, nothing else of the git folder.
	watched := func(p string) bool {
		if !filepath.IsLocal(filepath.FromSlash(p)) {
			return false
		}
		for _, r := range g.Roots() {
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
		res.Paths = append(res.Paths, g.Display(q.Path))
		if q.File == nil {
			if err := root.Remove(filepath.FromSlash(q.Path)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return res, fmt.Errorf("removing %s: %v", g.Display(q.Path), err)
			}
			continue
		}
		data, err := ReadPlain(qroot, filepath.FromSlash(q.Copy), 64<<20)
		if err != nil {
			return res, fmt.Errorf("reading the kept copy of %s: %v", g.Display(q.Path), err)
		}
		if err := writeFile(root, q.File, data); err != nil {
			return res, fmt.Errorf("putting %s in place: %v", g.Display(q.Path), err)
		}
	}
	now, err := g.Scan()
	if err != nil {
		return res, err
	}
	if err := g.Trust(ctx, now); err != nil {
		return res, err
	}
	res.Tasks, res.Lines = m.Tasks, m.Lines
	return res, nil
}

// MarkAccepted marks the quarantine folder res.Folder accepted: Accept
// refuses it from then on.
func (g *Guard) MarkAccepted(res Accepted) error {
	return os.Rename(filepath.Join(res.Folder, manifestName), filepath.Join(res.Folder, acceptedName))
}
