package nudgecmd

import (
	"testing"

	"github.com/nudgethis/git-nudge/internal/nudge/review"
)

func TestDiffLimit(t *testing.T) {
	n := int64(500)
	zero := int64(0)
	for _, c := range []struct {
		flag     *int64
		terminal bool
		want     int64
	}{
		{nil, true, review.DiffLimit},
		{nil, false, 0},
		{&n, false, 500},
		{&n, true, 500},
		{&zero, true, 0},
	} {
		if got := diffLimit(c.flag, c.terminal); got != c.want {
			t.Errorf("diffLimit(%v, terminal=%v) = %d, want %d", c.flag, c.terminal, got, c.want)
		}
	}
}
