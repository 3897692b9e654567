package gitexec

// This file holds recognising, in git's complaint, a clean or smudge
// filter whose program is not installed, and naming its driver.

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// MissingFilter is a clean/smudge filter (.gitattributes filter=NAME,
// git config filter.NAME.process or .clean) whose program is not
// installed: git then fails to read the work tree (git-lfs in a
// repository that uses Git LFS, on a machine without it).
type MissingFilter struct {
	Driver  string // the NAME of filter=NAME, when git config says which one runs Command
	Command string // the filter command git tried to run, when git said
	Program string // the program that was not found
}

// Message says which filter is missing and what to do.
func (m *MissingFilter) Message() string {
	var b strings.Builder
	name := "a filter"
	if m.Driver != "" {
		name = fmt.Sprintf("the %q filter (filter=%s)", m.Driver, m.Driver)
	}
	fmt.Fprintf(&b, ".gitattributes asks for %s, but its program %s is not installed", name, m.Program)
	if m.Command != "" {
		fmt.Fprintf(&b, " (git runs %q)", m.Command)
	}
	b.WriteString(", so git cannot read those files. ")
	if m.Program == "git-lfs" || m.Driver == "lfs" {
		b.WriteString("Install Git LFS (apt install git-lfs, dnf install git-lfs, brew install git-lfs, or https://git-lfs.com), then run the command again")
	} else {
		fmt.Fprintf(&b, "Install %s (or put it on PATH), then run the command again", m.Program)
	}
	if m.Driver != "" {
		fmt.Fprintf(&b, "; or, if this repository does not need the filter, remove the filter.%s settings from git config", m.Driver)
	}
	return b.String()
}

// The patterns below are compiled on first use: most runs never see a
// failing filter, and compiling them costs every start of the binary.
var (
	// dash and bash: "CMD: 1: PROG: not found", "CMD: line 1: PROG: command not found"
	shellNotFound = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^(.*?): (?:line )?\d+: ([^:\n]+): (?:command )?not found\s*$`)
	})
	// git starting the program itself
	cannotRun = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^(?:error|fatal): cannot run ([^:\n]+): No such file or directory\s*$`)
	})
	// git naming the clean/smudge command that failed
	externalFilter = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`external filter '([^'\n]*)' failed`)
	})
	// git naming the driver: "fatal: PATH: clean filter 'NAME' failed"
	driverFailed = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?:clean|smudge) filter '([^'\n]*)' failed`)
	})
)

// missingFilter recognises, in what git wrote to stderr, a filter program
// that could not be started.
func missingFilter(stderr string) *MissingFilter {
	if !strings.Contains(stderr, "filter") && !strings.Contains(stderr, "remote end hung up") {
		return nil
	}
	m := &MissingFilter{}
	if s := shellNotFound().FindStringSubmatch(stderr); s != nil {
		m.Command, m.Program = s[1], strings.TrimSpace(s[2])
	} else if s := cannotRun().FindStringSubmatch(stderr); s != nil {
		m.Program = strings.TrimSpace(s[1])
	} else {
		return nil
	}
	if s := externalFilter().FindStringSubmatch(stderr); s != nil {
		m.Command = s[1]
	}
	if s := driverFailed().FindStringSubmatch(stderr); s != nil {
		m.Driver = s[1]
	}
	if m.Command == "" {
		m.Command = m.Program
	}
	return m
}

// nameFilter fills in e.Filter's driver: the filter.NAME.process,
// .clean or .smudge setting whose command git ran (best effort).
func nameFilter(ctx context.Context, gitDir, workTree string, e *Error) {
	if e == nil || e.Filter == nil || e.Filter.Driver != "" {
		return
	}
	out, err := run(ctx, gitDir, workTree, Cmd{Args: []string{"config", "-z", "--get-regexp", `^filter\..*\.(process|clean|smudge)$`}})
	if err != nil {
		return
	}
	var fallback string
	for _, rec := range bytes.Split(out, []byte{0}) {
		key, val, ok := strings.Cut(string(rec), "\n")
		if !ok {
			continue
		}
		name := strings.TrimPrefix(key, "filter.")
		name = name[:strings.LastIndexByte(name, '.')]
		switch {
		case val == e.Filter.Command || strings.HasPrefix(e.Filter.Command, val+" "):
			e.Filter.Driver = name
			return
		case fallback == "" && strings.HasPrefix(val, e.Filter.Program):
			fallback = name
		}
	}
	e.Filter.Driver = fallback
}
