package worktree

import (
	"fmt"
	"strings"

	"github.com/nudgethis/git-nudge/internal/pathenc"
)

// MaxPathLen bounds a path handed to this package (Linux's PATH_MAX).
const MaxPathLen = 4096

// PathError explains why a path was refused before any file was touched.
type PathError struct {
	Path   string
	Reason string
}

func (e *PathError) Error() string {
	return fmt.Sprintf("unsafe path %s: %s", pathenc.CQuote(e.Path), e.Reason)
}

// ValidPath reports whether p is a path this package may touch: relative to
// the work tree's top level, slash-separated, already clean (no empty, "."
// or ".." components, no leading or trailing slash), without NUL, and not
// inside a .git folder (any spelling git itself refuses: ".GIT", ".git.",
// "git~1"). Newlines, spaces, leading dashes, backslashes and other bytes
// are allowed: they are valid file names on the platforms git runs on here.
func ValidPath(p string) error {
	bad := func(reason string) error { return &PathError{Path: p, Reason: reason} }
	switch {
	case p == "":
		return bad("empty")
	case len(p) > MaxPathLen:
		return bad("too long")
	case strings.IndexByte(p, 0) >= 0:
		return bad("contains a NUL byte")
	case p[0] == '/':
		return bad("absolute")
	case p[len(p)-1] == '/':
		return bad("ends with a slash")
	}
	for _, c := range strings.Split(p, "/") {
		switch {
		case c == "":
			return bad("empty component")
		case c == "." || c == "..":
			return bad(`"." or ".." component`)
		case isDotGit(c):
			return bad("inside a .git folder")
		}
	}
	return nil
}

// isDotGit matches the spellings of ".git" that git's verify_path refuses
// (case-insensitive, with trailing dots or spaces, the NTFS short name).
func isDotGit(c string) bool {
	t := strings.TrimRight(c, ". ")
	return strings.EqualFold(t, ".git") || strings.EqualFold(c, "git~1")
}

// leading returns the leading folders of p: "a/b/c" -> ["a", "a/b"].
func leading(p string) []string {
	var out []string
	for i := 0; i < len(p); i++ {
		if p[i] == '/' {
			out = append(out, p[:i])
		}
	}
	return out
}

// parent returns the folder of p, or "" at the top level.
func parent(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return ""
	}
	return p[:i]
}
