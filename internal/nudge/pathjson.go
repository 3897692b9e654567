package nudge

import (
	"encoding/json"

	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/pathenc"
)

// Names are bytes (SPEC 1.11). Every record below that holds a path writes
// it with pathenc.Encode ("path", plus "path_b64" when the name is not
// valid UTF-8) and reads it back with pathenc.Decode. The outer "path"
// field shadows the embedded one, so the key order of the record is kept:
// path first (all of these records start with it), then path_b64, then the
// other fields, including any a later change adds.

// MarshalJSON writes the path as bytes survive JSON.
func (s Skipped) MarshalJSON() ([]byte, error) {
	type plain Skipped
	p, b := pathenc.Encode(s.Path)
	return pathenc.Marshal(struct {
		Path    string `json:"path"`
		PathB64 string `json:"path_b64,omitempty"`
		plain
	}{p, b, plain(s)})
}

// UnmarshalJSON reads the path back, from path_b64 when present.
func (s *Skipped) UnmarshalJSON(data []byte) error {
	type plain Skipped
	var v struct {
		Path    string  `json:"path"`
		PathB64 *string `json:"path_b64"`
		plain
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	p, err := pathenc.Decode(v.Path, v.PathB64)
	*s = Skipped(v.plain)
	s.Path = p
	return err
}

// MarshalJSON writes the path as bytes survive JSON.
func (f FileChange) MarshalJSON() ([]byte, error) {
	type plain FileChange
	p, b := pathenc.Encode(f.Path)
	return pathenc.Marshal(struct {
		Path    string `json:"path"`
		PathB64 string `json:"path_b64,omitempty"`
		plain
	}{p, b, plain(f)})
}

// UnmarshalJSON reads the path back, from path_b64 when present.
func (f *FileChange) UnmarshalJSON(data []byte) error {
	type plain FileChange
	var v struct {
		Path    string  `json:"path"`
		PathB64 *string `json:"path_b64"`
		plain
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	p, err := pathenc.Decode(v.Path, v.PathB64)
	*f = FileChange(v.plain)
	f.Path = p
	return err
}

// MarshalJSON writes the path as bytes survive JSON.
func (s PathState) MarshalJSON() ([]byte, error) {
	type plain PathState
	p, b := pathenc.Encode(s.Path)
	return pathenc.Marshal(struct {
		Path    string `json:"path"`
		PathB64 string `json:"path_b64,omitempty"`
		plain
	}{p, b, plain(s)})
}

// UnmarshalJSON reads the path back, from path_b64 when present.
func (s *PathState) UnmarshalJSON(data []byte) error {
	type plain PathState
	var v struct {
		Path    string  `json:"path"`
		PathB64 *string `json:"path_b64"`
		plain
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	p, err := pathenc.Decode(v.Path, v.PathB64)
	*s = PathState(v.plain)
	s.Path = p
	return err
}

// MarshalJSON writes the path as bytes survive JSON.
func (f FileOutcome) MarshalJSON() ([]byte, error) {
	type plain FileOutcome
	p, b := pathenc.Encode(f.Path)
	return pathenc.Marshal(struct {
		Path    string `json:"path"`
		PathB64 string `json:"path_b64,omitempty"`
		plain
	}{p, b, plain(f)})
}

// UnmarshalJSON reads the path back, from path_b64 when present.
func (f *FileOutcome) UnmarshalJSON(data []byte) error {
	type plain FileOutcome
	var v struct {
		Path    string  `json:"path"`
		PathB64 *string `json:"path_b64"`
		plain
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	p, err := pathenc.Decode(v.Path, v.PathB64)
	*f = FileOutcome(v.plain)
	f.Path = p
	return err
}

// MarshalJSON writes the path as bytes survive JSON.
func (f RecoverFile) MarshalJSON() ([]byte, error) {
	type plain RecoverFile
	p, b := pathenc.Encode(f.Path)
	return pathenc.Marshal(struct {
		Path    string `json:"path"`
		PathB64 string `json:"path_b64,omitempty"`
		plain
	}{p, b, plain(f)})
}

// UnmarshalJSON reads the path back, from path_b64 when present.
func (f *RecoverFile) UnmarshalJSON(data []byte) error {
	type plain RecoverFile
	var v struct {
		Path    string  `json:"path"`
		PathB64 *string `json:"path_b64"`
		plain
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	p, err := pathenc.Decode(v.Path, v.PathB64)
	*f = RecoverFile(v.plain)
	f.Path = p
	return err
}

// MarshalJSON writes the report; leftovers that are not valid UTF-8 also
// go into leftovers_b64 (see pathenc.EncodeList).
func (r Recovery) MarshalJSON() ([]byte, error) {
	type plain Recovery
	v := struct {
		plain
		LeftoversB64 []string `json:"leftovers_b64,omitempty"`
	}{plain: plain(r)}
	v.Leftovers, v.LeftoversB64 = pathenc.EncodeList(r.Leftovers)
	return pathenc.Marshal(v)
}

// UnmarshalJSON reads a report written by MarshalJSON.
func (r *Recovery) UnmarshalJSON(data []byte) error {
	type plain Recovery
	var v struct {
		plain
		LeftoversB64 []string `json:"leftovers_b64"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*r = Recovery(v.plain)
	var err error
	r.Leftovers, err = pathenc.DecodeList(v.Leftovers, v.LeftoversB64)
	return err
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

// MarshalJSON writes the report, with paths_b64 as in saves.json.
func (r SaveReport) MarshalJSON() ([]byte, error) {
	type plain SaveReport
	v := struct {
		plain
		PathsB64 []string `json:"paths_b64,omitempty"`
	}{plain: plain(r)}
	v.Paths, v.PathsB64 = pathenc.EncodeList(r.Paths)
	return pathenc.Marshal(v)
}
