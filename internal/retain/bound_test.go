package retain

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestBound(t *testing.T) {
	week := func() (time.Duration, error) { return 7 * 24 * time.Hour, nil }
	unset := func() (time.Duration, error) { return 0, nil }
	broken := errors.New("config unreadable")
	fails := func() (time.Duration, error) { return 0, broken }
	for _, c := range []struct {
		older     string
		keep      int
		retention func() (time.Duration, error)
		want      time.Duration
		usage     string // the start of a *BoundError's message
		err       error
	}{
		{older: "2d", keep: -1, retention: fails, want: 48 * time.Hour},
		{older: "2d", keep: 3, retention: fails, want: 48 * time.Hour},
		{keep: -1, retention: week, want: 7 * 24 * time.Hour},
		{keep: 0, retention: fails, want: 0},
		{keep: 5, retention: unset, want: 0},
		{older: "3x", keep: -1, retention: week, usage: "--older-than: "},
		{keep: -1, retention: unset, usage: "prune needs a bound: "},
		{keep: -1, retention: fails, err: broken},
	} {
		got, err := Bound(c.older, c.keep, "tool.retention", c.retention)
		var be *BoundError
		switch {
		case c.usage != "":
			if !errors.As(err, &be) || !strings.HasPrefix(err.Error(), c.usage) {
				t.Errorf("Bound(%q, %d) = %v, want a BoundError starting %q", c.older, c.keep, err, c.usage)
			}
		case c.err != nil:
			if !errors.Is(err, c.err) || errors.As(err, &be) {
				t.Errorf("Bound(%q, %d) = %v, want %v as it is", c.older, c.keep, err, c.err)
			}
		case err != nil || got != c.want:
			t.Errorf("Bound(%q, %d) = %v, %v; want %v", c.older, c.keep, got, err, c.want)
		}
	}
	if _, err := Bound("", -1, "tool.retention", unset); !strings.Contains(err.Error(), "git config tool.retention 30d") {
		t.Errorf("the missing bound names the wrong setting: %v", err)
	}
}

func TestUsageText(t *testing.T) {
	var u Usage
	u.Add("task_refs", "refs", 32, 2048)
	u.Add("op_log", "logs", 1, 0)
	u.Largest = []Sized{{ID: "7", Bytes: 2048}, {ID: "12", Bytes: 10}}
	want := "task refs  32 refs     2.0 KiB\n" +
		"op log     1 logs          0 B\n" +
		"total                  2.0 KiB\n" +
		"Largest:\n" +
		"  7      2.0 KiB\n" +
		"  12        10 B\n"
	if got := u.Text("Largest:"); got != want {
		t.Errorf("Text =\n%s\nwant\n%s", got, want)
	}
	if u.Total != 2048 {
		t.Errorf("Total = %d, want 2048", u.Total)
	}
}
