package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

func TestRefusalListsEveryReason(t *testing.T) {
	r := &Refusal{
		What:    "cannot apply t3",
		Reasons: []string{"a.txt changed since the snapshot.", "b.txt was deleted.", "the index has staged changes."},
		Next:    "Commit or stash those changes, then run git nudge apply t3 again.",
	}
	want := "cannot apply t3:\n  - a.txt changed since the snapshot.\n  - b.txt was deleted.\n  - the index has staged changes.\nCommit or stash those changes, then run git nudge apply t3 again."
	if got := r.Error(); got != want {
		t.Errorf("Refusal.Error() =\n%s\nwant\n%s", got, want)
	}
	one := &Refusal{What: "cannot undo t2", Reasons: []string{"it was never applied."}}
	if got := one.Error(); got != "cannot undo t2: it was never applied." {
		t.Errorf("one reason: %q", got)
	}
	none := &Refusal{What: "cannot save", Next: "Apply a task first."}
	if got := none.Error(); got != "cannot save\nApply a task first." {
		t.Errorf("no reasons: %q", got)
	}
}

func TestReportExitCodes(t *testing.T) {
	refusal := &Refusal{What: "cannot apply t3", Reasons: []string{"one.", "two."}}
	cases := []struct {
		name   string
		err    error
		code   int
		stderr string
	}{
		{"nil", nil, 0, ""},
		{"refusal", refusal, 1, "git nudge: cannot apply t3:\n  - one.\n  - two.\n"},
		{"wrapped refusal", fmt.Errorf("outer: %w", refusal), 1, "git nudge: outer: cannot apply t3:\n  - one.\n  - two.\n"},
		{"plain error", errors.New("boom"), 1, "git nudge: boom\n"},
		{"pass-through status", &ExitError{Code: 7}, 7, ""},
		{"pass-through zero", &ExitError{Code: 0}, 0, ""},
		{"exit with message", &ExitError{Code: 3, Err: errors.New("task failed")}, 3, "git nudge: task failed\n"},
		{"wrapped exit", fmt.Errorf("run: %w", &ExitError{Code: 42}), 42, ""},
		{"interrupted", fmt.Errorf("waiting: %w", context.Canceled), 130, "git nudge: interrupted\n"},
	}
	for _, c := range cases {
		var stderr bytes.Buffer
		if got := Report(&stderr, "git nudge", c.err); got != c.code || stderr.String() != c.stderr {
			t.Errorf("%s: Report = %d, stderr %q; want %d, %q", c.name, got, stderr.String(), c.code, c.stderr)
		}
	}
	if (&ExitError{Code: 5}).Error() != "exit status 5" {
		t.Errorf("ExitError without Err: %q", (&ExitError{Code: 5}).Error())
	}
}

func TestPaintHonoursColor(t *testing.T) {
	on := &Env{Color: true}
	off := &Env{Color: false}
	if got := on.Paint("1;31", "refused"); got != "\x1b[1;31mrefused\x1b[0m" {
		t.Errorf("Paint with colour = %q", got)
	}
	if got := on.Paint("", "plain"); got != "plain" {
		t.Errorf("Paint with an empty code = %q", got)
	}
	if got := off.Paint("1;31", "refused"); got != "refused" {
		t.Errorf("Paint without colour = %q", got)
	}
}

func TestColorWanted(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if colorWanted(f, env(nil)) {
		t.Error("colour wanted on a regular file")
	}
	if IsTerminal(f) {
		t.Error("a regular file is a terminal")
	}
	tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no terminal to test the positive case:", err)
	}
	defer tty.Close()
	if !colorWanted(tty, env(nil)) {
		t.Error("colour not wanted on a terminal")
	}
	if colorWanted(tty, env(map[string]string{"NO_COLOR": "1"})) {
		t.Error("NO_COLOR ignored")
	}
	if colorWanted(tty, env(map[string]string{"TERM": "dumb"})) {
		t.Error("TERM=dumb ignored")
	}
}

func TestJSONOutput(t *testing.T) {
	var out bytes.Buffer
	e := &Env{Stdout: &out}
	if err := e.JSON(map[string]any{"path": "a<b>&c", "ids": []string{"t1"}}); err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"ids\": [\n    \"t1\"\n  ],\n  \"path\": \"a<b>&c\"\n}\n"
	if out.String() != want {
		t.Errorf("JSON = %q, want %q", out.String(), want)
	}
}

// A small program through the shared runner: exit statuses 0/1/2, the
// pass-through status, --version and completion.
type testCLI struct {
	Version    kong.VersionFlag `help:"Print the version."`
	Refuse     refuseCmd        `cmd:"" help:"Refuse."`
	Pass       passCmd          `cmd:"" help:"Pass a status through."`
	Hello      helloCmd         `cmd:"" help:"Say hello."`
	Completion CompletionCmd    `cmd:"" hidden:""`
}

type refuseCmd struct{}

func (refuseCmd) Run(env *Env) error {
	return &Refusal{What: "cannot do it", Reasons: []string{"first reason.", "second reason."}, Next: "Try again later."}
}

type passCmd struct {
	Code int `arg:""`
}

func (c passCmd) Run(env *Env) error { return &ExitError{Code: c.Code} }

type helloCmd struct {
	JSON bool `help:"JSON output."`
}

func (c helloCmd) Run(env *Env) error {
	if c.JSON {
		return env.JSON(map[string]string{"hello": "world"})
	}
	env.Printf("hello\n")
	return nil
}

func runTest(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	env := &Env{Ctx: context.Background(), Stdout: &o, Stderr: &e, Getenv: func(string) string { return "" }}
	p := Program{Name: "git-test", Description: "A test program.", Model: &testCLI{}}
	code = p.Main(args, env)
	return code, o.String(), e.String()
}

func TestProgramMain(t *testing.T) {
	if code, out, errs := runTest("hello"); code != 0 || out != "hello\n" || errs != "" {
		t.Errorf("hello: %d %q %q", code, out, errs)
	}
	if code, out, _ := runTest("hello", "--json"); code != 0 || out != "{\n  \"hello\": \"world\"\n}\n" {
		t.Errorf("hello --json: %d %q", code, out)
	}
	if code, out, errs := runTest("refuse"); code != 1 || out != "" ||
		errs != "git test: cannot do it:\n  - first reason.\n  - second reason.\nTry again later.\n" {
		t.Errorf("refuse: %d %q %q", code, out, errs)
	}
	if code, _, errs := runTest("pass", "9"); code != 9 || errs != "" {
		t.Errorf("pass 9: %d %q", code, errs)
	}
	// A usage error points to the help of the command it happened in.
	for _, c := range []struct {
		args []string
		help string
	}{{[]string{"--bogus"}, "git test"}, {[]string{"nosuch"}, "git test"}, {[]string{"pass", "notanumber"}, "git test pass"}, {[]string{"pass"}, "git test pass"}} {
		code, _, errs := runTest(c.args...)
		if code != 2 || !strings.Contains(errs, "Run '"+c.help+" -h' for usage.") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a pointer to %s -h", c.args, code, errs, c.help)
		}
	}
	if code, out, _ := runTest("--version"); code != 0 || out != "git-test version "+VersionString()+"\n" {
		t.Errorf("--version: %d %q", code, out)
	}
	if code, out, _ := runTest("-h"); code != 0 || !strings.Contains(out, "Usage: git-test") {
		t.Errorf("-h: %d %q", code, out)
	}
	for shell, want := range map[string]string{
		"bash": "complete -C git-test git-test",
		"zsh":  "#compdef git-test",
		"fish": "complete -f -c git -n '__fish_seen_subcommand_from test'",
	} {
		if code, out, _ := runTest("completion", shell); code != 0 || !strings.Contains(out, want) {
			t.Errorf("completion %s: %d, output lacks %q:\n%s", shell, code, want, out)
		}
	}
}

// A program's own exit status rules follow the common ones.
func TestManPageExitNote(t *testing.T) {
	p := Program{Name: "git-test", Description: "A test program.", Model: &testCLI{}, ExitNote: "Outside a repository it exits 0."}
	page, err := p.ManPage()
	if err != nil {
		t.Fatal(err)
	}
	exit := page[strings.Index(page, ".SH EXIT STATUS"):]
	if i := strings.Index(exit, ".SH ENVIRONMENT"); i < 0 || !strings.Contains(exit[:i], "Outside a repository it exits 0.") {
		t.Errorf("EXIT STATUS lacks the program's note:\n%s", exit)
	}
}

func TestManPageDate(t *testing.T) {
	p := Program{Name: "git-test", Description: "A test program.", Model: &testCLI{}}
	page, err := p.ManPage()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page, `"`+ManDate+`"`) || !strings.Contains(page, ".SH EXIT STATUS") {
		t.Errorf("man page lacks the fixed date or the exit status section:\n%s", page[:min(len(page), 400)])
	}
}

// Human output and error messages cannot drive the terminal: control,
// C1 and bidi characters a task chose are escaped; Paint's colour codes
// pass only when colour is on.
func TestOutputEscapesTerminalControls(t *testing.T) {
	evil := "x\x1b]0;owned\a\u009b2J\u202etxt\xff"
	for _, color := range []bool{false, true} {
		var out, errb bytes.Buffer
		env := &Env{Stdout: &out, Stderr: &errb, Color: color}
		env.Printf("%s %s\n", env.Paint("1", "t1"), evil)
		env.Warnf("warn %s\n", evil)
		Report(&errb, "git nudge", fmt.Errorf("cannot apply: %s", evil))
		Report(&errb, "git nudge", &ExitError{Code: 1, Err: errors.New(evil)})
		for _, s := range []string{out.String(), errb.String()} {
			if strings.ContainsAny(s, "\a\u009b\u202e") || strings.Contains(s, "\xff") || strings.Contains(s, "\x1b]") {
				t.Errorf("color=%v: raw control reached the output: %q", color, s)
			}
		}
		wantOut := `t1 x\033]0;owned\007\u009b2J\u202etxt\377` + "\n"
		if color {
			wantOut = "\x1b[1mt1\x1b[0m" + wantOut[2:]
		}
		if out.String() != wantOut {
			t.Errorf("color=%v: Printf wrote %q, want %q", color, out.String(), wantOut)
		}
	}
}

// With colour on only Paint's own codes pass: a concealing SGR in a task's
// text is escaped.
func TestOutputKeepsOnlyPaintCodes(t *testing.T) {
	var out bytes.Buffer
	env := &Env{Stdout: &out, Color: true}
	env.Printf("%s %s %s\n", env.Paint("1;31", "bad"), env.Paint("32", "ok"), "x\x1b[8mhidden")
	want := "\x1b[1;31mbad\x1b[0m \x1b[32mok\x1b[0m x\\033[8mhidden\n"
	if out.String() != want {
		t.Errorf("Printf wrote %q, want %q", out.String(), want)
	}
}

// --json output keeps the same strings but writes C1 and bidi controls as
// \u escapes, which encoding/json leaves raw.
func TestJSONEscapesTerminalControls(t *testing.T) {
	var out bytes.Buffer
	env := &Env{Stdout: &out}
	name := "c\u009b2J b\u202etxt é\x7f"
	if err := env.JSON(map[string]string{"path": name}); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(out.String(), "\u009b\u202e\x7f") {
		t.Errorf("raw control in %q", out.String())
	}
	var back map[string]string
	if err := json.Unmarshal(out.Bytes(), &back); err != nil || back["path"] != name {
		t.Errorf("read back %q (%v), want %q", back["path"], err, name)
	}
}

// TestOnlyCommand: a command line that names a command first is parsed
// with that command alone in the model; help, completion and no command
// get the whole model, and a line the smaller model refuses is refused
// with the whole model's message.
func TestOnlyCommand(t *testing.T) {
	p := Program{Name: "git-test", Description: "A test program.", Model: &testCLI{}}
	env := &Env{Ctx: context.Background(), Stdout: io.Discard, Stderr: io.Discard}
	exit := func(int) {}
	only := p.onlyCommand([]string{"pass", "3"}, env)
	if only == nil {
		t.Fatal("pass 3: the whole model")
	}
	k, err := p.Parser(env, exit, only)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range k.Model.Children {
		names = append(names, c.Name)
	}
	if strings.Join(names, " ") != "pass" {
		t.Errorf("commands in the smaller model: %v, want [pass]", names)
	}
	for _, args := range [][]string{nil, {"pass", "-h"}, {"--help"}, {"nosuch"}, {"--version"}, {"-h", "pass"}} {
		if p.onlyCommand(args, env) != nil {
			t.Errorf("%q: a smaller model, want the whole one", args)
		}
	}
	if p.onlyCommand([]string{"hello", "--", "-h"}, env) == nil {
		t.Errorf(`"-h" after "--" is not a request for help`)
	}
	// Shell completion (COMP_LINE in the command's environment, not the
	// test process's) needs every command.
	completing := &Env{Ctx: context.Background(), Getenv: func(k string) string {
		if k == "COMP_LINE" {
			return "git-test pa"
		}
		return ""
	}}
	if p.onlyCommand([]string{"pass", "3"}, completing) != nil {
		t.Errorf("completing: a smaller model, want the whole one")
	}
	// A mistyped flag is refused with the whole model's message.
	_, _, small := runTest("pass", "--vresion")
	full := new(bytes.Buffer)
	fk, _ := p.Parser(&Env{Ctx: context.Background(), Stdout: io.Discard, Stderr: full}, exit)
	_, ferr := fk.Parse([]string{"pass", "--vresion"})
	if ferr == nil || !strings.Contains(small, ferr.Error()) {
		t.Errorf("pass --vresion: stderr %q, want the whole model's error %v", small, ferr)
	}
}
