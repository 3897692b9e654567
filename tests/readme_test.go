package tests

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The README's first two commands are the set-up a newcomer copies: the
// install line (which TestInstallFreshHome runs) and the test commands.
// Nothing may be put in front of them.
func TestReadmeSetUpCommandsFirst(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := codeBlocks(string(b))
	if len(blocks) < 2 {
		t.Fatalf("README.md has %d command blocks, want the install line and the test commands first", len(blocks))
	}
	if !strings.HasPrefix(blocks[0], "./install.sh && ") || !strings.Contains(blocks[0], "git nudge --version") {
		t.Errorf("README.md's first command is %q, want ./install.sh followed by a git nudge command", blocks[0])
	}
	if !strings.HasPrefix(blocks[1], "go test -short ./...") || !strings.Contains(blocks[1], "go test ./...") {
		t.Errorf("README.md's second command block is %q, want go test -short ./... and go test ./...", blocks[1])
	}
}

// codeBlocks returns the README's command blocks in order: indented
// blocks and fenced ones, each as its text without the indentation.
func codeBlocks(doc string) []string {
	var blocks []string
	var cur []string
	fenced := false
	flush := func() {
		if len(cur) > 0 {
			blocks = append(blocks, strings.TrimSpace(strings.Join(cur, "\n")))
			cur = nil
		}
	}
	prevBlank := true
	for _, line := range strings.Split(doc, "\n") {
		switch {
		case strings.HasPrefix(line, "```"):
			if fenced {
				flush()
			}
			fenced = !fenced
		case fenced:
			cur = append(cur, line)
		case strings.HasPrefix(line, "    ") && (prevBlank || len(cur) > 0):
			cur = append(cur, strings.TrimPrefix(line, "    "))
		case strings.TrimSpace(line) == "":
			// a blank line inside an indented block keeps it going
		default:
			flush()
		}
		prevBlank = strings.TrimSpace(line) == ""
	}
	flush()
	return blocks
}

// Every relative link of the README and the pages in docs/ leads to a file
// that exists and, when it names a heading (#anchor) of a Markdown page, to
// a heading that page has: moving a section must not leave a link behind.
func TestDocsLinksResolve(t *testing.T) {
	root := filepath.Join("..")
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, filepath.Join(root, "README.md"))
	anchors := map[string]map[string]bool{}
	anchorsOf := func(page string) map[string]bool {
		if a, ok := anchors[page]; ok {
			return a
		}
		b, err := os.ReadFile(page)
		if err != nil {
			return nil
		}
		anchors[page] = headingAnchors(string(b))
		return anchors[page]
	}
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	checked := 0
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(withoutCode(string(b)), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			checked++
			file, anchor, _ := strings.Cut(target, "#")
			dest := page
			if file != "" {
				dest = filepath.Join(filepath.Dir(page), file)
			}
			rel, _ := filepath.Rel(root, page)
			if _, err := os.Stat(dest); err != nil {
				t.Errorf("%s links to %s, which does not exist", rel, target)
				continue
			}
			if anchor != "" && strings.HasSuffix(dest, ".md") && !anchorsOf(dest)[anchor] {
				t.Errorf("%s links to %s, but that page has no heading with the anchor #%s", rel, target, anchor)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no links found in README.md and docs/*.md")
	}
}

// headingAnchors are the anchors GitHub gives a page's headings: lower
// case, punctuation other than - and _ dropped, spaces turned into -, and
// -1, -2... added to repeats.
func headingAnchors(doc string) map[string]bool {
	drop := regexp.MustCompile(`[^\p{L}\p{N}_\- ]`)
	out := map[string]bool{}
	seen := map[string]int{}
	for _, line := range strings.Split(withoutCode(doc), "\n") {
		text, ok := strings.CutPrefix(line, "#")
		if !ok {
			continue
		}
		text = strings.TrimLeft(text, "#")
		if !strings.HasPrefix(text, " ") {
			continue
		}
		slug := strings.ReplaceAll(drop.ReplaceAllString(strings.ToLower(strings.TrimSpace(text)), ""), " ", "-")
		if n := seen[slug]; n > 0 {
			out[slug+"-"+strconv.Itoa(n)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
	}
	return out
}

// withoutCode blanks fenced code blocks, whose lines are neither headings
// nor links.
func withoutCode(doc string) string {
	lines := strings.Split(doc, "\n")
	fenced := false
	for i, l := range lines {
		if strings.HasPrefix(l, "```") {
			fenced = !fenced
			lines[i] = ""
		} else if fenced {
			lines[i] = ""
		}
	}
	return strings.Join(lines, "\n")
}
