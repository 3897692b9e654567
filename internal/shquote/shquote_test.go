package shquote

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestShellReadsBack hands quoted words to a real sh and checks that each
// comes back byte for byte.
func TestShellReadsBack(t *testing.T) {
	t.Parallel()
	words := []string{"plain", "", " ", "two words", "it's", "'", `\`, `"$HOME"`, "$(id)", "`id`",
		"a*b?", "~user", "#hash", "semi;colon", "new\nline", "tab\there", "a=b", "a=b c", "=a b", "x y=z", "-n", "%@+,:./_-", "ünï", "!bang", "{a,b}", "[x]"}
	out, err := exec.Command("sh", "-c", "printf '%s\\0' "+Line(words)).Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if !slices.Equal(got, words) {
		t.Fatalf("sh read back\n%q\nwant\n%q", got, words)
	}
}

func TestBareWordsStayBare(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"/tmp/repo/.git":     "/tmp/repo/.git",
		"FOO=bar":            "FOO=bar",
		"a b":                "'a b'",
		"A=b c":              "A='b c'",
		"1A=b c":             "'1A=b c'",
		"=x y":               "'=x y'",
		"it's":               `'it'\''s'`,
		"":                   "''",
		"agent-1.2:x@host,y": "agent-1.2:x@host,y",
	} {
		if got := Word(in); got != want {
			t.Errorf("Word(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestLeadingAssignments: NAME=value words before the command are read by
// sh as its environment, which is how the runners pass variables.
func TestLeadingAssignments(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"one", "two words", "it's $HOME", "", "/path with space/x"} {
		line := Line([]string{"NUDGE_X=" + v, "NUDGE_Y=y", "sh", "-c", `printf %s "$NUDGE_X"`})
		out, err := exec.Command("sh", "-c", line).Output()
		if err != nil || string(out) != v {
			t.Errorf("sh -c %s: got %q, %v; want %q", line, out, err, v)
		}
	}
}
