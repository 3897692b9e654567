// Command reorg-git rearranges the files of package internal/git by git
// concept (refs, objects, trees, index, worktrees, status, config, diff)
// instead of by caller (issue 13, item 3). It moves whole top-level
// declarations, each with its doc comment, to the file mapping.go names for
// it, writes each file's imports, gofmts the result and removes the files
// left empty. It changes no code: only which file holds it.
//
// How to run it (from the top of the repository, on a clean tree, after
// every branch is merged):
//
//	go run ./internal/tools/reorg-git -check   # lists what it would do; changes nothing
//	go run ./internal/tools/reorg-git          # moves the declarations
//	gofmt -l internal/git; go build ./... && go vet ./... && go tool staticcheck ./... && go test -short ./...
//	git add -A internal/git && git commit -m "git: files by concept (internal/tools/reorg-git)"
//
// It fails, and writes nothing, when a declaration of internal/git is not
// in mapping.go (a function another branch added, say): add its name to
// the right file's list in mapping.go and run it again. Names are a
// function's name, a method's "Type.Name", a type's, var's or const's
// name (every name of a grouped const or var block, all mapped to the same
// file). A name in mapping.go that the package no longer declares is only
// reported. -allow-unmapped leaves unmapped declarations where they are
// instead of failing. -dir names another package folder (tests use it).
//
// Test files (*_test.go) and files for some platforms only (*_linux.go,
// or a //go:build line) are not moved. Comments between declarations move
// with the declaration that follows them. An old file's own header comment
// that starts "This file holds" describes the old layout and is dropped
// (each new file gets the header mapping.go gives it); any other header
// comment moves with the file's first declaration. Both are listed.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

func main() {
	dir := flag.String("dir", "internal/git", "the package folder to rearrange")
	check := flag.Bool("check", false, "only report what would move; write nothing")
	allowUnmapped := flag.Bool("allow-unmapped", false, "leave declarations missing from mapping.go in their file instead of failing")
	flag.Parse()
	if err := run(*dir, targets, *check, *allowUnmapped); err != nil {
		fmt.Fprintf(os.Stderr, "reorg-git: %v\n", err)
		os.Exit(1)
	}
}

// target is one file of the new layout: its header and the names it holds.
type target struct {
	File   string
	Header string // what the file holds, one paragraph (without "//")
	Names  []string
}

// decl is one top-level declaration with its comments, as source text.
type decl struct {
	names   []string
	src     string // file it comes from
	pos     int    // order in that file
	text    []byte
	imports map[string]string // package name -> import path, as used
	target  string
}

// source is one parsed file of the package.
type source struct {
	name     string
	pkgDoc   []byte // the package comment, when this file has it
	pkgName  string
	decls    []*decl
	dropped  []string // header comments that do not move
	kept     []string // header comments moved with the first declaration
	explicit map[string]bool
}

func run(dir string, targets []target, check, allowUnmapped bool) error {
	where := map[string]string{} // name -> target file
	headers := map[string]string{}
	for _, t := range targets {
		if _, dup := headers[t.File]; dup {
			return fmt.Errorf("mapping.go lists file %s twice", t.File)
		}
		headers[t.File] = t.Header
		for _, n := range t.Names {
			if prev, dup := where[n]; dup {
				return fmt.Errorf("mapping.go maps %s to both %s and %s", n, prev, t.File)
			}
			where[n] = t.File
		}
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return err
	}
	var srcs []*source
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || platformFile(f) {
			continue
		}
		s, err := parse(f)
		if err != nil {
			return err
		}
		srcs = append(srcs, s)
	}
	if len(srcs) == 0 {
		return fmt.Errorf("no Go files in %s", dir)
	}
	sort.Slice(srcs, func(i, j int) bool { return srcs[i].name < srcs[j].name })

	// Place every declaration.
	var unmapped, split []string
	seen := map[string]bool{}
	for _, s := range srcs {
		for _, d := range s.decls {
			files := map[string]bool{}
			for _, n := range d.names {
				seen[n] = true
				if f, ok := where[n]; ok {
					files[f] = true
				} else {
					unmapped = append(unmapped, fmt.Sprintf("%s (in %s)", n, s.name))
				}
			}
			switch {
			case len(files) > 1:
				split = append(split, fmt.Sprintf("%s (in %s) are one declaration mapped to different files", strings.Join(d.names, ", "), s.name))
			case len(files) == 1:
				for f := range files {
					d.target = f
				}
			}
			if countMapped(d.names, where) < len(d.names) {
				d.target = s.name // left in place (-allow-unmapped)
			}
		}
	}
	if len(split) > 0 {
		return fmt.Errorf("%s", strings.Join(split, "\n"))
	}
	if len(unmapped) > 0 && !allowUnmapped {
		return fmt.Errorf("%d declarations are not in mapping.go; add each to the file of its git concept:\n  %s",
			len(unmapped), strings.Join(unmapped, "\n  "))
	}
	var stale []string
	for n := range where {
		if !seen[n] {
			stale = append(stale, n)
		}
	}
	sort.Strings(stale)

	// Gather each output file's declarations: its own first, in order,
	// then the others by source file and order.
	out := map[string][]*decl{}
	var pkgDoc []byte
	pkgName := srcs[0].pkgName
	for _, s := range srcs {
		if s.pkgName != pkgName {
			return fmt.Errorf("%s is package %s, %s is package %s", srcs[0].name, pkgName, s.name, s.pkgName)
		}
		if len(s.pkgDoc) > 0 {
			if pkgDoc != nil {
				return fmt.Errorf("more than one file has a package comment (%s among them)", s.name)
			}
			pkgDoc = s.pkgDoc
		}
	}
	for _, s := range srcs {
		for _, d := range s.decls {
			out[d.target] = append(out[d.target], d)
		}
	}
	docFile := "git.go"
	if _, ok := headers[docFile]; !ok {
		docFile = targets[0].File
	}
	results := map[string][]byte{}
	var names []string
	for f := range out {
		names = append(names, f)
	}
	sort.Strings(names)
	moved := 0
	for _, f := range names {
		ds := out[f]
		sort.SliceStable(ds, func(i, j int) bool {
			a, b := ds[i], ds[j]
			if (a.src == f) != (b.src == f) {
				return a.src == f
			}
			if a.src != b.src {
				return a.src < b.src
			}
			return a.pos < b.pos
		})
		for _, d := range ds {
			if d.src != f {
				moved++
			}
		}
		var doc []byte
		if f == docFile {
			doc = pkgDoc
		}
		text, err := render(f, pkgName, doc, headers[f], ds)
		if err != nil {
			return err
		}
		results[f] = text
	}
	if pkgDoc != nil && results[docFile] == nil {
		return fmt.Errorf("the package comment goes to %s, which holds no declaration", docFile)
	}

	var gone []string
	for _, s := range srcs {
		if _, ok := results[s.name]; !ok {
			gone = append(gone, s.name)
		}
	}
	report := func(format string, a ...any) { fmt.Printf(format, a...) }
	report("%d declarations move; %d files written, %d removed (%s)\n", moved, len(results), len(gone), strings.Join(gone, ", "))
	for _, n := range unmapped {
		report("left in place, not in mapping.go: %s\n", n)
	}
	for _, n := range stale {
		report("in mapping.go but not declared (ignored): %s\n", n)
	}
	for _, s := range srcs {
		for _, c := range s.dropped {
			report("dropped header comment of %s: %s\n", s.name, firstLine(c))
		}
		for _, c := range s.kept {
			report("header comment of %s (reword it if it says \"this file\")\n", c)
		}
	}
	if check {
		return nil
	}
	for _, f := range gone {
		if err := os.Remove(filepath.Join(dir, f)); err != nil {
			return err
		}
	}
	for _, f := range names {
		if err := os.WriteFile(filepath.Join(dir, f), results[f], 0o644); err != nil {
			return err
		}
	}
	return nil
}

func countMapped(names []string, where map[string]string) int {
	n := 0
	for _, x := range names {
		if _, ok := where[x]; ok {
			n++
		}
	}
	return n
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// platformFile reports whether file is built for some platforms only.
func platformFile(file string) bool {
	if strings.HasSuffix(file, "_linux.go") {
		return true
	}
	src, err := os.ReadFile(file)
	return err == nil && bytes.HasPrefix(src, []byte("//go:build"))
}

// parse reads one file into its declarations, each with the source text
// from its leading comments to the end of its last line.
func parse(file string) (*source, error) {
	src, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	af, err := parser.ParseFile(fset, file, src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	s := &source{name: filepath.Base(file), pkgName: af.Name.Name, explicit: map[string]bool{}}
	tf := fset.File(af.Package)
	off := func(p token.Pos) int { return tf.Offset(p) }
	line := func(p token.Pos) int { return tf.Line(p) }
	endOfLine := func(o int) int {
		if i := bytes.IndexByte(src[o:], '\n'); i >= 0 {
			return o + i + 1
		}
		return len(src)
	}
	for _, cg := range af.Comments {
		if cg.Pos() < af.Package && af.Doc != cg {
			return nil, fmt.Errorf("%s: a comment before the package clause that is not the package comment (a build constraint?): %q; move it by hand", s.name, firstLine(cg.Text()))
		}
	}
	if af.Doc != nil {
		s.pkgDoc = src[off(af.Doc.Pos()):endOfLine(off(af.Doc.End()))]
	}

	// Imports: package name -> path, checked below against their use.
	byName := map[string]string{}
	for _, im := range af.Imports {
		p, err := strconv.Unquote(im.Path.Value)
		if err != nil {
			return nil, err
		}
		name := ""
		if im.Name != nil {
			name = im.Name.Name
			if name == "_" || name == "." {
				return nil, fmt.Errorf("%s: import %s %q: blank and dot imports are not handled; move it by hand", s.name, name, p)
			}
			s.explicit[name] = true
		} else {
			name = guessName(p)
		}
		if prev, dup := byName[name]; dup && prev != p {
			return nil, fmt.Errorf("%s: two imports named %s", s.name, name)
		}
		byName[name] = p
	}

	// Declarations, with the comments between them.
	var decls []ast.Decl
	for _, d := range af.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
			continue
		}
		decls = append(decls, d)
	}
	// Everything from the package clause to the first declaration (the
	// imports, comments among them) is the file's own header.
	prevEnd := off(af.Name.End())
	importsEnd := prevEnd
	for _, d := range af.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
			importsEnd = max(importsEnd, off(g.End()))
		}
	}
	commentsIn := func(from, to int) []*ast.CommentGroup {
		var cs []*ast.CommentGroup
		for _, cg := range af.Comments {
			if o := off(cg.Pos()); o >= from && o < to {
				cs = append(cs, cg)
			}
		}
		return cs
	}
	used := map[string]bool{}
	for i, d := range decls {
		start := off(d.Pos())
		if doc := docOf(d); doc != nil {
			start = off(doc.Pos())
		}
		lead := commentsIn(prevEnd, start)
		if i == 0 {
			// The old file's header: one that says what the old file held
			// describes the old layout and is dropped; any other explains
			// something and moves with the first declaration.
			var keep []*ast.CommentGroup
			for _, cg := range lead {
				if strings.HasPrefix(cg.Text(), "This file holds") || off(cg.Pos()) < importsEnd {
					s.dropped = append(s.dropped, cg.Text())
				} else {
					keep = append(keep, cg)
					s.kept = append(s.kept, fmt.Sprintf("%s now precedes %s: %s", s.name, namesOf(d)[0], firstLine(cg.Text())))
				}
			}
			if len(keep) > 0 {
				start = off(keep[0].Pos())
			}
		} else if len(lead) > 0 {
			start = off(lead[0].Pos())
		}
		end := off(d.End())
		// A comment that starts on the declaration's last line belongs to it.
		next := len(src)
		if i+1 < len(decls) {
			next = off(decls[i+1].Pos())
			if doc := docOf(decls[i+1]); doc != nil {
				next = off(doc.Pos())
			}
		}
		for _, cg := range commentsIn(end, next) {
			if line(cg.Pos()) == line(d.End()) {
				end = off(cg.End())
			}
		}
		if i+1 == len(decls) {
			// Comments after the last declaration stay with it.
			for _, cg := range commentsIn(end, len(src)) {
				end = off(cg.End())
			}
		}
		text := bytes.TrimRight(src[start:end], " \t\n")
		dd := &decl{names: namesOf(d), src: s.name, pos: i, text: append([]byte(nil), text...), imports: map[string]string{}}
		ast.Inspect(d, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && id.Obj == nil {
					if p, ok := byName[id.Name]; ok {
						dd.imports[id.Name] = p
						used[id.Name] = true
					}
				}
			}
			return true
		})
		s.decls = append(s.decls, dd)
		prevEnd = end
	}
	for name, p := range byName {
		if !used[name] {
			return nil, fmt.Errorf("%s: cannot tell under which name import %q is used (guessed %s); give it an explicit name in the file, or teach guessName", s.name, p, name)
		}
	}
	for _, dd := range s.decls {
		for name := range dd.imports {
			if s.explicit[name] {
				dd.imports[name] = "=" + dd.imports[name]
			}
		}
	}
	return s, nil
}

func docOf(d ast.Decl) *ast.CommentGroup {
	switch d := d.(type) {
	case *ast.FuncDecl:
		return d.Doc
	case *ast.GenDecl:
		return d.Doc
	}
	return nil
}

// namesOf is the mapping name(s) of a declaration: "Name", "Type.Method",
// or every name a type, var or const block declares.
func namesOf(d ast.Decl) []string {
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv == nil || len(d.Recv.List) == 0 {
			return []string{d.Name.Name}
		}
		t := d.Recv.List[0].Type
		if s, ok := t.(*ast.StarExpr); ok {
			t = s.X
		}
		switch x := t.(type) {
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		}
		if id, ok := t.(*ast.Ident); ok {
			return []string{id.Name + "." + d.Name.Name}
		}
		return []string{"?." + d.Name.Name}
	case *ast.GenDecl:
		var names []string
		for _, sp := range d.Specs {
			switch sp := sp.(type) {
			case *ast.TypeSpec:
				names = append(names, sp.Name.Name)
			case *ast.ValueSpec:
				for _, n := range sp.Names {
					names = append(names, n.Name)
				}
			}
		}
		return names
	}
	return nil
}

// guessName is the name a package is used under when imported without
// one: its path's last element, a major version suffix (/v2) skipped.
// parse checks every guess against the file's own use of it.
func guessName(p string) string {
	base := path.Base(p)
	if len(base) > 1 && base[0] == 'v' && strings.Trim(base[1:], "0123456789") == "" {
		base = path.Base(path.Dir(p))
	}
	return strings.TrimPrefix(base, "go-")
}

// render writes one file: package comment, package clause, header,
// imports (standard library first) and declarations, gofmt'ed.
func render(file, pkg string, pkgDoc []byte, header string, ds []*decl) ([]byte, error) {
	imports := map[string]string{}
	for _, d := range ds {
		for name, p := range d.imports {
			if prev, ok := imports[name]; ok && prev != p {
				return nil, fmt.Errorf("%s: two declarations use %s for different imports (%s, %s)", file, name, strings.TrimPrefix(prev, "="), strings.TrimPrefix(p, "="))
			}
			imports[name] = p
		}
	}
	var std, other []string
	for name, p := range imports {
		spec := strconv.Quote(strings.TrimPrefix(p, "="))
		if strings.HasPrefix(p, "=") {
			spec = name + " " + spec
		}
		if first, _, _ := strings.Cut(strings.TrimPrefix(p, "="), "/"); strings.Contains(first, ".") {
			other = append(other, spec)
		} else {
			std = append(std, spec)
		}
	}
	byPath := func(l []string) func(i, j int) bool {
		return func(i, j int) bool { return unnamed(l[i]) < unnamed(l[j]) }
	}
	sort.Slice(std, byPath(std))
	sort.Slice(other, byPath(other))

	var b bytes.Buffer
	if len(pkgDoc) > 0 {
		b.Write(pkgDoc)
	}
	fmt.Fprintf(&b, "package %s\n\n", pkg)
	if header != "" {
		for _, l := range strings.Split(strings.TrimSpace(header), "\n") {
			fmt.Fprintf(&b, "// %s\n", strings.TrimSpace(l))
		}
		b.WriteString("\n")
	}
	if specs := append(append([]string(nil), std...), other...); len(specs) == 1 {
		fmt.Fprintf(&b, "import %s\n\n", specs[0])
	} else if len(specs) > 1 {
		b.WriteString("import (\n")
		for _, s := range std {
			fmt.Fprintf(&b, "\t%s\n", s)
		}
		if len(std) > 0 && len(other) > 0 {
			b.WriteString("\n")
		}
		for _, s := range other {
			fmt.Fprintf(&b, "\t%s\n", s)
		}
		b.WriteString(")\n\n")
	}
	for i, d := range ds {
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.Write(d.text)
	}
	b.WriteString("\n")
	out, err := format.Source(b.Bytes())
	if err != nil {
		return nil, errors.Join(fmt.Errorf("%s: the rearranged file does not parse", file), err)
	}
	return out, nil
}

func unnamed(spec string) string {
	if i := strings.IndexByte(spec, '"'); i > 0 {
		return spec[i:]
	}
	return spec
}
