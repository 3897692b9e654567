package gitstore

// This file holds reading objects from packs in this process: the entry
// an index names, deltas resolved against their bases.

import (
	"bufio"
	"compress/zlib"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// ReadObjectHere reads an object in this process, loose or packed; ok is
// false when it cannot say (fastOK does not hold, the object is in no
// pack whose index it reads, a pack it does not understand), and git is
// to be asked. What it returns hashes to id.
func (r *Store) ReadObjectHere(id string) (typ string, data []byte, ok bool) {
	if !r.fastOK() || !r.validID(id) || r.MayReplace() {
		// With replace refs git would read another object's content.
		return "", nil, false
	}
	return r.readObjectDepth(id, 0)
}

// ObjectWalk reads many objects in this process one after the other (a
// chain of commits), keeping the pack entries it resolved, by pack and
// offset, for as long as it is used: the entries of one delta chain are
// inflated once for the whole walk instead of once for each object read
// through them (git keeps such a cache of delta bases too). Bounded by
// bytes. Not safe for concurrent use.
type ObjectWalk struct {
	r     *Store
	bases deltaBases
}

// NewObjectWalk starts a walk over r's objects.
func (r *Store) NewObjectWalk() *ObjectWalk { return &ObjectWalk{r: r} }

// Read is ReadObjectHere; data is shared with the walk and must not be
// changed.
func (w *ObjectWalk) Read(id string) (typ string, data []byte, ok bool) {
	if !w.r.fastOK() || !w.r.validID(id) || w.r.MayReplace() {
		return "", nil, false
	}
	return w.r.readObjectWith(id, 0, &w.bases)
}

// deltaBases is what a walk resolved from packs.
type deltaBases struct {
	m    map[baseKey]baseObject
	size int
}

type baseKey struct {
	pack *os.File
	off  int64
}

type baseObject struct {
	typ  string
	data []byte
}

// deltaBasesMax bounds the bytes one walk keeps; past it, it starts
// afresh.
const deltaBasesMax = 32 << 20

func (b *deltaBases) get(f *os.File, off int64) (baseObject, bool) {
	if b == nil {
		return baseObject{}, false
	}
	o, ok := b.m[baseKey{f, off}]
	return o, ok
}

func (b *deltaBases) put(f *os.File, off int64, typ string, data []byte) {
	if b == nil {
		return
	}
	if b.m == nil || b.size+len(data) > deltaBasesMax {
		b.m, b.size = map[baseKey]baseObject{}, 0
	}
	b.m[baseKey{f, off}] = baseObject{typ, data}
	b.size += len(data)
}

func (r *Store) readObjectDepth(id string, depth int) (string, []byte, bool) {
	return r.readObjectWith(id, depth, nil)
}

// readObjectWith is readObjectDepth keeping what it resolves from packs
// in bases (when set).
func (r *Store) readObjectWith(id string, depth int, bases *deltaBases) (string, []byte, bool) {
	typ, data, found, err := r.readLoose(id)
	if err != nil {
		return "", nil, false
	}
	if !found {
		pack, off, release, ok := r.packedAt(id)
		if !ok {
			return "", nil, false
		}
		typ, data, err = r.packEntry(pack, off, depth, bases)
		release()
		if err != nil {
			return "", nil, false
		}
		found = true
	}
	if !found || r.ObjectID(typ, data) != id {
		return "", nil, false
	}
	return typ, data, true
}

// packObjectTypes are the pack entry types of whole objects.
var packObjectTypes = [...]string{1: "commit", 2: "tree", 3: "blob", 4: "tag"}

// maxDeltaDepth bounds a delta chain (git's own default is 50).
const maxDeltaDepth = 100

// packEntry reads the entry at off of the pack f, from bases when it
// holds it, and keeps it there (when set).
func (r *Store) packEntry(f *os.File, off int64, depth int, bases *deltaBases) (string, []byte, error) {
	if o, ok := bases.get(f, off); ok {
		return o.typ, o.data, nil
	}
	typ, data, err := r.packEntryRead(f, off, depth, bases)
	if err == nil {
		bases.put(f, off, typ, data)
	}
	return typ, data, err
}

func (r *Store) packEntryRead(f *os.File, off int64, depth int, bases *deltaBases) (string, []byte, error) {
	if depth > maxDeltaDepth {
		return "", nil, errors.New("delta chain too deep")
	}
	br := bufio.NewReaderSize(io.NewSectionReader(f, off, 1<<62), 4096)
	head, _ := br.Peek(16) // a short read near the end is judged by packHeader
	kind, size, n, ok := packHeader(head)
	if !ok {
		return "", nil, errors.New("bad pack entry header")
	}
	br.Discard(n)
	switch kind {
	case 1, 2, 3, 4:
		data, err := inflateN(br, size)
		return packObjectTypes[kind], data, err
	case 6: // a delta against the entry rel bytes before this one
		rel, ok := deltaOffset(br, off)
		if !ok {
			return "", nil, errors.New("bad delta offset")
		}
		delta, err := inflateN(br, size)
		if err != nil {
			return "", nil, err
		}
		typ, base, err := r.packEntry(f, off-rel, depth+1, bases)
		if err != nil {
			return "", nil, err
		}
		out, err := applyDelta(base, delta)
		return typ, out, err
	case 7: // a delta against the object named
		raw := make([]byte, r.HashLen())
		if _, err := io.ReadFull(br, raw); err != nil {
			return "", nil, err
		}
		delta, err := inflateN(br, size)
		if err != nil {
			return "", nil, err
		}
		typ, base, ok := r.readObjectWith(hex.EncodeToString(raw), depth+1, bases)
		if !ok {
			return "", nil, errors.New("delta base not readable here")
		}
		out, err := applyDelta(base, delta)
		return typ, out, err
	}
	return "", nil, fmt.Errorf("pack entry of type %d", kind)
}

// packHeader reads the header of a pack entry at the start of b: its kind
// (1-4 an object's type, 6 and 7 deltas), its size (a delta's own size
// for a delta) and the header's length.
func packHeader(b []byte) (kind int, size uint64, n int, ok bool) {
	if len(b) == 0 {
		return 0, 0, 0, false
	}
	c := b[0]
	kind, size, n = int(c>>4)&7, uint64(c&15), 1
	for shift := 4; c&0x80 != 0; shift += 7 {
		if shift > 56 || n >= len(b) {
			return 0, 0, 0, false
		}
		c = b[n]
		n++
		size |= uint64(c&0x7f) << shift
	}
	return kind, size, n, true
}

// inflateN inflates exactly size bytes.
func inflateN(r io.Reader, size uint64) ([]byte, error) {
	if size > 256<<20 {
		return nil, errors.New("object too large to read here")
	}
	zr, err := getZlibReader(r)
	if err != nil {
		return nil, err
	}
	defer zlibReaders.Put(zr)
	data := make([]byte, size)
	if _, err := io.ReadFull(zr, data); err != nil {
		return nil, err
	}
	return data, nil
}

// zlibReaders are reused from one object read here to the next: a new
// decompressor allocates tens of kilobytes, more than inflating the small
// objects (trees, blobs of a patch, headers) a command reads. getZlibReader
// takes one, reset to read r; put it back with zlibReaders.Put.
var zlibReaders sync.Pool

func getZlibReader(r io.Reader) (io.ReadCloser, error) {
	if zr, ok := zlibReaders.Get().(io.ReadCloser); ok {
		if err := zr.(zlib.Resetter).Reset(r, nil); err != nil {
			return nil, err
		}
		return zr, nil
	}
	return zlib.NewReader(r)
}

// applyDelta rebuilds an object from its base and a git delta.
func applyDelta(base, delta []byte) ([]byte, error) {
	bad := errors.New("corrupt delta")
	varint := func() (uint64, bool) {
		var v uint64
		for shift := 0; shift < 64; shift += 7 {
			if len(delta) == 0 {
				return 0, false
			}
			c := delta[0]
			delta = delta[1:]
			v |= uint64(c&0x7f) << shift
			if c&0x80 == 0 {
				return v, true
			}
		}
		return 0, false
	}
	src, ok1 := varint()
	dst, ok2 := varint()
	if !ok1 || !ok2 || src != uint64(len(base)) || dst > 256<<20 {
		return nil, bad
	}
	out := make([]byte, 0, dst)
	for len(delta) > 0 {
		c := delta[0]
		delta = delta[1:]
		switch {
		case c&0x80 != 0:
			var off, n uint64
			for i := 0; i < 7; i++ {
				if c&(1<<i) == 0 {
					continue
				}
				if len(delta) == 0 {
					return nil, bad
				}
				if i < 4 {
					off |= uint64(delta[0]) << (8 * i)
				} else {
					n |= uint64(delta[0]) << (8 * (i - 4))
				}
				delta = delta[1:]
			}
			if n == 0 {
				n = 0x10000
			}
			if off+n > uint64(len(base)) || uint64(len(out))+n > dst {
				return nil, bad
			}
			out = append(out, base[off:off+n]...)
		case c != 0:
			if int(c) > len(delta) || uint64(len(out))+uint64(c) > dst {
				return nil, bad
			}
			out = append(out, delta[:c]...)
			delta = delta[c:]
		default:
			return nil, bad
		}
	}
	if uint64(len(out)) != dst {
		return nil, bad
	}
	return out, nil
}

// packEntryInfo describes the entry at off of the pack f: a whole entry
// by its header; a delta by its base's type (the chain followed by
// headers only) and the size the delta declares for its result (its
// first bytes inflated).
func (r *Store) packEntryInfo(f *os.File, off int64, depth int) (ObjectInfo, bool) {
	if depth > maxDeltaDepth {
		return ObjectInfo{}, false
	}
	br := bufio.NewReaderSize(io.NewSectionReader(f, off, 1<<62), 512)
	head, _ := br.Peek(16)
	kind, size, n, ok := packHeader(head)
	if !ok {
		return ObjectInfo{}, false
	}
	br.Discard(n)
	switch kind {
	case 1, 2, 3, 4:
		return ObjectInfo{Type: packObjectTypes[kind], Size: int64(size)}, true
	case 6, 7:
	default:
		return ObjectInfo{}, false
	}
	var base func() (ObjectInfo, bool)
	if kind == 6 {
		rel, ok := deltaOffset(br, off)
		if !ok {
			return ObjectInfo{}, false
		}
		base = func() (ObjectInfo, bool) { return r.packEntryInfo(f, off-rel, depth+1) }
	} else {
		raw := make([]byte, r.HashLen())
		if _, err := io.ReadFull(br, raw); err != nil {
			return ObjectInfo{}, false
		}
		base = func() (ObjectInfo, bool) { return r.objectInfoDepth(hex.EncodeToString(raw), depth+1) }
	}
	// The delta starts with the base's size and the result's (varints).
	zr, err := getZlibReader(br)
	if err != nil {
		return ObjectInfo{}, false
	}
	var b [20]byte
	m, _ := io.ReadFull(zr, b[:min(len(b), int(min(size, 20)))])
	zlibReaders.Put(zr)
	d := b[:m]
	var sizes [2]uint64
	for i := range sizes {
		for shift := 0; ; shift += 7 {
			if len(d) == 0 || shift > 56 {
				return ObjectInfo{}, false
			}
			c := d[0]
			d = d[1:]
			sizes[i] |= uint64(c&0x7f) << shift
			if c&0x80 == 0 {
				break
			}
		}
	}
	info, ok := base()
	if !ok {
		return ObjectInfo{}, false
	}
	return ObjectInfo{Type: info.Type, Size: int64(sizes[1])}, true
}

// deltaOffset reads an offset delta's distance back to its base, which
// must lie before off.
func deltaOffset(br *bufio.Reader, off int64) (int64, bool) {
	c, err := br.ReadByte()
	if err != nil {
		return 0, false
	}
	rel := uint64(c & 0x7f)
	for c&0x80 != 0 {
		if c, err = br.ReadByte(); err != nil || rel > 1<<55 {
			return 0, false
		}
		rel = (rel+1)<<7 | uint64(c&0x7f)
	}
	if rel == 0 || rel > uint64(off) {
		return 0, false
	}
	return int64(rel), true
}
