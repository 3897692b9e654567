package journal

import (
	"bytes"
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/nudgethis/git-nudge/internal/txn"
)

// An array journal (checkpoints.json) grows by having its new elements
// written over its closing bracket, in place, instead of by a rewrite of
// the whole file. So that a crash in the middle of that write never
// leaves a file the suite cannot read, the write is announced first in
// the file's append note (".<name>.append" in the same folder, kept
// between appends and empty when none is under way): where the new bytes
// start, the bytes they replace and the bytes written. The note is made
// durable before the file is touched, the file after it, and the note is
// then emptied.
//
// A reader (ReadAppendable) that finds a non-empty note and a file that is
// not a valid JSON document reads the version before the append (the
// file's bytes up to the note's offset, then the bytes it says were
// replaced); a writer holding the journal's lock puts that version back
// on disk (RepairAppend). A file that is valid as it is, is never cut
// back, whatever the note says: a note left behind by an append that
// completed, or by a later whole rewrite, changes nothing.

// AppendNote is what an append in place announces before it writes.
type AppendNote struct {
	// At is the offset from which the file's bytes are replaced.
	At int64 `json:"at"`
	// Old are the bytes the file held from At to its end before.
	Old []byte `json:"old"`
	// New are the bytes written from At, to the end of the file after.
	New []byte `json:"new"`
}

// notePath is the append note of the journal at path.
func notePath(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".append")
}

// readNote reads path's append note; ok is false when there is none or it
// is empty (no append under way).
func readNote(path string) (n AppendNote, ok bool) {
	b, err := ReadFile(notePath(path), nil)
	if err != nil || len(bytes.TrimSpace(b)) == 0 {
		return AppendNote{}, false
	}
	if json.Unmarshal(b, &n) != nil || n.At < 0 {
		return AppendNote{}, false
	}
	return n, true
}

// ReadAppendable reads an array journal that may be being appended to in
// place (see AppendInPlace), without its lock: the version before an
// append that is under way, or that a crash interrupted, is read instead
// of a half-written file. Without an append note it costs one more
// failed open than ReadRegular.
func ReadAppendable(path string) ([]byte, error) {
	data, err := ReadRegular(path)
	if err != nil {
		return nil, err
	}
	n, ok := readNote(path)
	if !ok {
		return data, nil
	}
	return settledView(data, n), nil
}

// AppendPending reports whether path's append note names an append (one
// under way, or one a crash interrupted that no writer has looked at).
func AppendPending(path string) bool {
	_, ok := readNote(path)
	return ok
}

// Settled is data, read from path without its lock, as ReadAppendable
// would have returned it.
func Settled(path string, data []byte) []byte {
	n, ok := readNote(path)
	if !ok {
		return data
	}
	return settledView(data, n)
}

// settledView is data as an append n announced leaves it readable: data
// itself when it holds n's bytes in full or is valid JSON, else the
// version before n when that one is.
func settledView(data []byte, n AppendNote) []byte {
	if n.At+int64(len(n.New)) == int64(len(data)) && bytes.Equal(data[n.At:], n.New) {
		return data
	}
	if json.Valid(data) || n.At > int64(len(data)) {
		return data
	}
	before := make([]byte, 0, n.At+int64(len(n.Old)))
	before = append(append(before, data[:n.At]...), n.Old...)
	if !json.Valid(before) {
		return data
	}
	return before
}

// RepairAppend puts back, on disk, the version of path before an append
// in place that a crash interrupted, and empties the append note. The
// caller holds the journal's lock. A file that is valid as it is stays as
// it is.
func RepairAppend(path string) error {
	n, ok := readNote(path)
	if !ok {
		return nil
	}
	data, err := ReadRegular(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err == nil {
		if view := settledView(data, n); !bytes.Equal(view, data) {
			if err := writeAt(path, n.At, n.Old, true); err != nil {
				return fmt.Errorf("putting back %s as it was before an interrupted append: %w", path, err)
			}
		}
	}
	return clearNote(path)
}

// clearNote empties path's append note, when it has one. Emptying is not
// made durable: a note that comes back after a power cut names an append
// whose bytes are all there, or a file that is valid as it is.
func clearNote(path string) error {
	f, err := OpenFile(notePath(path), os.O_WRONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() == 0 {
		return nil
	}
	return f.Truncate(0)
}

// writeAt writes data at offset at of the existing file path and cuts the
// file there (truncate, when set), then makes it durable.
func writeAt(path string, at int64, data []byte, truncate bool) error {
	f, err := OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if truncate {
		if err := f.Truncate(at + int64(len(data))); err != nil {
			return err
		}
	}
	if _, err := f.WriteAt(data, at); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("fsync: %w", err)
	}
	return f.Close()
}

// AppendPoint names a moment of AppendInPlace for crash tests: "marked"
// (the note is durable, the file untouched), "torn" (half of the new
// bytes written), "written" (all of them durable, the note not yet
// emptied).
type AppendPoint string

// The moments AppendInPlace passes to its hook.
const (
	AppendMarked  AppendPoint = "marked"
	AppendTorn    AppendPoint = "torn"
	AppendWritten AppendPoint = "written"
)

// AppendInPlace appends more (a slice) to the JSON array journal at path,
// whose bytes are prev (read under the lock the caller still holds), by
// writing the new elements over its closing bracket, encoded exactly as
// AppendArray encodes them; the file afterwards is AppendArray's result,
// which is returned. ok is false, with nothing written, when prev does
// not end like an array or the file is no longer prev: the caller
// rewrites the whole file instead. tx, when not nil and a
// txn.JournalAppender, is told what changed (so a recording need not
// read the file again). hook, when not nil, is called at each
// AppendPoint.
func AppendInPlace(tx txn.Tx, path string, prev []byte, more any, hook func(AppendPoint)) (data []byte, ok bool, err error) {
	data, _, ok, err = AppendInPlaceAt(tx, path, Window{Bytes: prev}, more, hook)
	return data, ok, err
}

// Window is the end of an array journal: its bytes from offset Base to
// the end of the file (at least the last element and the closing
// bracket), and, when known, Digest: the SHA-256 state (marshalled) of
// the file's bytes before offset DigestAt, which must be just past its
// last element (where an append starts replacing bytes).
type Window struct {
	Base     int64
	Bytes    []byte
	Digest   []byte
	DigestAt int64
}

// AppendInPlaceAt is AppendInPlace given only the end of the file (w);
// the file's earlier bytes are neither read nor written. It returns the
// file's new bytes from w.Base and the window of the new file (its
// digest carried forward when w had one or w.Base is 0).
func AppendInPlaceAt(tx txn.Tx, path string, w Window, more any, hook func(AppendPoint)) (data []byte, next Window, ok bool, err error) {
	window, base := w.Bytes, w.Base
	end := lastElementEnd(window)
	if end <= 0 {
		return nil, Window{}, false, nil
	}
	size := base + int64(len(window))
	at := base + end // the first byte replaced
	full, ok, err := AppendArray(window, more)
	if !ok || err != nil || !bytes.Equal(full[:end], window[:end]) {
		return nil, Window{}, false, err
	}
	add := full[end:]
	if err := RepairAppend(path); err != nil {
		return nil, Window{}, false, err
	}
	f, err := OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, Window{}, false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, Window{}, false, err
	}
	if st.Size() != size {
		return nil, Window{}, false, nil
	}
	old := bytes.Clone(window[end:])
	tail := make([]byte, len(old))
	if _, err := f.ReadAt(tail, at); err != nil || !bytes.Equal(tail, old) {
		return nil, Window{}, false, nil
	}
	if err := writeNote(path, AppendNote{At: at, Old: old, New: add}); err != nil {
		return nil, Window{}, false, err
	}
	point := func(p AppendPoint) {
		if hook != nil {
			hook(p)
		}
	}
	point(AppendMarked)
	half := 0
	if hook != nil {
		// Crash tests see a torn write: half of the bytes, durable.
		half = len(add) / 2
		if _, err := f.WriteAt(add[:half], at); err != nil {
			return nil, Window{}, false, fmt.Errorf("appending to %s: %w", path, err)
		}
		if err := f.Sync(); err != nil {
			return nil, Window{}, false, fmt.Errorf("appending to %s: fsync: %w", path, err)
		}
		point(AppendTorn)
	}
	if _, err := f.WriteAt(add[half:], at+int64(half)); err != nil {
		return nil, Window{}, false, fmt.Errorf("appending to %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return nil, Window{}, false, fmt.Errorf("appending to %s: fsync: %w", path, err)
	}
	point(AppendWritten)
	// The change is told as the bytes between the file's first at bytes
	// and the bytes both versions end with, named by the digest of
	// those outside bytes; the digest state of the new file's first
	// bytes, up to where its next append starts, is carried forward
	// from w's (or taken from the window when it is the whole file).
	suffix := 0
	for suffix < len(old) && suffix < len(add) && old[len(old)-1-suffix] == add[len(add)-1-suffix] {
		suffix++
	}
	var h hash.Hash
	switch {
	case w.Digest != nil && w.DigestAt == at:
		h = sha256.New()
		if h.(encoding.BinaryUnmarshaler).UnmarshalBinary(w.Digest) != nil {
			h = nil
		}
	case base == 0:
		h = sha256.New()
		h.Write(window[:end])
	}
	next = Window{Base: base, Bytes: full}
	if h != nil {
		if nend := lastElementEnd(full); nend >= end {
			h2 := sha256.New()
			if st, err := h.(encoding.BinaryMarshaler).MarshalBinary(); err == nil && h2.(encoding.BinaryUnmarshaler).UnmarshalBinary(st) == nil {
				h2.Write(full[end:nend])
				if st2, err := h2.(encoding.BinaryMarshaler).MarshalBinary(); err == nil {
					next.Digest, next.DigestAt = st2, base+nend
				}
			}
		}
		h.Write(old[len(old)-suffix:])
		sum := hex.EncodeToString(h.Sum(nil))
		if a, ok := tx.(txn.JournalAppender); ok {
			a.JournalAppended(path, at, int64(suffix), bytes.Clone(old[:len(old)-suffix]), bytes.Clone(add[:len(add)-suffix]), sum)
		}
	}
	if err := clearNote(path); err != nil {
		return nil, Window{}, false, err
	}
	return full, next, true, nil
}

// lastElementEnd is the offset in window just past its last element (or
// the opening bracket of an empty array): where an append starts
// replacing bytes. It is 0 when window does not end like an array.
func lastElementEnd(window []byte) int64 {
	head := bytes.TrimRight(window, " \t\r\n")
	if !bytes.HasSuffix(head, []byte("]")) {
		return 0
	}
	return int64(len(bytes.TrimRight(head[:len(head)-1], " \t\r\n")))
}

// OutsideSum is the hex SHA-256 of data's first prefix bytes followed by
// its last suffix bytes: how an append's told change names the bytes it
// does not hold.
func OutsideSum(data []byte, prefix, suffix int64) string {
	h := sha256.New()
	h.Write(data[:prefix])
	h.Write(data[int64(len(data))-suffix:])
	return hex.EncodeToString(h.Sum(nil))
}

// writeNote makes n path's append note, durably (the folder too when the
// note is new).
func writeNote(path string, n AppendNote) error {
	b, err := json.Marshal(n)
	if err != nil {
		return err
	}
	np := notePath(path)
	f, err := OpenFile(np, os.O_WRONLY, 0)
	created := false
	if errors.Is(err, fs.ErrNotExist) {
		f, err = OpenFile(np, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		created = true
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Truncate(0); err != nil {
		return err
	}
	if _, err := f.WriteAt(b, 0); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("fsync %s: %w", np, err)
	}
	if created {
		return SyncDir(filepath.Dir(np))
	}
	return nil
}
