package gitexec

// This file holds how git's command lines, standard input and output are
// spelled: quoting paths fed on stdin, literal pathspecs, NUL-separated
// records, and cat-file's marker-delimited contents.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
)

// QuoteStdinPath quotes p the way git's C-style unquoting reads it back, when
// a plain line would not carry it intact (a newline or carriage return, any
// other control byte, or a leading double quote).
func QuoteStdinPath(p string) string {
	need := strings.HasPrefix(p, `"`)
	for i := 0; i < len(p) && !need; i++ {
		if p[i] < 0x20 || p[i] == 0x7f {
			need = true
		}
	}
	if !need {
		return p
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 || c == 0x7f {
				fmt.Fprintf(&b, `\%03o`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// SplitZ splits NUL-terminated records.
func SplitZ(b []byte) []string {
	s := strings.TrimSuffix(string(b), "\x00")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\x00")
}

// MaxPathArgs is how many paths a command line may name; more could pass
// the system's limit on argument size (ARG_MAX), so callers read more
// broadly and filter instead.
const MaxPathArgs = 1000

// ZSplitter collects NUL-terminated records as they stream in and stops the
// producer once more than limit records are kept.
type ZSplitter struct {
	Limit int               // negative: no limit
	Keep  func(string) bool // whether a record counts towards Limit (nil: every one)
	// Cancel stops the producer once Limit is passed.
	Cancel func()
	Paths  []string // the records so far
	Over   bool     // more than Limit records were counted
	// Rest is what followed the last NUL (a complete output leaves none).
	Rest []byte
	kept int
}

func (z *ZSplitter) Write(p []byte) (int, error) {
	if z.Over {
		return 0, io.ErrClosedPipe
	}
	z.Rest = append(z.Rest, p...)
	for {
		i := bytes.IndexByte(z.Rest, 0)
		if i < 0 {
			break
		}
		path := string(z.Rest[:i])
		z.Rest = z.Rest[i+1:]
		z.Paths = append(z.Paths, path)
		if z.Keep == nil || z.Keep(path) {
			z.kept++
		}
		if z.Limit >= 0 && z.kept > z.Limit {
			z.Over = true
			z.Cancel()
			return 0, io.ErrClosedPipe
		}
	}
	return len(p), nil
}

// LiteralSpecs turns paths into top-level literal pathspecs.
func LiteralSpecs(paths []string) []string {
	specs := make([]string, len(paths))
	for i, p := range paths {
		specs[i] = ":(top,literal)" + p
	}
	return specs
}

// CopyUntil copies from src to w the bytes before "\n" followed by the
// line marker (which ends with a newline), and consumes both.
func CopyUntil(w io.Writer, src interface {
	ReadSlice(byte) ([]byte, error)
}, marker []byte) error {
	held := false // a newline read but not yet written: git's separator?
	for {
		seg, err := src.ReadSlice('\n')
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			if errors.Is(err, io.EOF) {
				return io.ErrUnexpectedEOF
			}
			return err
		}
		full := err != nil
		if held && !full && bytes.Equal(seg, marker) {
			return nil
		}
		if held {
			if _, err := w.Write([]byte{'\n'}); err != nil {
				return err
			}
			held = false
		}
		if !full {
			seg, held = seg[:len(seg)-1], true
		}
		if _, err := w.Write(seg); err != nil {
			return err
		}
	}
}
