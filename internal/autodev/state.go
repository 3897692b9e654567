package autodev

import (
	"errors"
	"io/fs"

	"github.com/nudgethis/git-nudge/internal/journal"
)

// stateVersion is the schema version written into state.json.
const stateVersion = 1

// State is .autodev/state.json: what the run is doing.
type State struct {
	Version     int     `json:"version"`
	Status      string  `json:"status"` // idle, running, error
	PID         *int    `json:"pid"`
	Mode        *string `json:"mode"`
	CurrentTask *string `json:"current_task"`
	Since       string  `json:"since"` // RFC 3339, when Status was set
	// Extra keeps fields a newer version wrote.
	Extra journal.Extra `json:"-"`
}

type stateFields State

// UnmarshalJSON decodes the state and keeps the fields it does not know.
func (s *State) UnmarshalJSON(data []byte) error {
	var f stateFields
	extra, err := journal.UnmarshalKnown(data, &f)
	if err != nil {
		return err
	}
	*s = State(f)
	s.Extra = extra
	return nil
}

// MarshalJSON encodes the state with its unknown fields.
func (s State) MarshalJSON() ([]byte, error) {
	f := stateFields(s)
	f.Extra = nil
	return journal.MarshalKnown(f, s.Extra)
}

// LoadState reads state.json; a missing file is an idle state. A file that
// does not parse is a *journal.CorruptError naming it.
func (ws *Workspace) LoadState() (State, error) {
	var s State
	err := journal.Read(ws.StatePath(), &s)
	if errors.Is(err, fs.ErrNotExist) {
		return State{Version: stateVersion, Status: StatusIdle}, nil
	}
	if err != nil {
		return s, err
	}
	if s.Status == "" {
		s.Status = StatusIdle
	}
	return s, nil
}

// saveState writes state.json atomically, stamping Since.
func (ws *Workspace) saveState(s State) error {
	if err := ws.ensureDir(); err != nil {
		return err
	}
	if s.Version < stateVersion {
		s.Version = stateVersion
	}
	s.Since = ws.stamp()
	return journal.Write(ws.StatePath(), s)
}

// setIdle records that no run is going on and no task is current.
func (ws *Workspace) setIdle(s State) error {
	s.Status = StatusIdle
	s.PID = nil
	s.CurrentTask = nil
	return ws.saveState(s)
}
