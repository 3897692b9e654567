package cli

import (
	"fmt"
	"os"
	"strings"

	"github.com/alecthomas/kong"
)

// ManDate is the date printed in the man pages' header; fixed so that the
// checked-in pages are reproducible.
const ManDate = "2026-11-30"

// ManSection is an extra section of a program's man page.
type ManSection struct {
	Title string
	Text  string // paragraphs separated by blank lines
}

// ManPage renders p's man page (section 1) from the kong model: NAME,
// SYNOPSIS (one line per command), DESCRIPTION, COMMANDS (each with its
// long help and flags), OPTIONS, then p's own sections, EXIT STATUS and
// SEE ALSO. git turns "git nudge --help" into "man git-nudge".
func (p Program) ManPage() (string, error) {
	env := &Env{Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}
	parser, err := p.Parser(env, func(int) {})
	if err != nil {
		return "", err
	}
	app := parser.Model
	summary, detail, _ := strings.Cut(strings.TrimSpace(p.Description), "\n")
	var m man
	m.raw(fmt.Sprintf(".TH %s 1 %q %q %q", strings.ToUpper(p.Name), ManDate, p.Name, "Git Manual"))
	m.section("NAME")
	m.raw(roffText(p.Name) + ` \- ` + roffText(strings.TrimSuffix(summary, ".")))
	m.section("SYNOPSIS")
	cmds := visibleCommands(app.Node)
	for i, c := range cmds {
		if i > 0 {
			m.raw(".br")
		}
		m.raw(`\fB` + roffText(p.Display()+" "+c.Summary()) + `\fR`)
	}
	m.section("DESCRIPTION")
	m.paragraphs(detail)
	m.section("COMMANDS")
	for _, c := range cmds {
		m.raw(".TP")
		m.raw(`\fB` + roffText(p.Display()+" "+c.Summary()) + `\fR`)
		m.raw(roffLine(sentence(c.Help)))
		if c.Detail != "" {
			m.raw(".RS")
			m.raw(".PP")
			m.paragraphs(c.Detail)
			m.raw(".RE")
		}
		if flags := visibleFlags(c.Flags); len(flags) > 0 {
			m.raw(".RS")
			for _, f := range flags {
				m.flag(f)
			}
			m.raw(".RE")
		}
	}
	m.section("OPTIONS")
	for _, f := range visibleFlags(app.Node.Flags) {
		m.flag(f)
	}
	for _, s := range p.ManSections {
		m.section(strings.ToUpper(s.Title))
		m.paragraphs(s.Text)
	}
	m.section("EXIT STATUS")
	m.paragraphs("0 when the command did what was asked; 1 when it refused or failed, with a message on stderr that says what to do next; 2 when the command line itself is wrong. A command that runs another program (run) exits with that program's status.")
	if p.ExitNote != "" {
		m.paragraphs(p.ExitNote)
	}
	m.section("ENVIRONMENT")
	m.paragraphs("NO_COLOR turns colour off. Git's own variables and options (GIT_DIR, GIT_WORK_TREE, git -C, git -c) choose the repository and configuration as they do for git.")
	if len(p.SeeAlso) > 0 {
		m.section("SEE ALSO")
		m.raw(roffText(strings.Join(p.SeeAlso, ", ")))
	}
	return m.String(), nil
}

// man builds a roff document line by line.
type man struct{ strings.Builder }

func (m *man) raw(line string) { m.WriteString(line + "\n") }

func (m *man) section(title string) { m.raw(".SH " + title) }

// paragraphs writes text whose paragraphs are separated by blank lines;
// line breaks inside a paragraph are joined.
func (m *man) paragraphs(text string) {
	for i, para := range strings.Split(strings.TrimSpace(text), "\n\n") {
		if i > 0 {
			m.raw(".PP")
		}
		m.raw(roffLine(strings.Join(strings.Fields(para), " ")))
	}
}

// flag writes one option as a tagged paragraph: "-m, --message=NOTE".
func (m *man) flag(f *kong.Flag) {
	name := f.Summary()
	if f.Short != 0 {
		name = fmt.Sprintf("-%c, %s", f.Short, name)
	}
	m.raw(".TP")
	m.raw(`\fB` + roffText(name) + `\fR`)
	m.raw(roffLine(sentence(f.Help)))
}

// visibleCommands lists n's visible commands, each followed by its own
// subcommands (op log, op show, op undo, op redo, ...), depth first, so
// that every command line a user can type has its entry.
func visibleCommands(n *kong.Node) []*kong.Node {
	var out []*kong.Node
	for _, c := range n.Children {
		if !c.Hidden && c.Type == kong.CommandNode {
			out = append(out, c)
			out = append(out, visibleCommands(c)...)
		}
	}
	return out
}

func visibleFlags(fs []*kong.Flag) []*kong.Flag {
	var out []*kong.Flag
	for _, f := range fs {
		if !f.Hidden {
			out = append(out, f)
		}
	}
	return out
}

// roffText escapes text for roff: backslashes, and hyphens (so options
// are typed as minus signs and can be searched for).
func roffText(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	return strings.ReplaceAll(s, "-", `\-`)
}

// roffLine escapes a text line, which must not start with a control
// character.
func roffLine(s string) string {
	s = roffText(s)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s != "" && !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}
