package runner

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// The answer of the far script is found after the command's output
// however the stream is cut into writes, the output before it is passed
// on whole, and a bundle is whole only when every byte the status line
// announced came.
func TestSSHAnswerSplitAnywhere(t *testing.T) {
	mark := "0123456789abcdef0123456789abcdef"
	output := "line one\n01234 almost the marker 0123456789abcdef012\nlast"
	bundle := "# v2 git bundle\nnot really a bundle\n"
	stream := output + mark + " bundle 4 " + strconv.Itoa(len(bundle)) + "\n" + bundle
	for cut := 0; cut <= len(stream); cut++ {
		for _, chunk := range []int{1, 3, 7, len(stream)} {
			var out bytes.Buffer
			path := filepath.Join(t.TempDir(), "out.bundle")
			a := &sshAnswer{out: &out, mark: []byte(mark), path: path}
			write := func(s string) {
				for len(s) > 0 {
					n := min(chunk, len(s))
					if _, err := a.Write([]byte(s[:n])); err != nil {
						t.Fatal(err)
					}
					s = s[n:]
				}
			}
			write(stream[:cut])
			write(stream[cut:])
			a.end()
			if out.String() != output {
				t.Fatalf("cut %d chunk %d: output %q, want %q", cut, chunk, out.String(), output)
			}
			if !a.whole() || a.kind != "bundle" || a.code != 4 {
				t.Fatalf("cut %d chunk %d: kind %q code %d whole %v err %v", cut, chunk, a.kind, a.code, a.whole(), a.err)
			}
			got, err := os.ReadFile(path)
			if err != nil || string(got) != bundle {
				t.Fatalf("cut %d chunk %d: bundle %q, %v", cut, chunk, got, err)
			}
		}
	}
}

func TestSSHAnswerIncomplete(t *testing.T) {
	mark := "0123456789abcdef0123456789abcdef"
	for _, tc := range []struct {
		name, stream string
		output       string
	}{
		{"no answer", "output only 0123", "output only 0123"},
		{"cut bundle", "out" + mark + " bundle 0 10\n12345", "out"},
		{"bad status", "out" + mark + " bundle x 10\n1234567890", "out"},
		{"too long", "out" + mark + " bundle 0 3\n1234", "out"},
		{"nothing ran", mark + " missing 0 0\n", ""},
	} {
		var out bytes.Buffer
		a := &sshAnswer{out: &out, mark: []byte(mark), path: filepath.Join(t.TempDir(), "b")}
		if _, err := a.Write([]byte(tc.stream)); err != nil {
			t.Fatal(err)
		}
		a.end()
		if a.whole() {
			t.Errorf("%s: taken as a whole answer", tc.name)
		}
		if out.String() != tc.output {
			t.Errorf("%s: output %q, want %q", tc.name, out.String(), tc.output)
		}
	}
}
