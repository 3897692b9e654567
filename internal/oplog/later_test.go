package oplog

import (
	"math/rand"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The indexed check of later operations (one per log read, for every
// operation the dashboard lists) names the same later operations, and
// counts the same number beyond those named, as the check of one
// operation against the whole log, whatever keys the operations share.
func TestLaterIndexMatchesTheWholeLog(t *testing.T) {
	rnd := rand.New(rand.NewSource(1))
	var ops []*Op
	for i := 1; i <= 400; i++ {
		o := &Op{ID: "o" + strconv.Itoa(i), Kind: "checkpoint", State: Done}
		o.Refs = append(o.Refs, RefChange{Name: "refs/autodev/checkpoints/c" + strconv.Itoa(i)})
		switch rnd.Intn(4) {
		case 0: // a checkpoint: the branch, the index and the journal together
			o.Refs = append(o.Refs, RefChange{Name: "refs/heads/main"})
			o.Index = &BlobChange{}
			o.Journals = []BlobChange{{File: ".autodev/checkpoints.json"}}
		case 1:
			o.Files = []FileChange{{Path: "a.txt"}}
			if rnd.Intn(2) == 0 {
				o.Files = append(o.Files, FileChange{Path: "b.txt"})
			}
		case 2:
			o.Refs = append(o.Refs, RefChange{Name: "refs/heads/main"})
		case 3:
			o.Journals = []BlobChange{{File: ".autodev/checkpoints.json"}}
			if rnd.Intn(3) == 0 {
				o.UndoneBy = "o1"
			}
		}
		ops = append([]*Op{o}, ops...)
	}
	named := regexp.MustCompile(`^later operation (o[0-9]+) `)
	summary := func(reasons []string) string {
		var s []string
		for _, r := range reasons {
			if m := named.FindStringSubmatch(r); m != nil {
				s = append(s, m[1])
			} else {
				s = append(s, r)
			}
		}
		return strings.Join(s, " ")
	}
	x := newLaterIndex(ops)
	for _, o := range ops {
		got, want := summary(x.touches(o)), summary(laterTouches(ops, o))
		if got != want {
			t.Fatalf("%s: indexed %q, whole log %q", o.ID, got, want)
		}
	}
}
