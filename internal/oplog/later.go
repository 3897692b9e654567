package oplog

import (
	"fmt"
	"sort"

	"github.com/nudgethis/git-nudge/internal/pathenc"
)

// laterTouches names the later operations that changed any ref, file or
// journal of target.
func laterTouches(ops []*Op, target *Op) []string {
	tn, _ := Number(target.ID)
	keys := touched(target)
	var reasons []string
	for _, o := range ops {
		n, _ := Number(o.ID)
		// An undo or redo only puts back values other operations
		// recorded: the state it leaves is what target's own after
		// values are checked against below, not a change of its own.
		if n <= tn || o.UndoneBy != "" || undoLike(o) {
			continue
		}
		for k := range touched(o) {
			if keys[k] {
				reasons = append(reasons, fmt.Sprintf("later operation %s (%s) also changed %s", o.ID, o.Kind, k))
				break
			}
		}
	}
	return capLater(reasons)
}

func touched(o *Op) map[string]bool {
	m := map[string]bool{}
	for _, r := range o.Refs {
		m["ref "+r.Name] = true
	}
	for _, f := range o.Files {
		m["file "+pathenc.Quote(f.RawPath())] = true
	}
	for _, j := range o.Journals {
		m["journal "+j.File] = true
	}
	if o.Index != nil {
		m["the index"] = true
	}
	return m
}

// laterIndex is what every operation of a log changed, worked out once,
// so that telling for each of n operations which later ones touched the
// same things costs what they touched, not n times the log.
type laterIndex struct {
	pos     map[*Op]int       // position in the log (newest first)
	done    map[*Op][]string  // touches' answers
	keys    []map[string]bool // touched(ops[i]), in log order
	byKey   map[string][]int  // key -> positions of ops that count as later changes
	ops     []*Op
	numbers []int
	// same names, for each key, a list equal to its own (the first key
	// with that list): ops that touch several keys together (a branch,
	// the index and a journal) are merged once.
	same map[string]string
	mark []int // distinct's marks
}

func newLaterIndex(ops []*Op) *laterIndex {
	x := &laterIndex{pos: map[*Op]int{}, done: map[*Op][]string{}, keys: make([]map[string]bool, len(ops)), byKey: map[string][]int{}, ops: ops, numbers: make([]int, len(ops))}
	for i, o := range ops {
		x.pos[o] = i
		x.keys[i] = touched(o)
		x.numbers[i], _ = Number(o.ID)
		if o.UndoneBy != "" || undoLike(o) {
			continue
		}
		for k := range x.keys[i] {
			x.byKey[k] = append(x.byKey[k], i)
		}
	}
	x.same = map[string]string{}
	first := map[string]string{}
	for _, k := range sortedKeys(x.byKey) {
		l := x.byKey[k]
		if len(l) < 2 {
			continue
		}
		enc := make([]byte, 0, 4*len(l))
		for _, p := range l {
			enc = append(enc, byte(p>>24), byte(p>>16), byte(p>>8), byte(p))
		}
		if f, ok := first[string(enc)]; ok {
			x.same[k] = f
		} else {
			first[string(enc)] = k
		}
	}
	return x
}

// touches is laterTouches(ops, target) for the ops x was made from. The
// later operations sharing a key are, in that key's list, the ones before
// target's position (the log is newest first): the lists are merged up to
// there, and only the reasons kept are written out.
func (x *laterIndex) touches(target *Op) []string {
	if r, ok := x.done[target]; ok {
		return r
	}
	i, ok := x.pos[target]
	if !ok {
		return laterTouches(x.ops, target)
	}
	tn := x.numbers[i]
	all := sortedKeys(x.keys[i])
	var keys []string
	has := map[string]bool{}
	for _, key := range all {
		has[key] = true
	}
	for _, key := range all {
		// A key whose list is that of an earlier key of the target's
		// adds no later operation and would never be named.
		if f, ok := x.same[key]; ok && has[f] {
			continue
		}
		keys = append(keys, key)
	}
	lists := make([][]int, len(keys))
	for k, key := range keys {
		l := x.byKey[key]
		// Later operations come first (numbers fall along the list).
		n := sort.Search(len(l), func(j int) bool { return x.numbers[l[j]] <= tn })
		lists[k] = l[:n]
	}
	var reasons []string
	more := 0
	for {
		if len(reasons) >= maxLaterReasons {
			// Only the count is left to find: the operations left in
			// the lists, each once (every one left is older than those
			// named).
			more += x.distinct(lists, i)
			break
		}
		best, bestKey := -1, -1
		for k, l := range lists {
			if len(l) > 0 && (best < 0 || l[0] < best) {
				best, bestKey = l[0], k
			}
		}
		if best < 0 {
			break
		}
		for k, l := range lists {
			if len(l) > 0 && l[0] == best {
				lists[k] = l[1:]
			}
		}
		if len(reasons) < maxLaterReasons {
			o := x.ops[best]
			reasons = append(reasons, fmt.Sprintf("later operation %s (%s) also changed %s", o.ID, o.Kind, keys[bestKey]))
		} else {
			more++
		}
	}
	if more > 0 {
		reasons = append(reasons, fmt.Sprintf("and %d more later operations changed the same", more))
	}
	x.done[target] = reasons
	return reasons
}

// distinct counts the operations in lists, each once, marking them in
// x.mark with target's position.
func (x *laterIndex) distinct(lists [][]int, target int) int {
	nonEmpty := 0
	for _, l := range lists {
		if len(l) > 0 {
			nonEmpty++
		}
	}
	if nonEmpty == 1 {
		for _, l := range lists {
			if len(l) > 0 {
				return len(l)
			}
		}
	}
	if x.mark == nil {
		x.mark = make([]int, len(x.ops))
	}
	n := 0
	for _, l := range lists {
		for _, p := range l {
			if x.mark[p] != target+1 {
				x.mark[p] = target + 1
				n++
			}
		}
	}
	return n
}

// maxLaterReasons is how many later operations a refusal names: an old
// checkpoint in a long log has hundreds, and naming them all would make
// the answer (and the dashboard's list) grow with the square of the log.
const maxLaterReasons = 10

// capLater keeps the first maxLaterReasons reasons and says how many more
// there are.
func capLater(reasons []string) []string {
	if len(reasons) <= maxLaterReasons {
		return reasons
	}
	more := len(reasons) - maxLaterReasons
	return append(reasons[:maxLaterReasons:maxLaterReasons], fmt.Sprintf("and %d more later operations changed the same", more))
}
