package age

import (
	"testing"
	"time"
)

func TestSince(t *testing.T) {
	now := time.Date(2026, 3, 3, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		ago  time.Duration
		want string
	}{
		{0, "just now"},
		{59 * time.Second, "just now"},
		{-time.Hour, "just now"}, // a clock behind the record
		{time.Minute, "1m ago"},
		{5*time.Minute + 30*time.Second, "5m ago"},
		{59 * time.Minute, "59m ago"},
		{3 * time.Hour, "3h ago"},
		{23*time.Hour + 59*time.Minute, "23h ago"},
		{47*time.Hour + 59*time.Minute, "47h ago"},
		{48 * time.Hour, "2d ago"},
		{400 * 24 * time.Hour, "400d ago"},
	} {
		if got := Since(now, now.Add(-c.ago)); got != c.want {
			t.Errorf("Since(%v ago) = %q, want %q", c.ago, got, c.want)
		}
	}
}
