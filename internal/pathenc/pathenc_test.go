package pathenc

import (
	"os/exec"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEncodeDecode(t *testing.T) {
	for _, p := range []string{"a.txt", "ünï/é.txt", "lat\xe9.txt", "\xff\xfe", "dir/n\xe9w\nline.txt", `"q".txt`, ""} {
		path, b64 := Encode(p)
		if utf8.ValidString(p) {
			if path != p || b64 != "" {
				t.Errorf("Encode(%q) = %q, %q; want the name itself and no path_b64", p, path, b64)
			}
		} else {
			if b64 == "" || !utf8.ValidString(path) {
				t.Errorf("Encode(%q) = %q, %q; want a UTF-8 path and a path_b64", p, path, b64)
			}
		}
		var bp *string
		if b64 != "" {
			bp = &b64
		}
		got, err := Decode(path, bp)
		if err != nil || got != p {
			t.Errorf("Decode(Encode(%q)) = %q, %v", p, got, err)
		}
	}
	bad := "!!"
	if _, err := Decode("x", &bad); err == nil {
		t.Error("Decode accepted invalid base64")
	}
}

func TestEncodeList(t *testing.T) {
	valid := []string{"a", "b/ü"}
	if paths, b64 := EncodeList(valid); b64 != nil || strings.Join(paths, ",") != "a,b/ü" {
		t.Errorf("EncodeList(valid) = %q, %q", paths, b64)
	}
	mixed := []string{"a", "lat\xe9.txt"}
	paths, b64 := EncodeList(mixed)
	if len(b64) != 2 || paths[0] != "a" || paths[1] != `"lat\351.txt"` {
		t.Errorf("EncodeList(mixed) = %q, %q", paths, b64)
	}
	got, err := DecodeList(paths, b64)
	if err != nil || strings.Join(got, "|") != strings.Join(mixed, "|") {
		t.Errorf("DecodeList = %q, %v", got, err)
	}
	if _, err := DecodeList(paths, b64[:1]); err == nil {
		t.Error("DecodeList accepted a paths_b64 of another length")
	}
}

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"a.txt":                 "a.txt",
		"ünï/é.txt":             "ünï/é.txt",
		"lat\xe9.txt":           `"lat\351.txt"`,
		"new\nline":             `"new\nline"`,
		"tab\there":             `"tab\there"`,
		`"lead`:                 `"\"lead"`,
		"e\x1b[2J":              `"e\033[2J"`,
		"c\u009b31m":            `"c\302\23331m"`,
		"b\u202etxt.exe":        `"b\342\200\256txt.exe"`,
		"i\u2066x":              `"i\342\201\246x"`,
		"m\u200fx":              `"m\342\200\217x"`,
		"del\x7f":               `"del\177"`,
		`back\slash`:            `back\slash`,
		"quote\"d\\ and\x1b":    `"quote\"d\\ and\033"`,
		"bell\a\b\v\f\r":        `"bell\a\b\v\f\r"`,
		"arabic\u061cmark":      `"arabic\330\234mark"`,
		"line\u2028separator":   `"line\342\200\250separator"`,
		"zero\u200bwidth space": "zero\u200bwidth space",
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestText(t *testing.T) {
	for in, want := range map[string]string{
		"plain — text\n\tnext": "plain — text\n\tnext",
		"esc \x1b]0;t\a":       `esc \033]0;t\007`,
		"csi \u009b2J":         `csi \u009b2J`,
		"rlo \u202e":           `rlo \u202e`,
		"raw \x9b byte":        `raw \233 byte`,
		"cr\r":                 `cr\015`,
	} {
		if got := Text(in); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestShellJoin(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"go", "test", "./..."}, "go test ./..."},
		{[]string{"sh", "-c", "echo task >> a.txt; echo new > b.txt"}, "sh -c 'echo task >> a.txt; echo new > b.txt'"},
		{[]string{"echo", "it's", ""}, `echo 'it'\''s' ''`},
		{[]string{"-m", "a b"}, "-m 'a b'"},
		{[]string{"$HOME", "*.go", "x\ny"}, "'$HOME' '*.go' 'x\ny'"},
	}
	for _, c := range cases {
		if got := ShellJoin(c.args); got != c.want {
			t.Errorf("ShellJoin(%q) = %q, want %q", c.args, got, c.want)
		}
	}
	// What sh reads back is the arguments themselves.
	args := []string{"a b", "it's", "", "$x", "tab\there", "ok"}
	out, err := exec.Command("sh", "-c", "printf '%s\\0' "+ShellJoin(args)).Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00"); strings.Join(got, "|") != strings.Join(args, "|") {
		t.Errorf("sh read back %q, want %q", got, args)
	}
}
