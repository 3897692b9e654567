package cli

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"strings"

	"github.com/alecthomas/kong"
	"github.com/willabides/kongplete"

	"github.com/nudgethis/git-nudge/internal/journal"
)

// Program describes one of the suite's binaries for the shared runner.
type Program struct {
	Name        string // binary name: "git-nudge"
	Description string // first line: one sentence; then paragraphs
	Model       any    // pointer to the kong command-line struct
	// ManSections are extra man page sections (FILES, for instance).
	ManSections []ManSection
	// SeeAlso lists related man pages ("git-worktree(1)").
	SeeAlso []string
	// ExitNote, when set, follows the man page's common EXIT STATUS text.
	ExitNote string
	// Around, when set, runs each parsed command through run: cmd is the
	// selected command's struct (a pointer, flags and arguments filled
	// in), args the command line. The operation log records there the
	// commands that declare themselves (opcmd.Recorded).
	Around func(env *Env, cmd any, args []string, run func() error) error
	// Bind are values handed to the commands' Run methods by type, besides
	// the Env (the op command's opcmd.Opener).
	Bind []any
}

// Display is how users type the program: "git nudge".
func (p Program) Display() string { return strings.Replace(p.Name, "-", " ", 1) }

// Parser builds the kong parser for p writing to env's streams. exit is
// called by kong for --help, --version and completion. Extra options (see
// onlyCommand) come last.
func (p Program) Parser(env *Env, exit func(int), extra ...kong.Option) (*kong.Kong, error) {
	return kong.New(p.Model, append([]kong.Option{
		kong.Name(p.Name),
		kong.Description(p.Description),
		kong.UsageOnError(),
		kong.Writers(env.Stdout, env.Stderr),
		kong.Exit(exit),
		kong.Vars{"version": p.Name + " version " + VersionString()},
		kong.ConfigureHelp(kong.HelpOptions{Compact: true, NoExpandSubcommands: false}),
		kong.Bind(append([]any{env}, p.Bind...)...),
	}, extra...)...)
}

// commandPath is the command a parse error happened in ("op undo"), "" when
// none was reached: its own help is where to look.
func commandPath(err error) string {
	var pe *kong.ParseError
	if !errors.As(err, &pe) {
		return ""
	}
	return selectedPath(pe.Context)
}

// selectedPath is the names of the commands kctx selected ("op undo"),
// "" when none.
func selectedPath(kctx *kong.Context) string {
	if kctx == nil {
		return ""
	}
	var names []string
	for n := kctx.Selected(); n != nil; n = n.Parent {
		if n.Type == kong.CommandNode {
			names = append([]string{n.Name}, names...)
		}
	}
	return strings.Join(names, " ")
}

// onlyCommand returns the option that leaves every top-level command but
// the one args start with out of the model (building the whole model,
// every command's flags and help, is a measurable part of a short
// command's run), or nil when the whole model is needed: no command named
// first, help asked for (before any "--"), shell completion. A command
// line the smaller model refuses is parsed again with the whole one, so
// errors and suggestions are the same.
func (p Program) onlyCommand(args []string, env *Env) kong.Option {
	if len(args) == 0 || env.lookup("COMP_LINE") != "" {
		return nil
	}
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "-h" || a == "--help" {
			return nil
		}
	}
	t := reflect.TypeOf(p.Model)
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil
	}
	t = t.Elem()
	var others []string
	found := false
	for i := range t.NumField() {
		f := t.Field(i)
		if _, isCmd := f.Tag.Lookup("cmd"); !isCmd {
			continue
		}
		name := f.Tag.Get("name")
		if name == "" {
			name = strings.ToLower(f.Name) // one-word command names
		}
		if name == args[0] && f.Tag.Get("aliases") == "" {
			found = true
			continue
		}
		others = append(others, regexp.QuoteMeta(f.Name))
	}
	if !found || len(others) == 0 {
		return nil
	}
	return kong.IgnoreFields("^" + regexp.QuoteMeta(t.Name()) + `\.(` + strings.Join(others, "|") + ")$")
}

type exitCode int

// Main parses args, runs the selected command and returns the exit status:
// 0 done, 1 refused or failed, 2 usage error.
func (p Program) Main(args []string, env *Env) (code int) {
	defer func() {
		if r := recover(); r != nil {
			if c, ok := r.(exitCode); ok {
				code = int(c)
				return
			}
			panic(r)
		}
	}()
	// An Env built without an environment for the user's programs gives
	// them this process's, as NewProcessEnv does.
	if env.Environ == nil {
		env.Environ = os.Environ
	}
	// The version executors write into their locks. Tests stand
	// in for another version with GIT_NUDGE_TEST_VERSION (or
	// GIT_AUTODEV_TEST_VERSION).
	journal.SetBinaryVersion(VersionString())
	if v := env.lookup(strings.ToUpper(strings.ReplaceAll(p.Name, "-", "_")) + "_TEST_VERSION"); v != "" {
		journal.SetBinaryVersion(v)
	}
	// "git nudge help run" is "git nudge run --help" (git itself turns
	// "git nudge --help" into the man page; "help" is no command of ours).
	if len(args) > 0 && args[0] == "help" {
		args = append(append([]string{}, args[1:]...), "--help")
	}
	exit := func(c int) { panic(exitCode(c)) }
	var parser *kong.Kong
	var kctx *kong.Context
	var err error
	if only := p.onlyCommand(args, env); only != nil {
		if parser, err = p.Parser(env, exit, only); err == nil {
			kctx, err = parser.Parse(args)
		}
	}
	if kctx == nil {
		parser, err = p.Parser(env, exit)
		if err != nil {
			fmt.Fprintf(env.Stderr, "%s: internal error building the command line: %v\n", p.Name, err)
			return ExitFailed
		}
		if env.lookup("COMP_LINE") != "" {
			kongplete.Complete(parser, append(predictors(), kongplete.WithExitFunc(exit))...)
		}
		if len(args) == 0 {
			return p.shortHelp(parser, env)
		}
		kctx, err = parser.Parse(args)
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "%s: %v\n", p.Display(), err)
		fmt.Fprintf(env.Stderr, "Run '%s -h' for usage.\n", strings.TrimSpace(p.Display()+" "+commandPath(err)))
		if jsonArg(args) {
			WriteErrorJSON(env.Stdout, err, ExitUsage)
		}
		return ExitUsage
	}
	run := func() error { return kctx.Run(parser) }
	if p.Around != nil {
		var cmd any
		if n := kctx.Selected(); n != nil && n.Target.CanAddr() {
			cmd = n.Target.Addr().Interface()
		}
		inner := run
		run = func() error { return p.Around(env, cmd, args, inner) }
	}
	if err := run(); err != nil {
		code := Report(env.Stderr, p.Display(), err)
		if ee := (*ExitError)(nil); errors.As(err, &ee) && ee.Usage {
			fmt.Fprintf(env.Stderr, "Run '%s -h' for usage.\n", strings.TrimSpace(p.Display()+" "+selectedPath(kctx)))
		}
		if code != ExitOK && jsonFlag(kctx) {
			WriteErrorJSON(env.Stdout, err, code)
		}
		return code
	}
	return ExitOK
}

// jsonFlag reports whether the command that ran was given --json: its
// failure is then also reported as a JSON document on stdout.
func jsonFlag(kctx *kong.Context) bool {
	for _, f := range kctx.Flags() {
		if f.Name == "json" {
			if v, ok := kctx.FlagValue(f).(bool); ok && v {
				return true
			}
		}
	}
	return false
}

// jsonArg reports whether a command line that could not be parsed asked
// for --json (before any "--" that starts another program's arguments).
func jsonArg(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--json" {
			return true
		}
	}
	return false
}

// CompletionCmd prints a shell completion script. It is hidden; install.sh
// uses it to install completions.
type CompletionCmd struct {
	Shell string `arg:"" enum:"bash,zsh,fish" help:"Shell to print the completion script for (bash, zsh, fish)."`
}

// Run prints the script.
func (c *CompletionCmd) Run(k *kong.Kong, env *Env) error {
	name := k.Model.Name                    // git-nudge
	sub := strings.TrimPrefix(name, "git-") // nudge
	fn := strings.ReplaceAll(sub, "-", "_")
	var s string
	switch c.Shell {
	case "bash":
		// git's bash completion calls _git_<sub> for "git <sub> ..."; both
		// spellings are answered by the binary itself through COMP_LINE.
		s = fmt.Sprintf(`# bash completion for %[1]s (and "git %[2]s")
_git_%[3]s() {
	local line="%[1]s${COMP_LINE#*%[2]s}"
	local point=$(( COMP_POINT - ${#COMP_LINE} + ${#line} ))
	local IFS=$'\n'
	COMPREPLY=( $(COMP_LINE="$line" COMP_POINT="$point" command %[1]s 2>/dev/null) )
}
complete -C %[1]s %[1]s
`, name, sub, fn)
	case "zsh":
		// The file is autoloaded as _git-<sub>: its body runs on the
		// first completion, so it ends by completing that one too. git's
		// completion calls _git-<sub> with words starting at "<sub>"
		// (words[1]), zsh itself with words starting at "git-<sub>":
		// either way the arguments are words[2,-1].
		s = fmt.Sprintf(`#compdef %[1]s
# zsh completion for %[1]s (and "git %[2]s" through git's user-command hook)
autoload -U +X bashcompinit && bashcompinit
complete -C %[1]s %[1]s
_git-%[2]s() {
	local line="%[1]s ${words[2,-1]}"
	local -a reply
	reply=( ${(f)"$(COMP_LINE="$line" COMP_POINT=${#line} command %[1]s 2>/dev/null)"} )
	compadd -- $reply
}
_git-%[2]s "$@"
`, name, sub)
	case "fish":
		s = fmt.Sprintf(`# fish completion for %[1]s and "git %[2]s"
function __%[3]s_complete
	set -lx COMP_LINE (string replace -r '^git %[2]s' '%[1]s' -- (commandline -cp))
	test -z (commandline -ct); and set COMP_LINE "$COMP_LINE "
	set -lx COMP_POINT (string length -- "$COMP_LINE")
	command %[1]s
end
complete -f -c %[1]s -a '(__%[3]s_complete)'
complete -f -c git -n '__fish_seen_subcommand_from %[2]s' -a '(__%[3]s_complete)'
`, name, sub, "git_"+fn)
	}
	_, err := fmt.Fprint(env.Stdout, s)
	return err
}

// shortHelp is what a bare "git nudge" (no command) prints: the list of
// commands, one line each, on stderr, and the usage exit status.
func (p Program) shortHelp(parser *kong.Kong, env *Env) int {
	parser.Stdout = env.Stderr
	kctx, err := kong.Trace(parser, nil)
	if err == nil {
		err = kctx.PrintUsage(true)
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "%s: a command is needed; run '%s -h' for usage.\n", p.Display(), p.Display())
	}
	fmt.Fprintf(env.Stderr, "\n%s: a command is needed. Run '%s COMMAND -h' for one command's help, man %s for all of it.\n", p.Display(), p.Display(), p.Name)
	return ExitUsage
}
