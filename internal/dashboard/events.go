package dashboard

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/nudgethis/git-nudge/internal/journal"
)

// fingerprint sums up what the page shows: the modification times and
// sizes of the journals (a task record is written by rename, which changes
// its folder's time) and whether a run holds run.lock. Reading it changes
// nothing.
func (s *Server) fingerprint() string {
	var b strings.Builder
	for _, p := range []string{
		filepath.Join(s.nudgeDir, "tasks"),
		filepath.Join(s.nudgeDir, "saves.json"),
		filepath.Join(s.autodevDir, "checkpoints.json"),
		filepath.Join(s.autodevDir, "state.json"),
	} {
		if fi, err := os.Stat(p); err == nil {
			b.WriteString(strconv.FormatInt(fi.ModTime().UnixNano(), 36))
			b.WriteByte('.')
			b.WriteString(strconv.FormatInt(fi.Size(), 36))
			if k, ok := journal.KeyOf(fi); ok && !fi.IsDir() {
				// A journal is replaced by rename: a new inode each time,
				// even within one timestamp tick.
				b.WriteByte('.')
				b.WriteString(strconv.FormatUint(k.Ino, 36))
			}
		}
		b.WriteByte('|')
	}
	if held, _ := journal.Held(filepath.Join(s.autodevDir, "run.lock")); held {
		b.WriteString("run")
	}
	return b.String()
}

// events is GET /api/events: server-sent events, one "change" event each
// time the fingerprint changes (looked at every Options.Poll), so that
// what the command line does shows on the page within a second. The
// stream ends when the client goes or the server closes.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		writeError(w, http.StatusInternalServerError, fmt.Errorf("streaming is not supported here"))
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	last := s.fingerprint()
	fmt.Fprintf(w, "retry: 1000\nevent: hello\ndata: %s\n\n", last)
	fl.Flush()
	tick := time.NewTicker(s.opts.Poll)
	defer tick.Stop()
	idle := 0
	for {
		select {
		case <-r.Context().Done():
			return
		case <-s.closing:
			return
		case <-tick.C:
		}
		fp := s.fingerprint()
		if fp != last {
			last = fp
			idle = 0
			if _, err := fmt.Fprintf(w, "event: change\ndata: %s\n\n", fp); err != nil {
				return
			}
			fl.Flush()
			continue
		}
		if idle++; time.Duration(idle)*s.opts.Poll >= 15*time.Second {
			idle = 0
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil {
				return
			}
			fl.Flush()
		}
	}
}
