package gitindex

// This file holds the last index file this process read or wrote, kept in memory (in
// pieces, as written) so that the next read of the same file costs no copy,
// and the buffers such a file is read into.

import (
	"bytes"
	"github.com/nudgethis/git-nudge/internal/gitstore"
	"os"
	"runtime"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// indexMemo is the last user index this process read (ReadIndexFile) or
// wrote (editIndex), so that the next reader of the same file takes it
// from memory: the file must have the same identity and the same trailing
// checksum (a hash of all its bytes), read again each time.
var indexMemo struct {
	sync.Mutex
	path  string
	id    gitstore.FileID
	data  *indexData
	tree  string
	plain bool
}

// indexData is an index file's bytes: as read, or as written, in the
// pieces editIndex wrote (runs of the file it edited, the new entries,
// the checksum last), joined only when someone asks for them whole.
type indexData struct {
	once   sync.Once
	pieces [][]byte
	size   int
	flat   []byte
}

func flatIndexData(b []byte) *indexData {
	return &indexData{pieces: [][]byte{b}, size: len(b)}
}

func (d *indexData) bytes() []byte {
	d.once.Do(func() {
		if len(d.pieces) == 1 {
			d.flat = d.pieces[0]
			return
		}
		b := pieces{list: d.pieces, size: d.size}
		d.flat = b.join()
	})
	return d.flat
}

// tail is the last n bytes (the checksum).
func (d *indexData) tail(n int) []byte {
	if last := d.pieces[len(d.pieces)-1]; len(last) >= n {
		return last[len(last)-n:]
	}
	b := d.bytes()
	return b[len(b)-n:]
}

func rememberIndex(path string, id gitstore.FileID, data *indexData, tree string, plain bool) {
	indexMemo.Lock()
	defer indexMemo.Unlock()
	indexMemo.path, indexMemo.id, indexMemo.data, indexMemo.tree, indexMemo.plain = path, id, data, tree, plain
}

// recalledIndex returns the remembered index when f (open at path, of
// identity id) is the same file with the same checksum.
func (r *Files) recalledIndex(path string, f *os.File, id gitstore.FileID) (data *indexData, tree string, plain, ok bool) {
	indexMemo.Lock()
	defer indexMemo.Unlock()
	n := r.HashLen()
	m := indexMemo.data
	if indexMemo.path != path || id == (gitstore.FileID{}) || indexMemo.id != id || m == nil || m.size < n || int64(m.size) != id.Size {
		return nil, "", false, false
	}
	sum := make([]byte, n)
	if _, err := f.ReadAt(sum, id.Size-int64(n)); err != nil || !bytes.Equal(sum, m.tail(n)) || bytes.Equal(sum, make([]byte, n)) {
		return nil, "", false, false
	}
	return m, indexMemo.tree, indexMemo.plain, true
}

const hugePage = 2 << 20

// bigBuffer returns n zero bytes for a file about to be read whole (the
// user's index: 10 MB at 100,000 files). On Linux the part of it that
// covers whole 2 MB pages is asked for as huge pages: a fresh buffer
// otherwise costs a page fault per 4 KB, 2,500 for 10 MB, which on a
// loaded machine took longer than the read itself (a 10 MB index read
// into a fresh buffer, one process each: 10.6 ms median, 36.8 ms at the
// 90th percentile, against 7.3 and 17.9 ms with huge pages).
func bigBuffer(n int) []byte {
	b := make([]byte, n)
	if runtime.GOOS != "linux" || n < 2*hugePage {
		return b
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	start := int((hugePage - p%hugePage) % hugePage)
	end := n - int((p+uintptr(n))%hugePage)
	if end > start {
		const madvHugepage = 14                      // MADV_HUGEPAGE on Linux
		_ = unix.Madvise(b[start:end], madvHugepage) // only advice
	}
	return b
}
