package nudge

import (
	"errors"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/nudgethis/git-nudge/internal/journal"
)

// Save journal states.
const (
	SaveSaving     = "saving"
	SaveSaved      = "saved"
	SaveRolledBack = "rolled_back"
)

// SaveEntry is one entry of .nudgethis/saves.json.
type SaveEntry struct {
	ID     string    `json:"id"`
	Commit string    `json:"commit"`
	Parent string    `json:"parent"`
	Branch string    `json:"branch"`
	Tasks  []string  `json:"tasks"`
	Paths  []string  `json:"paths"`
	State  string    `json:"state"`
	Time   time.Time `json:"time"`
	// Index: the saved paths whose index entry the save sets to something
	// other than the commit's (a staged edit of the user's, re-based).
	Index []SaveIndexEntry `json:"index,omitempty"`

	extra journal.Extra
}

type saveFields SaveEntry

func (w *Workspace) SavesPath() string { return filepath.Join(w.Dir, "saves.json") }

func (w *Workspace) LoadSaves() ([]SaveEntry, error) {
	var saves []SaveEntry
	if err := journal.Read(w.SavesPath(), &saves); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return saves, nil
}

func (w *Workspace) WriteSaves(saves []SaveEntry) error {
	if saves == nil {
		saves = []SaveEntry{}
	}
	return journal.Write(w.SavesPath(), saves)
}
