package git

import (
	"bytes"
	"context"
	"fmt"
	"strings"
)

// BlobID is the id git gives data as a blob in this repository's hash
// format, computed without running git.
func (r *Repo) BlobID(data []byte) string {
	return r.ObjectID("blob", data)
}

// WriteBlobs stores the raw bytes of each file (absolute paths, anywhere
// on disk) as blobs, with no filter or end-of-line conversion, and returns
// their ids in order.
func (r *Repo) WriteBlobs(ctx context.Context, paths []string) ([]string, error) {
	return r.HashFilesRaw(ctx, paths, true)
}

// WriteBlob stores data as a blob and returns its id.
func (r *Repo) WriteBlob(ctx context.Context, data []byte) (string, error) {
	out, err := r.run(ctx, cmd{args: []string{"hash-object", "-w", "--no-filters", "--stdin"}, stdin: bytes.NewReader(data)})
	if err != nil {
		return "", err
	}
	id := strings.TrimSpace(string(out))
	if !r.validID(id) {
		return "", fmt.Errorf("git hash-object returned a malformed id %q", id)
	}
	return id, nil
}

// ReadBlob returns the bytes of blob id.
func (r *Repo) ReadBlob(ctx context.Context, id string) ([]byte, error) {
	if !r.validID(id) {
		return nil, fmt.Errorf("%q is not an object id", id)
	}
	return r.git(ctx, "cat-file", "blob", id)
}

// ConfigEntry is one key = value line of a config file, with the key as
// git spells it in --list (section and name lower case).
type ConfigEntry struct {
	Key, Value string
}

// ConfigFileEntries lists the entries of one config file exactly as
// written in it (its include directives are entries, not followed).
// file is an absolute path, or "blob:<id>" for a stored copy.
func (r *Repo) ConfigFileEntries(ctx context.Context, file string) ([]ConfigEntry, error) {
	src := []string{"--file", file}
	if id, ok := strings.CutPrefix(file, "blob:"); ok {
		if !r.validID(id) {
			return nil, fmt.Errorf("%q is not an object id", id)
		}
		src = []string{"--blob", id}
	}
	args := append([]string{"config", "--no-includes", "-z", "--list"}, src...)
	out, err := r.git(ctx, args...)
	if err != nil {
		return nil, err
	}
	var es []ConfigEntry
	for _, rec := range splitZ(out) {
		k, v, _ := strings.Cut(rec, "\n")
		es = append(es, ConfigEntry{Key: k, Value: v})
	}
	return es, nil
}
