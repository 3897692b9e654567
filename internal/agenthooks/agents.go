// Package agenthooks knows the coding agents' hook systems: where each
// keeps its project settings, how to add and remove the hook that runs
// git autodev hook (merging into the file as text, so every other setting
// and formatting choice stays), and how to read the payload each agent
// hands its hooks. It touches no repository; see docs/DECISIONS.md for
// the sources of each format.
package agenthooks

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
)

// Agent is one coding agent's hook set-up.
type Agent struct {
	Name  string // "claude"
	Title string // "Claude Code"
	// File is the project settings file, relative to the top of the work
	// tree ("" when the agent keeps its hooks only in the home folder).
	File string
	// Event is the agent's end-of-turn event the hook is installed on.
	Event string
	// Comments: the agent reads its settings as JSON with comments.
	Comments bool
	// skeleton is the document install writes when the file is missing.
	skeleton object
	// entry is the hook entry, group the element added to the event's
	// array (entry wrapped, or entry itself).
	group func(cmd string) value
	// nested: entries sit in groups' "hooks" arrays (Claude, Codex,
	// Gemini); otherwise directly in the event's array (Cursor).
	nested bool
	// named: the hook's command line says which agent runs it (--agent),
	// for an agent whose payload alone does not tell it from another's.
	named bool
}

// Command is the command line the hook runs for agent a.
func (a Agent) Command() string {
	if a.named {
		return "git autodev hook --agent " + a.Name + " --event " + a.Event
	}
	return "git autodev hook --event " + a.Event
}

// Agents lists the supported agents.
var Agents = []Agent{
	{
		Name: "claude", Title: "Claude Code", File: ".claude/settings.json", Event: "Stop",
		group: func(cmd string) value {
			return object{{"hooks", []value{object{{"type", "command"}, {"command", cmd}}}}}
		},
		nested: true,
	},
	{
		// Codex's project hooks: the same shape as Claude Code's, and a
		// Stop event that Claude Code's hook also has, hence --agent.
		Name: "codex", Title: "Codex CLI", File: ".codex/hooks.json", Event: "Stop",
		group: func(cmd string) value {
			return object{{"hooks", []value{object{{"type", "command"}, {"command", cmd}}}}}
		},
		nested: true, named: true,
	},
	{
		Name: "gemini", Title: "Gemini CLI", File: ".gemini/settings.json", Event: "AfterAgent", Comments: true,
		group: func(cmd string) value {
			return object{{"hooks", []value{object{{"name", "git-autodev-checkpoint"}, {"type", "command"}, {"command", cmd}}}}}
		},
		nested: true,
	},
	{
		Name: "cursor", Title: "Cursor", File: ".cursor/hooks.json", Event: "stop",
		skeleton: object{{"version", 1}},
		group:    func(cmd string) value { return object{{"command", cmd}} },
	},
}

// Names is "claude, codex, gemini, cursor".
func Names() string {
	var n []string
	for _, a := range Agents {
		n = append(n, a.Name)
	}
	return strings.Join(n, ", ")
}

// Find returns the agent called name.
func Find(name string) (Agent, bool) {
	for _, a := range Agents {
		if a.Name == strings.ToLower(name) {
			return a, true
		}
	}
	return Agent{}, false
}

// Change is what install or uninstall did (or would do) to a settings file.
type Change struct {
	File    string // relative to the top of the work tree
	Changed bool
	Created bool // the file did not exist
	Removed bool // uninstall removed the file (install had created it)
	Added   string
	Cut     string // the text removed
}

// ErrInvalid wraps a settings file that is not valid JSON (or not an
// object where hooks go); it is never written.
var ErrInvalid = errors.New("not valid JSON")

// InvalidError names the file and what is wrong with it.
type InvalidError struct {
	File string
	Err  error
}

func (e *InvalidError) Error() string {
	return fmt.Sprintf("%s is not a settings file git autodev can merge into (%v); nothing was changed: fix it or move it aside, then run the command again", e.File, e.Err)
}

func (e *InvalidError) Unwrap() error { return ErrInvalid }

// Install adds the hook to src (the file's text; "" for a missing file).
// It returns the new text and what changed; a hook already there changes
// nothing.
func (a Agent) Install(src string) (string, Change, error) {
	ch := Change{File: a.File}
	if strings.TrimSpace(src) == "" {
		src, ch.Created = "{}", true
		if len(a.skeleton) > 0 {
			src = (style{indent: "  ", nl: "\n", colon: ": ", pretty: true}).render(a.skeleton, 0, true)
		}
	}
	root, err := parseDocument(src, a.Comments)
	if err != nil {
		return "", ch, err
	}
	if root.kind != '{' {
		return "", ch, errNotObject
	}
	if _, _, _, found, err := a.find(root); err != nil || found {
		return src, ch, err
	}
	st := learnStyle(src, root)
	cmd := a.Command()
	var e edit
	hooks := root.get("hooks")
	switch {
	case hooks == nil:
		e = st.addMember(src, root, 0, "hooks", object{{a.Event, []value{a.group(cmd)}}})
	case hooks.get(a.Event) == nil:
		e = st.addMember(src, hooks, 1, a.Event, []value{a.group(cmd)})
	default:
		e = st.addElem(src, hooks.get(a.Event), 2, a.group(cmd))
	}
	out := e.apply(src)
	if ch.Created && !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	ch.Changed, ch.Added = true, e.text
	if ch.Created {
		ch.Added = out
	}
	return out, ch, nil
}

// find locates the hook install adds. It fails when "hooks" or the event
// is there but not of the shape the agent documents.
func (a Agent) find(root *node) (arr *node, gi, hi int, found bool, err error) {
	hooks := root.get("hooks")
	if hooks == nil {
		return nil, 0, 0, false, nil
	}
	if hooks.kind != '{' {
		return nil, 0, 0, false, errors.New(`"hooks" is not an object`)
	}
	ev := hooks.get(a.Event)
	if ev == nil {
		return nil, 0, 0, false, nil
	}
	if ev.kind != '[' {
		return nil, 0, 0, false, fmt.Errorf(`"hooks"."%s" is not an array`, a.Event)
	}
	cmd := a.Command()
	for g, el := range ev.elems {
		if !a.nested {
			if c := el.get("command"); c != nil && c.kind == 's' && c.str == cmd {
				return ev, g, -1, true, nil
			}
			continue
		}
		inner := el.get("hooks")
		if inner == nil || inner.kind != '[' {
			continue
		}
		for h, hk := range inner.elems {
			if c := hk.get("command"); c != nil && c.kind == 's' && c.str == cmd {
				return ev, g, h, true, nil
			}
		}
	}
	return ev, 0, 0, false, nil
}

// Uninstall removes every copy of the hook install adds from src, and the
// groups, event list and "hooks" object left empty by that. When what is
// left is what install leaves for a file it created, Change.Removed says
// the file can go.
func (a Agent) Uninstall(src string) (string, Change, error) {
	out, ch, err := a.uninstall(src)
	if err == nil && ch.Changed {
		created, _, _ := a.Install("")
		if left, _, err := a.uninstall(created); err == nil && left == out {
			ch.Removed = true
		}
	}
	return out, ch, err
}

func (a Agent) uninstall(src string) (string, Change, error) {
	ch := Change{File: a.File}
	var cut []string
	for {
		root, err := parseDocument(src, a.Comments)
		if err != nil {
			return "", ch, err
		}
		if root.kind != '{' {
			return "", ch, errNotObject
		}
		ev, g, h, found, err := a.find(root)
		if err != nil {
			return "", ch, err
		}
		if !found {
			break
		}
		e := a.removal(src, root, ev, g, h)
		cut = append(cut, src[e.start:e.end])
		src = e.apply(src)
		ch.Changed = true
	}
	ch.Cut = strings.Join(cut, "\n")
	return src, ch, nil
}

// removal picks the cut that takes the hook out. The candidates go from
// the widest (the whole "hooks" object) to the narrowest (the entry
// alone); the first whose result install would turn back into src exactly
// is the inverse of that install, so containers the user had before (an
// empty "hooks": {}) and text between members (comments) stay. When none
// is (the file was edited since), the hook goes with the containers it
// leaves empty.
func (a Agent) removal(src string, root, ev *node, g, h int) edit {
	hooks := root.get("hooks")
	var cands []edit
	groupAlone := !a.nested || len(ev.elems[g].get("hooks").elems) == 1
	if groupAlone && len(ev.elems) == 1 {
		if len(hooks.members) == 1 {
			cands = append(cands, removeMember(root, root.index("hooks")))
		}
		cands = append(cands, removeMember(hooks, hooks.index(a.Event)))
	}
	if groupAlone {
		cands = append(cands, removeElem(ev, g))
	}
	if a.nested {
		cands = append(cands, removeElem(ev.elems[g].get("hooks"), h))
	}
	for _, e := range cands {
		if back, _, err := a.Install(e.apply(src)); err == nil && back == src {
			return e
		}
	}
	return cands[0]
}

// Apply installs (or with remove, uninstalls) the hook in the settings file
// under top, writing nothing when dryRun is set. The file is read and
// written through an os.Root at top, so no symbolic link leads outside the
// work tree; a symbolic link as the settings file itself is refused, and
// the file is replaced atomically keeping its permissions.
func (a Agent) Apply(top string, remove, dryRun bool) (Change, error) {
	root, err := os.OpenRoot(top)
	if err != nil {
		return Change{File: a.File}, err
	}
	defer root.Close()
	mode := fs.FileMode(0o644)
	src := ""
	fi, err := root.Lstat(a.File)
	switch {
	case err == nil && fi.Mode()&fs.ModeSymlink != 0:
		return Change{File: a.File}, fmt.Errorf("%s is a symbolic link; git autodev does not edit through links: add the hook to the file it points to by hand (see git autodev hooks install --help)", a.File)
	case err == nil && !fi.Mode().IsRegular():
		return Change{File: a.File}, fmt.Errorf("%s is not a regular file; nothing was changed", a.File)
	case err == nil:
		mode = fi.Mode().Perm()
		b, err := root.ReadFile(a.File)
		if err != nil {
			return Change{File: a.File}, err
		}
		src = string(b)
	case errors.Is(err, fs.ErrNotExist):
		if remove {
			return Change{File: a.File}, nil
		}
	default:
		return Change{File: a.File}, err
	}
	var out string
	var ch Change
	if remove {
		if strings.TrimSpace(src) == "" {
			return Change{File: a.File}, nil
		}
		out, ch, err = a.Uninstall(src)
	} else {
		out, ch, err = a.Install(src)
	}
	if err != nil {
		return ch, &InvalidError{File: a.File, Err: err}
	}
	if !ch.Changed || dryRun {
		return ch, nil
	}
	if ch.Removed {
		if err := root.Remove(a.File); err != nil {
			return ch, err
		}
		root.Remove(path.Dir(a.File)) // only when empty
		return ch, nil
	}
	if err := root.MkdirAll(path.Dir(a.File), 0o755); err != nil {
		return ch, err
	}
	return ch, writeAtomic(root, a.File, []byte(out), mode)
}

// writeAtomic writes a temporary file next to name, syncs it and renames
// it over name.
func writeAtomic(root *os.Root, name string, data []byte, mode fs.FileMode) error {
	tmp := path.Join(path.Dir(name), "."+path.Base(name)+".autodev-tmp")
	root.Remove(tmp)
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		root.Remove(tmp)
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		root.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		root.Remove(tmp)
		return err
	}
	if err := root.Chmod(tmp, mode); err != nil {
		root.Remove(tmp)
		return err
	}
	if err := root.Rename(tmp, name); err != nil {
		root.Remove(tmp)
		return err
	}
	if d, err := root.Open(path.Dir(name)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
