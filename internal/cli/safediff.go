package cli

import (
	"fmt"
	"io"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/nudgethis/git-nudge/internal/pathenc"
)

// diffSGR matches a colour code as git writes it (ESC [ params m); which
// of them pass is decided by safeSGR.
var diffSGR = regexp.MustCompile(`^\x1b\[[0-9;]*m`)

// safeSGR reports whether an SGR code's parameters only colour or
// emphasise text: no conceal (8), blink (5, 6) or anything else that
// could hide a line of the patch from the reader.
func safeSGR(code string) bool {
	params := strings.TrimSuffix(strings.TrimPrefix(code, "\x1b["), "m")
	if params == "" {
		return true
	}
	ps := strings.Split(params, ";")
	for i := 0; i < len(ps); i++ {
		switch p := ps[i]; p {
		case "", "0", "1", "2", "3", "4", "7", "22", "23", "24", "27", "39", "49":
		case "38", "48": // 38;5;n or 38;2;r;g;b
			if i+1 < len(ps) && ps[i+1] == "5" {
				i += 2
			} else if i+1 < len(ps) && ps[i+1] == "2" {
				i += 4
			} else {
				return false
			}
		default:
			if len(p) == 2 && (p[0] == '3' || p[0] == '4' || p[0] == '9') && p[1] >= '0' && p[1] <= '7' {
				continue
			}
			if len(p) == 3 && p[:2] == "10" && p[2] >= '0' && p[2] <= '7' {
				continue
			}
			return false
		}
	}
	return true
}

// SafePatchWriter returns a writer for a patch shown on a terminal: the
// content of the task's files is in it, and a file holding escape
// sequences (an OSC 52 clipboard write, cursor movement, a line that
// conceals itself or is erased by a carriage return) must not drive the
// user's terminal. Line by line, every control character but tab and a
// carriage return right before the newline, every other unsafe character
// (pathenc.Unsafe) and every byte that is not UTF-8 is written as a
// visible escape, as pathenc.Text does; with color, git's colour codes
// (SGR sequences that only colour or emphasise) pass. Close writes a last
// line that has no newline. Never use it for a patch meant for git apply.
func SafePatchWriter(w io.Writer, color bool) io.WriteCloser {
	return &safePatchWriter{w: w, color: color}
}

type safePatchWriter struct {
	w     io.Writer
	color bool
	line  []byte
	b     strings.Builder
}

func (s *safePatchWriter) Write(p []byte) (int, error) {
	for _, c := range p {
		s.line = append(s.line, c)
		if c == '\n' {
			if err := s.emit(); err != nil {
				return 0, err
			}
		}
	}
	return len(p), nil
}

func (s *safePatchWriter) Close() error {
	if len(s.line) == 0 {
		return nil
	}
	return s.emit()
}

func (s *safePatchWriter) emit() error {
	line := string(s.line)
	s.line = s.line[:0]
	s.b.Reset()
	for i := 0; i < len(line); {
		if line[i] == 0x1b && s.color {
			if m := diffSGR.FindString(line[i:]); m != "" && safeSGR(m) {
				s.b.WriteString(m)
				i += len(m)
				continue
			}
		}
		r, n := utf8.DecodeRuneInString(line[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&s.b, `\%03o`, line[i])
		case r == '\n' || r == '\t' || (r == '\r' && line[i+1:] == "\n"):
			s.b.WriteRune(r)
		case !pathenc.Unsafe(r):
			s.b.WriteString(line[i : i+n])
		case r < 0x80:
			fmt.Fprintf(&s.b, `\%03o`, r)
		default:
			fmt.Fprintf(&s.b, `\u%04x`, r)
		}
		i += n
	}
	_, err := io.WriteString(s.w, s.b.String())
	return err
}
