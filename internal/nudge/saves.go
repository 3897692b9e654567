package nudge

import (
	"encoding/json"
	"errors"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/pathenc"
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

// SaveIndexEntry is one re-based index entry of a save, in saves.json: the
// entry the save sets (Mode, Blob) where it is not the commit's, and the
// entry the index held before (OldMode, OldBlob), so that an interrupted
// save is finished with it and a commit made meanwhile is recognised.
type SaveIndexEntry struct {
	Path    string  `json:"path"`
	Mode    *string `json:"mode"`
	Blob    *string `json:"blob"`
	OldMode *string `json:"old_mode"`
	OldBlob *string `json:"old_blob"`
}

// MarshalJSON writes the path as bytes survive JSON.
func (e SaveIndexEntry) MarshalJSON() ([]byte, error) {
	type plain SaveIndexEntry
	p, b := pathenc.Encode(e.Path)
	return pathenc.Marshal(struct {
		Path    string `json:"path"`
		PathB64 string `json:"path_b64,omitempty"`
		plain
	}{p, b, plain(e)})
}

// UnmarshalJSON reads the path back, from path_b64 when present.
func (e *SaveIndexEntry) UnmarshalJSON(data []byte) error {
	type plain SaveIndexEntry
	var v struct {
		Path    string  `json:"path"`
		PathB64 *string `json:"path_b64"`
		plain
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	p, err := pathenc.Decode(v.Path, v.PathB64)
	*e = SaveIndexEntry(v.plain)
	e.Path = p
	return err
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

// saveFieldsB64 is a saves.json entry as written: its paths with a
// paths_b64 sibling when one of them is not valid UTF-8.
type saveFieldsB64 struct {
	saveFields
	PathsB64 []string `json:"paths_b64,omitempty"`
}

// MarshalJSON keeps fields a newer version added, and the paths' bytes.
func (s SaveEntry) MarshalJSON() ([]byte, error) {
	v := saveFieldsB64{saveFields: saveFields(s)}
	v.Paths, v.PathsB64 = pathenc.EncodeList(s.Paths)
	return journal.MarshalKnown(&v, s.extra)
}

// UnmarshalJSON remembers fields this version does not know.
func (s *SaveEntry) UnmarshalJSON(data []byte) error {
	var v saveFieldsB64
	extra, err := journal.UnmarshalKnown(data, &v)
	if err != nil {
		return err
	}
	*s = SaveEntry(v.saveFields)
	s.extra = extra
	s.Paths, err = pathenc.DecodeList(v.Paths, v.PathsB64)
	return err
}
