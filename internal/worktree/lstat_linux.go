package worktree

import (
	"io/fs"
	"os"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// unix.Stat_t and syscall.Stat_t must be the same struct.
var _ [unsafe.Sizeof(unix.Stat_t{}) - unsafe.Sizeof(syscall.Stat_t{})]struct{}
var _ [unsafe.Sizeof(syscall.Stat_t{}) - unsafe.Sizeof(unix.Stat_t{})]struct{}

// lstatFast is Lstat of p (valid) in two system calls: the leading
// folders resolved by one openat2 that refuses any symlink and any way out
// of the top level (RESOLVE_BENEATH, RESOLVE_NO_SYMLINKS), then fstatat of
// the last name, not following it. Going through os.Root instead costs an
// open and a close per folder, and Lstat checked each leading folder on
// its own: sixteen calls for a path three folders deep, for every file of
// every look of apply, undo and their recording. ok is false whenever the
// slow way should answer: no openat2, a leading folder missing or not a
// plain folder (the slow way says which), any error.
func (r *RootFS) lstatFast(p string) (fi fs.FileInfo, ok bool) {
	top, err := r.topFile()
	if err != nil {
		return nil, false
	}
	dirfd, base := int(top.Fd()), p
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		fd, err := unix.Openat2(dirfd, p[:i], &unix.OpenHow{
			Flags:   unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC,
			Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
		})
		if err != nil {
			return nil, false
		}
		defer unix.Close(fd)
		dirfd, base = fd, p[i+1:]
	}
	var st unix.Stat_t
	if err := unix.Fstatat(dirfd, base, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		if err == unix.ENOENT {
			return nil, true
		}
		return nil, false
	}
	// Both are the kernel's struct stat of this platform.
	return &statInfo{name: base, sys: *(*syscall.Stat_t)(unsafe.Pointer(&st))}, true
}

// openReadFast opens the file p (valid) for reading in one system call:
// openat2 refusing any symlink (the file itself included) and any way out
// of the top level, non-blocking (a FIFO put there does not hang the
// open; a regular file reads as usual). ok is false whenever the slow way
// should answer (it says what is in the way).
func (r *RootFS) openReadFast(p string) (f *os.File, ok bool) {
	top, err := r.topFile()
	if err != nil {
		return nil, false
	}
	fd, err := unix.Openat2(int(top.Fd()), p, &unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	if err != nil {
		return nil, false
	}
	return os.NewFile(uintptr(fd), p), true
}

// topFile is the top level as an open folder, opened once through the
// root (so it is the same folder).
func (r *RootFS) topFile() (*os.File, error) {
	r.topOnce.Do(func() { r.top, r.topErr = r.root.Open(".") })
	return r.top, r.topErr
}

// statInfo is an fs.FileInfo from a stat, filled as package os fills its
// own (so that stamps from either compare equal).
type statInfo struct {
	name string
	sys  syscall.Stat_t
}

func (s *statInfo) Name() string       { return s.name }
func (s *statInfo) Size() int64        { return s.sys.Size }
func (s *statInfo) ModTime() time.Time { return time.Unix(s.sys.Mtim.Unix()) }
func (s *statInfo) IsDir() bool        { return s.Mode().IsDir() }
func (s *statInfo) Sys() any           { return &s.sys }
func (s *statInfo) Mode() fs.FileMode {
	m := fs.FileMode(s.sys.Mode & 0o777)
	switch s.sys.Mode & syscall.S_IFMT {
	case syscall.S_IFBLK:
		m |= fs.ModeDevice
	case syscall.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFDIR:
		m |= fs.ModeDir
	case syscall.S_IFIFO:
		m |= fs.ModeNamedPipe
	case syscall.S_IFLNK:
		m |= fs.ModeSymlink
	case syscall.S_IFSOCK:
		m |= fs.ModeSocket
	}
	if s.sys.Mode&syscall.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if s.sys.Mode&syscall.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if s.sys.Mode&syscall.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}
