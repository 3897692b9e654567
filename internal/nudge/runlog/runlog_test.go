package runlog

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestBoundedLogKeepsTheEnd(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "run.log")
	l, err := Open(path, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var all bytes.Buffer
	for i := 0; i < 500; i++ {
		line := fmt.Sprintf("line %04d\n", i) // 10 bytes
		all.WriteString(line)
		if _, err := l.Write([]byte(line)); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	first, rest, _ := strings.Cut(string(got), "\n")
	m := regexp.MustCompile(`^\[git nudge: the first (\d+) bytes of this output were cut; the last (\d+) are kept below\]$`).FindStringSubmatch(first)
	if m == nil {
		t.Fatalf("no cut marker: %q", first)
	}
	if m[1] != "4000" || m[2] != "1000" || rest != all.String()[4000:] {
		t.Errorf("marker %q, kept %d bytes starting %q", first, len(rest), rest[:20])
	}
	if !strings.HasSuffix(rest, "line 0499\n") || !strings.HasPrefix(rest, "line 0400\n") {
		t.Errorf("kept part is not the last lines: %q...", rest[:20])
	}
}

func TestBoundedLogSmallIsUntouched(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "setup.log")
	l, err := Open(path, 1000)
	if err != nil {
		t.Fatal(err)
	}
	l.Write([]byte("hello\n"))
	if l.Cut() != 0 {
		t.Errorf("cut %d", l.Cut())
	}
	l.Close()
	if got, _ := os.ReadFile(path); string(got) != "hello\n" {
		t.Errorf("got %q", got)
	}
}
