// Package cli holds the pieces both command lines share: the process
// environment handed to commands, exit statuses, refusal errors, JSON and
// coloured output, man pages and shell completion. Kong types stop here and
// in the command packages; workflows below never see them.
package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/nudgethis/git-nudge/internal/pathenc"
	"github.com/nudgethis/git-nudge/internal/refusal"
)

// Version is set at build time by install.sh (-ldflags -X); otherwise the
// module version from the build info is used.
var Version = ""

// VersionString returns the version to print for --version.
func VersionString() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "0.1.0-dev"
}

// Exit statuses.
const (
	ExitOK      = 0
	ExitFailed  = 1 // refused or failed: the message says what to do next
	ExitUsage   = 2 // the command line itself is wrong
	exitUnknown = 1
)

// Env is what a command may use of the process: streams, working directory,
// environment, clock. Commands take it bound by kong, never from os directly,
// so tests can run them in-process too.
type Env struct {
	Ctx    context.Context
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Dir    string
	Getenv func(string) string
	// Environ is the environment the user's programs are started with
	// (a task's command, setup and validation commands).
	Environ func() []string
	Now     func() time.Time
	// Terminal is true when stdout is a terminal: diff then bounds and
	// escapes what it prints.
	Terminal bool
	// Color is true when stdout is a terminal and NO_COLOR is not set.
	Color bool
}

// NewProcessEnv returns the Env of the running process.
func NewProcessEnv(ctx context.Context) *Env {
	dir, _ := os.Getwd()
	return &Env{
		Ctx:      ctx,
		Stdin:    os.Stdin,
		Stdout:   os.Stdout,
		Stderr:   os.Stderr,
		Dir:      dir,
		Getenv:   os.Getenv,
		Environ:  os.Environ,
		Now:      time.Now,
		Terminal: IsTerminal(os.Stdout),
		Color:    colorWanted(os.Stdout, os.Getenv),
	}
}

// lookup is env's variable k, "" when it is not set or env has no
// environment at all.
func (e *Env) lookup(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

func colorWanted(f *os.File, getenv func(string) string) bool {
	if getenv("NO_COLOR") != "" || getenv("TERM") == "dumb" {
		return false
	}
	return IsTerminal(f)
}

// IsTerminal reports whether f is a terminal (not merely a character
// device: /dev/null is one too, and a script's stdin often is it).
func IsTerminal(f *os.File) bool {
	return term.IsTerminal(int(f.Fd()))
}

// Printf writes human text to stdout. Text a task chose (a file name, a
// label) cannot drive the terminal: control characters, bidirectional
// controls and invalid UTF-8 are escaped (pathenc.Text); only the colour
// codes of Paint pass, and only when colour is on.
func (e *Env) Printf(format string, a ...any) {
	io.WriteString(e.Stdout, e.safeText(fmt.Sprintf(format, a...)))
}

// Warnf writes a diagnostic to stderr, escaped as Printf's text.
func (e *Env) Warnf(format string, a ...any) {
	io.WriteString(e.Stderr, pathenc.Text(fmt.Sprintf(format, a...)))
}

// sgr matches the colour codes Paint writes (reset, bold, foreground
// colours); nothing else, so that even with colour on a task's text cannot
// conceal, blink or reverse what follows it.
var sgr = regexp.MustCompile("\x1b\\[(?:0|1|(?:1;)?3[0-7])m")

// safeText escapes s for the terminal, keeping Paint's colour codes when
// colour is on.
func (e *Env) safeText(s string) string {
	if !e.Color {
		return pathenc.Text(s)
	}
	var b strings.Builder
	last := 0
	for _, m := range sgr.FindAllStringIndex(s, -1) {
		b.WriteString(pathenc.Text(s[last:m[0]]))
		b.WriteString(s[m[0]:m[1]])
		last = m[1]
	}
	b.WriteString(pathenc.Text(s[last:]))
	return b.String()
}

// JSON writes v as one indented JSON document on stdout. C1 controls and
// bidirectional controls, which encoding/json leaves raw, are written as
// \u escapes (the same strings to a JSON reader), so that a name a task
// chose cannot drive the terminal that shows the document.
func (e *Env) JSON(v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := io.WriteString(e.Stdout, jsonEscapeUnsafe(b.String()))
	return err
}

// jsonEscapeUnsafe replaces the runes pathenc.Unsafe names in a JSON
// document with \u escapes. Outside strings a document is ASCII, so every
// such rune is inside a string, where the escape means the same rune.
func jsonEscapeUnsafe(doc string) string {
	if strings.IndexFunc(doc, func(r rune) bool { return r >= 0x7f && pathenc.Unsafe(r) }) < 0 {
		return doc
	}
	var b strings.Builder
	for _, r := range doc {
		if r >= 0x7f && pathenc.Unsafe(r) {
			fmt.Fprintf(&b, "\\u%04x", r)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Paint wraps s in an SGR colour code when colour is on ("1;31" bold red...).
func (e *Env) Paint(code, s string) string {
	if !e.Color || code == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// ExitError makes the process exit with Code; Err (if any) is printed first.
// A command passing its child's exit status through uses it with a nil Err.
type ExitError struct {
	Code int
	Err  error
	// Plain prints Err as it is, without the program name in front.
	Plain bool
	// Usage marks a command line found wrong after parsing: Program.Main
	// follows the message with the hint to the command's -h, as for a
	// command line kong refuses.
	Usage bool
}

// UsageError is the error of a command line a command finds wrong after
// parsing (a value out of range, a missing part): exit status ExitUsage,
// err's message, and the hint to the command's help.
func UsageError(err error) *ExitError {
	return &ExitError{Code: ExitUsage, Err: err, Usage: true}
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// Refusal is a command declining to act, with every reason at once and what
// to do next. Nothing was changed when a Refusal is returned. It is the
// workflows' nudge.RefusedError too: one type (internal/refusal).
type Refusal = refusal.Refusal

// Report prints err (if any) to stderr prefixed with the program name and
// returns the exit status it stands for.
func Report(stderr io.Writer, prog string, err error) int {
	if err == nil {
		return ExitOK
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		switch {
		case ee.Err != nil && ee.Plain:
			fmt.Fprintf(stderr, "%s\n", pathenc.Text(ee.Err.Error()))
		case ee.Err != nil:
			fmt.Fprintf(stderr, "%s: %s\n", prog, pathenc.Text(ee.Err.Error()))
		}
		return ee.Code
	}
	if errors.Is(err, context.Canceled) {
		fmt.Fprintf(stderr, "%s: interrupted\n", prog)
		return 130
	}
	// Messages may quote what a task wrote (file names, git's own
	// errors about them): nothing in them may drive the terminal.
	fmt.Fprintf(stderr, "%s: %s\n", prog, pathenc.Text(err.Error()))
	return exitUnknown
}

// Forwarding is how a command that runs another program passes signals on.
type Forwarding struct {
	Signals <-chan os.Signal
	// Skip declines SIGINT when stdin is a terminal: Ctrl-C already reaches
	// the program there (same process group), and passing it on would
	// deliver it twice.
	Skip func(os.Signal) bool
	// Group is true when stdin is not a terminal: the program can then run
	// in a process group of its own, so that forwarded signals reach all
	// it started. (A program in a background group cannot read a terminal.)
	Group bool
	// Stop ends the catching; call it when the program has ended.
	Stop func()
}

// ForwardSignals catches SIGINT and SIGTERM for a command that runs another
// program, so that they reach that program instead of ending this one.
//
// SIGTERM still always ends the command: one that no running
// program takes within TermGrace (the command is busy with something else,
// or between programs) ends it. A second one (the program ignored the
// first) is passed on as SIGKILL, so the program and its process group
// end and the command finishes as for any killed program; should the
// command still run TermGrace after that, or no program take it, it ends.
func (e *Env) ForwardSignals() Forwarding {
	raw := make(chan os.Signal, 8)
	signal.Notify(raw, os.Interrupt, syscall.SIGTERM)
	// Unbuffered: a send succeeds only while a program runs and its
	// forwarder (proc.Run) takes it.
	c := make(chan os.Signal)
	stop := make(chan struct{})
	go func() {
		terms := 0
		for {
			var sig os.Signal
			select {
			case <-stop:
				return
			case sig = <-raw:
			}
			if sig == syscall.SIGTERM {
				if terms++; terms > 1 {
					select {
					case c <- syscall.SIGKILL:
						time.Sleep(TermGrace)
					case <-time.After(TermGrace):
					}
					dieOfSIGTERM()
				}
			}
			select {
			case c <- sig:
			case <-stop:
				return
			case <-time.After(TermGrace):
				if sig == syscall.SIGTERM {
					dieOfSIGTERM()
				}
			}
		}
	}()
	// A reader of our output that goes away (git nudge run ... | head)
	// must not end this process while it still has a capture to finish:
	// with SIGPIPE caught, a write to the closed pipe fails with EPIPE
	// instead (the program itself gets SIGPIPE's default again on exec).
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	fromTerminal := false
	if f, ok := e.Stdin.(*os.File); ok {
		fromTerminal = IsTerminal(f)
	}
	var once bool
	return Forwarding{
		Signals: c,
		Skip:    func(s os.Signal) bool { return fromTerminal && s == os.Interrupt },
		Group:   !fromTerminal,
		Stop: func() {
			signal.Stop(raw)
			signal.Stop(pipe)
			if !once {
				once = true
				close(stop)
			}
		},
	}
}

// TermGrace is how long a SIGTERM waits for a running program to take it
// before it ends the command itself.
const TermGrace = 2 * time.Second

// dieOfSIGTERM ends the process as an uncaught SIGTERM would (status 143
// to a shell). Locks are flocks, which the kernel lets go of, and
// journals are written by rename, so nothing is left half-written.
func dieOfSIGTERM() {
	signal.Reset(syscall.SIGTERM)
	_ = syscall.Kill(os.Getpid(), syscall.SIGTERM)
	time.Sleep(time.Second)
	os.Exit(143)
}

// ErrorDocument is what a command given --json prints on stdout when it is
// refused or fails (the human message still goes to stderr).
type ErrorDocument = refusal.Document

// ErrorJSON builds the error document of err, which ended the command with
// exit status code.
func ErrorJSON(err error, code int) ErrorDocument {
	var ee *ExitError
	if errors.As(err, &ee) && ee.Err == nil {
		return ErrorDocument{Error: fmt.Sprintf("exit status %d", code), Reasons: []string{}, Exit: code}
	}
	return refusal.DocumentOf(err, code)
}

// WriteErrorJSON prints err's error document (see ErrorJSON) on w.
func WriteErrorJSON(w io.Writer, err error, code int) {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	_ = enc.Encode(ErrorJSON(err, code))
}
