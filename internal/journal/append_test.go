package journal

import (
	"encoding/json"
	"reflect"
	"testing"
)

type appendRec struct {
	ID    string  `json:"id"`
	Label string  `json:"label"`
	Task  *string `json:"task"`
}

// Appending to what Write wrote gives what Write writes for the whole
// array, for every split (none already there included); an array written
// some other way keeps its bytes and still decodes to every element.
func TestAppendArray(t *testing.T) {
	task := "T <1> & \"x\""
	all := []appendRec{{"c1", "thread — one", nil}, {"c2", "two\nlines", &task}, {"c3", "", nil}}
	whole, err := Encode(all)
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k <= len(all); k++ {
		prev, _ := Encode(append([]appendRec{}, all[:k]...))
		got, ok, err := AppendArray(prev, all[k:])
		if k == len(all) {
			continue // nothing to append: callers write the whole value
		}
		if err != nil || !ok || string(got) != string(whole) {
			t.Errorf("after %d: ok %v err %v\n%s\nwant\n%s", k, ok, err, got, whole)
		}
	}
	for _, prev := range []string{`[{"id":"c1","label":"thread — one","task":null,"future":[1, 2]}]`, "[ ]\n", "[]"} {
		got, ok, err := AppendArray([]byte(prev), all[1:])
		if err != nil || !ok {
			t.Fatalf("%s: ok %v err %v", prev, ok, err)
		}
		var back []appendRec
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("%s: %v\n%s", prev, err, got)
		}
		want := all[1:]
		if prev[1] == '{' {
			want = all
			if string(got[:len(prev)-1]) != prev[:len(prev)-1] {
				t.Errorf("the elements already there were rewritten:\n%s", got)
			}
		}
		if !reflect.DeepEqual(back, want) {
			t.Errorf("%s: decodes to %+v", prev, back)
		}
	}
	for _, prev := range []string{`{"id":"c1"}`, `["a"]`, ``} {
		if _, ok, _ := AppendArray([]byte(prev), all); ok {
			t.Errorf("%q taken for an array of records", prev)
		}
	}
}
