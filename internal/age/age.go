// Package age says how long ago something happened, in the one wording
// every list of both tools uses: "just now", "12m ago", "5h ago", "3d ago".
package age

import (
	"strconv"
	"time"
)

// Since says how long before now t was: under a minute (or t after now, a
// clock behind the record) "just now", then whole minutes, whole hours
// below two days, then whole days.
func Since(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return strconv.Itoa(int(d/time.Minute)) + "m ago"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d/time.Hour)) + "h ago"
	default:
		return strconv.Itoa(int(d/(24*time.Hour))) + "d ago"
	}
}
