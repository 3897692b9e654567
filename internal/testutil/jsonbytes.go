package testutil

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// KeepsNameBytes checks that v, a record or report holding a file name
// that is not valid UTF-8, writes it to JSON without losing a byte (no
// U+FFFD, and b64, the name's base64 as "path_b64" gives it, present), and
// that the JSON reads back into a T equal to v. It returns the JSON.
func KeepsNameBytes[T any](t *testing.T, v T, b64 string) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "\ufffd") || !strings.Contains(string(data), b64) {
		t.Errorf("%T lost the bytes of the name:\n%s", v, data)
	}
	var back T
	if err := json.Unmarshal(data, &back); err != nil || !reflect.DeepEqual(back, v) {
		t.Errorf("%T read back as %+v (%v)", v, back, err)
	}
	return data
}
