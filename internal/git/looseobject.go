package git

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// looseObjectDir is the object folder where this process may write loose
// objects itself, the way git writes them by default (zlib, a temporary
// file in the fan-out folder linked to its name, read-only, no fsync), or
// "" when git must write them: the repository is shared with a group
// (core.sharedRepository: git sets permissions we would not), or a config
// file git reads mentions fsync (core.fsync could ask for loose objects to
// be flushed) or includes another file. A folder that cannot be read is
// left to git as well.
func (r *Repo) looseObjectDir() string {
	dir := filepath.Join(r.CommonDir, "objects")
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() || st.Mode()&(fs.ModeSetgid|0o020) != 0 {
		return ""
	}
	if r.configMentions("sharedrepository", "fsync") {
		return ""
	}
	return dir
}

// writeLooseObject stores an object of the given type and body under id
// (computed by the caller from the same bytes) in the object folder dir,
// unless a loose object of that name is there already. A packed copy is
// not looked for: a second, loose copy is harmless and gc drops it.
func writeLooseObject(dir, typ, id string, body []byte) error {
	if len(id) < 4 {
		return fmt.Errorf("writing object: bad id %q", id)
	}
	fan := filepath.Join(dir, id[:2])
	final := filepath.Join(fan, id[2:])
	if _, err := os.Lstat(final); err == nil {
		return nil
	}
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestSpeed)
	zw.Write(strconv.AppendInt([]byte(typ+" "), int64(len(body)), 10))
	zw.Write([]byte{0})
	zw.Write(body)
	if err := zw.Close(); err != nil {
		return err
	}
	f, err := os.CreateTemp(fan, "tmp_obj_")
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.Mkdir(fan, 0o777); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("writing object %s: %w", id, err)
		}
		f, err = os.CreateTemp(fan, "tmp_obj_")
	}
	if err != nil {
		return fmt.Errorf("writing object %s: %w", id, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if _, err := f.Write(z.Bytes()); err != nil {
		f.Close()
		return fmt.Errorf("writing object %s: %w", id, err)
	}
	if err := f.Chmod(0o444); err != nil {
		f.Close()
		return fmt.Errorf("writing object %s: %w", id, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing object %s: %w", id, err)
	}
	// A link never replaces an object already there (another writer's).
	if err := os.Link(tmp, final); err != nil && !errors.Is(err, fs.ErrExist) {
		if err := os.Rename(tmp, final); err != nil {
			return fmt.Errorf("writing object %s: %w", id, err)
		}
	}
	return nil
}
