package oplog

import (
	"fmt"
	"sort"
	"strings"
)

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

func commitOf(head string, refs map[string]string) string {
	if b, ok := strings.CutPrefix(head, "ref: "); ok {
		return refs[b]
	}
	return head
}

func sameFile(a, b *File) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// summary is the one-line description of what op changed.
func summary(o *Op) string {
	var parts []string
	switch o.Kind {
	case KindUndo:
		parts = append(parts, "undid "+o.Undoes)
	case KindRedo:
		parts = append(parts, "redid "+o.Redoes)
	}
	for _, r := range o.Refs {
		name := strings.TrimPrefix(strings.TrimPrefix(r.Name, "refs/heads/"), "refs/")
		switch {
		case r.Name == "HEAD":
			parts = append(parts, "HEAD "+short(r.Old)+" -> "+short(r.New))
		case !strings.HasPrefix(r.Name, "refs/heads/"):
			continue
		case r.Old == "":
			parts = append(parts, "created "+name)
		case r.New == "":
			parts = append(parts, "deleted "+name)
		default:
			parts = append(parts, name+" "+short(r.Old)+" -> "+short(r.New))
		}
	}
	if n := len(o.Files); n > 0 {
		parts = append(parts, plural(n, "file")+" changed")
	}
	if o.Index != nil {
		parts = append(parts, "index changed")
	}
	if n := len(o.Journals); n > 0 {
		parts = append(parts, plural(n, "journal")+" changed")
	}
	if len(parts) == 0 {
		parts = append(parts, "no change")
	}
	if o.State == Failed {
		parts = append(parts, "failed: "+o.Error)
	}
	return strings.Join(parts, "; ")
}

func short(v string) string {
	if b, ok := strings.CutPrefix(v, "ref: "); ok {
		return strings.TrimPrefix(b, "refs/heads/")
	}
	if v == "" {
		return "(none)"
	}
	if len(v) > 7 {
		return v[:7]
	}
	return v
}

func plural(n int, s string) string {
	if n == 1 {
		return "1 " + s
	}
	return fmt.Sprintf("%d %ss", n, s)
}
