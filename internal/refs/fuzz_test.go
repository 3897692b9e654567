package refs_test

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/nudgethis/git-nudge/internal/refs"
)

var canonical = regexp.MustCompile(`^[tc][1-9][0-9]{0,8}$`)

// An id accepted by Valid is always the canonical "<letter><N>" spelling,
// safe as the last component of a ref name and as a file name: no path
// separators, dots, spaces, control characters or leading zeros. Seeds are
// in testdata/fuzz/FuzzKindValid.
func FuzzKindValid(f *testing.F) {
	for _, s := range []string{"t1", "c12", "t01", "../x", "t1/../t2", "t", "t999999999", "t1000000000", "t-0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		for _, k := range []refs.Kind{refs.Task, refs.Checkpoint} {
			n, numOK := k.Number(id)
			if !k.Valid(id) {
				if canonical.MatchString(id) && strings.HasPrefix(id, k.Letter) {
					t.Fatalf("%s: Valid(%q) = false for a canonical id", k.Letter, id)
				}
				continue
			}
			if !canonical.MatchString(id) || !strings.HasPrefix(id, k.Letter) {
				t.Fatalf("%s: Valid(%q) = true for a non-canonical id", k.Letter, id)
			}
			if !numOK || n <= 0 || k.Letter+strconv.Itoa(n) != id {
				t.Fatalf("%s: Number(%q) = %d, %v; does not spell the id back", k.Letter, id, n, numOK)
			}
			if ref := k.Ref(id); ref != k.Prefix+id || strings.Contains(ref, "..") || strings.Count(ref, "/") != strings.Count(k.Prefix, "/") {
				t.Fatalf("%s: Ref(%q) = %q escapes its folder", k.Letter, id, ref)
			}
		}
	})
}
