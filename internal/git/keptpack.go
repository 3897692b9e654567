package git

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// KeptPack is a pack with a .keep file: git gc and git repack leave it as
// it is (its objects are neither repacked nor loosened), so whoever wrote
// it decides when it goes. Base is its path without the extension; Note
// is what its .keep file says.
type KeptPack struct {
	Base, Note string
}

// packDir is the folder of the repository's packs, or "" when objects
// live where this process does not look for them (GIT_OBJECT_DIRECTORY).
func (r *Repo) packDir() string {
	if os.Getenv("GIT_OBJECT_DIRECTORY") != "" {
		return ""
	}
	return filepath.Join(r.CommonDir, "objects", "pack")
}

// WriteKeptPack writes the objects ids into one new pack kept by a .keep
// file that says note, then removes their loose copies (git reads them
// from the pack from then on, as after git repack -d). It returns the
// pack's base path, or "" when objects cannot be packed here.
func (r *Repo) WriteKeptPack(ctx context.Context, ids []string, note string) (string, error) {
	dir := r.packDir()
	if dir == "" || len(ids) == 0 {
		return "", nil
	}
	var in bytes.Buffer
	for _, id := range ids {
		if !r.ValidID(id) {
			return "", fmt.Errorf("not an object id: %q", id)
		}
		in.WriteString(id + "\n")
	}
	pack, err := r.run(ctx, cmd{Args: []string{"pack-objects", "--stdout", "-q"}, Stdin: &in})
	if err != nil {
		return "", err
	}
	// index-pack writes the .keep before the pack is in place, so that a
	// repack running meanwhile never takes it.
	out, err := r.run(ctx, cmd{Args: []string{"index-pack", "--stdin", "--keep=" + note}, Stdin: bytes.NewReader(pack)})
	if err != nil {
		return "", err
	}
	_, hash, ok := strings.Cut(strings.TrimSpace(string(out)), "\t")
	if !ok || !r.ValidID(hash) {
		return "", fmt.Errorf("git index-pack said %q", out)
	}
	objects := filepath.Dir(dir)
	for _, id := range ids {
		_ = os.Remove(filepath.Join(objects, id[:2], id[2:]))
	}
	return filepath.Join(dir, "pack-"+hash), nil
}

// KeptPacks lists the kept packs whose .keep note starts with prefix.
func (r *Repo) KeptPacks(prefix string) ([]KeptPack, error) {
	dir := r.packDir()
	if dir == "" {
		return nil, nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	var out []KeptPack
	for _, e := range ents {
		base, ok := strings.CutSuffix(e.Name(), ".keep")
		if !ok {
			continue
		}
		note, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil || !strings.HasPrefix(string(note), prefix) {
			continue
		}
		out = append(out, KeptPack{Base: filepath.Join(dir, base), Note: strings.TrimRight(string(note), "\n")})
	}
	return out, nil
}

// PackObjects lists the ids of the objects a pack holds, read from its
// version 2 index.
func (r *Repo) PackObjects(p KeptPack) ([]string, error) {
	idx, err := os.ReadFile(p.Base + ".idx")
	if err != nil {
		return nil, err
	}
	size := len(r.ZeroID()) / 2
	const head = 8 + 256*4
	if len(idx) < head || !bytes.Equal(idx[:4], []byte{0xff, 't', 'O', 'c'}) || binary.BigEndian.Uint32(idx[4:8]) != 2 {
		return nil, fmt.Errorf("%s.idx: not a version 2 pack index", p.Base)
	}
	n := int(binary.BigEndian.Uint32(idx[head-4 : head]))
	if len(idx) < head+n*size {
		return nil, fmt.Errorf("%s.idx: truncated", p.Base)
	}
	ids := make([]string, n)
	for i := range ids {
		ids[i] = hex.EncodeToString(idx[head+i*size : head+(i+1)*size])
	}
	return ids, nil
}

// Unreachable reports which of the commits reachable from tips no ref,
// HEAD or reflog of any worktree reaches (what git prune would remove).
// It fails when a commit it walks to is missing.
func (r *Repo) Unreachable(ctx context.Context, tips []string) (map[string]bool, error) {
	args := append([]string{"rev-list", "--not", "--all", "--reflog", "--not", "--end-of-options"}, tips...)
	out, err := r.git(ctx, append(args, "--")...)
	if err != nil {
		return nil, err
	}
	m := map[string]bool{}
	for _, id := range strings.Fields(string(out)) {
		m[id] = true
	}
	return m, nil
}

// GCRunning reports whether a git gc may be running in the repository
// (its gc.pid is younger than the 12 hours after which git itself stops
// believing it).
func (r *Repo) GCRunning() bool {
	st, err := os.Stat(filepath.Join(r.CommonDir, "gc.pid"))
	return err == nil && time.Since(st.ModTime()) < 12*time.Hour
}

// RemoveKeptPack deletes a kept pack: its index first (new readers stop
// seeing it), then the pack, then the rest, the .keep last.
func (r *Repo) RemoveKeptPack(p KeptPack) error {
	for _, ext := range []string{".idx", ".pack", ".rev", ".mtimes", ".bitmap", ".promisor"} {
		if err := os.Remove(p.Base + ext); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	return os.Remove(p.Base + ".keep")
}
