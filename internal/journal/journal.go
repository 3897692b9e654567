// Package journal owns the suite's on-disk JSON state: atomic replacement of
// whole files (temp file, fsync, rename, fsync of the folder), corrupt-file
// errors that name the file and never overwrite it, preservation of fields a
// newer version wrote, and process locks that vanish with their holder.
package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/natefinch/atomic"
)

// CorruptError reports a journal file that exists but cannot be parsed. The
// file is left exactly as it was found.
type CorruptError struct {
	Path string
	Err  error
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("%s is corrupt (%v); it was left untouched: repair or move it aside, then run the command again", e.Path, e.Err)
}

func (e *CorruptError) Unwrap() error { return e.Err }

// Read decodes the JSON file at path into v. A missing file returns an error
// satisfying errors.Is(err, fs.ErrNotExist); an unparsable one a *CorruptError.
func Read(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return Decode(path, data, v)
}

// Decode parses data (read from path) into v, strictly: trailing garbage is
// corruption too.
func Decode(path string, data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return &CorruptError{Path: path, Err: err}
	}
	if dec.More() {
		return &CorruptError{Path: path, Err: errors.New("unexpected data after the JSON value")}
	}
	return nil
}

// Write replaces the file at path with v encoded as indented JSON, atomically:
// a reader sees the old file or the new one, never a mix, and after Write
// returns the new content survives a power cut. The file is mode 0644.
func Write(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", path, err)
	}
	data = append(data, '\n')
	return WriteBytes(path, data)
}

// WriteBytes atomically replaces path with data (see Write).
func WriteBytes(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// natefinch/atomic writes a temp file in the same folder, fsyncs it and
	// renames it over path; it creates the temp file 0600 and preserves an
	// existing file's mode, so a new journal is given 0644 explicitly.
	_, statErr := os.Stat(path)
	if err := atomic.WriteFile(path, bytes.NewReader(data)); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if errors.Is(statErr, fs.ErrNotExist) {
		if err := os.Chmod(path, 0o644); err != nil {
			return err
		}
	}
	return SyncDir(dir)
}

// SyncDir fsyncs a folder so that a rename inside it is durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return fmt.Errorf("fsync %s: %w", dir, err)
	}
	return nil
}

// Extra holds the fields of a JSON object that the current schema does not
// know, so that rewriting a record written by a newer version keeps them.
type Extra map[string]json.RawMessage

// UnmarshalKnown decodes data into known (a pointer to a struct, typically an
// alias type without methods) and returns the fields known did not claim.
func UnmarshalKnown(data []byte, known any) (Extra, error) {
	if err := json.Unmarshal(data, known); err != nil {
		return nil, err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return nil, err
	}
	claimed, err := fieldNames(known)
	if err != nil {
		return nil, err
	}
	for k := range claimed {
		delete(all, k)
	}
	if len(all) == 0 {
		return nil, nil
	}
	return Extra(all), nil
}

// MarshalKnown encodes known and adds the extra fields it does not itself set.
func MarshalKnown(known any, extra Extra) ([]byte, error) {
	data, err := json.Marshal(known)
	if err != nil || len(extra) == 0 {
		return data, err
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return nil, err
	}
	for k, v := range extra {
		if _, ok := obj[k]; !ok {
			obj[k] = v
		}
	}
	return json.Marshal(obj)
}

// fieldNames lists the JSON keys known encodes (including ones it omits
// when empty, by encoding a zero value with every field named).
func fieldNames(known any) (map[string]bool, error) {
	data, err := json.Marshal(known)
	if err != nil {
		return nil, err
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return nil, err
	}
	names := make(map[string]bool, len(obj))
	for k := range obj {
		names[k] = true
	}
	return names, nil
}
