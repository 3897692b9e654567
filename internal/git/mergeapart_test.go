package git

import (
	"bytes"
	"context"
	"math/rand"
	"strings"
	"testing"

	"github.com/nudgethis/git-nudge/internal/linemerge"
)

// On many small random merges of few distinct lines (so that git's line
// diff has ties to break and groups of lines it could slide), a merge
// done in this process (linemerge.Apart) is exactly what git merge-file gives,
// with and without diff3 labels, and never one merge-file finds a
// conflict in; and it is done for a good share of the merges whose
// changes were made apart.
func TestMergeApartAgreesWithMergeFile(t *testing.T) {
	ctx := context.Background()
	r := newApplyRepo(t)
	rnd := rand.New(rand.NewSource(2812))
	line := func() string {
		l := string(rune('a' + rnd.Intn(3)))
		if rnd.Intn(10) == 0 {
			l += "\r"
		}
		return l
	}
	lines := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = line()
		}
		return out
	}
	// edit changes base's lines from..to-1 (a line dropped, replaced,
	// or followed by a new one).
	edit := func(base []string, from, to int) []string {
		var out []string
		for i, l := range base {
			if i < from || i >= to {
				out = append(out, l)
				continue
			}
			switch rnd.Intn(6) {
			case 0: // dropped
			case 1:
				out = append(out, lines(1+rnd.Intn(2))...)
			case 2:
				out = append(out, l, line())
			default:
				out = append(out, l)
			}
		}
		if from == 0 && rnd.Intn(4) == 0 {
			out = append(lines(1), out...)
		}
		if to == len(base) && rnd.Intn(4) == 0 {
			out = append(out, line())
		}
		return out
	}
	text := func(ls []string, eol bool) string {
		s := strings.Join(ls, "\n")
		if eol {
			s += "\n"
		}
		return s
	}
	// With three distinct lines the lines next to a gap are often in a
	// change too: about one merge in eight is done in this process.
	cases := 2000
	if testing.Short() {
		cases = 500
	}
	tmp := t.TempDir()
	apart, tried := 0, 0
	for tried < cases {
		base := lines(3 + rnd.Intn(10))
		var o, th []string
		if rnd.Intn(4) == 0 {
			o, th = edit(base, 0, len(base)), edit(base, 0, len(base))
		} else {
			// ours changes only lines before cut, theirs only lines
			// from cut+gap on.
			cut := 1 + rnd.Intn(len(base)-1)
			gap := min(rnd.Intn(3), len(base)-cut-1)
			o, th = edit(base, 0, cut), edit(base, cut+gap, len(base))
			if rnd.Intn(2) == 0 {
				o, th = th, o
			}
		}
		eol := rnd.Intn(5) != 0
		in := MergeInput{Base: []byte(text(base, eol)), Ours: []byte(text(o, eol)), Theirs: []byte(text(th, eol))}
		if !batchable(in) || bytes.Equal(in.Ours, in.Base) || bytes.Equal(in.Theirs, in.Base) || bytes.Equal(in.Ours, in.Theirs) {
			continue
		}
		tried++
		got, ok := linemerge.Apart(in.Ours, in.Base, in.Theirs)
		if !ok {
			continue
		}
		apart++
		for _, labels := range [][]string{nil, {"workspace", "snapshot", "task"}} {
			want, err := r.MergeFileLabeled(ctx, tmp, in.Ours, in.Base, in.Theirs, labels)
			if err != nil {
				t.Fatal(err)
			}
			if want.Conflicts != 0 || !bytes.Equal(got, want.Data) {
				t.Errorf("labels %v, merge of %q into %q (base %q): in this process %q, merge-file %q (%d conflicts)",
					labels, in.Theirs, in.Ours, in.Base, got, want.Data, want.Conflicts)
			}
		}
	}
	if apart < cases/16 {
		t.Errorf("only %d of %d merges were done in this process: the cases test too little", apart, cases)
	}
	t.Logf("%d of %d merges done in this process", apart, cases)
}
