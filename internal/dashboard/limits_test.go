package dashboard_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/nudgethis/git-nudge/internal/cli/dashboardcmd"
	"github.com/nudgethis/git-nudge/internal/dashboard"
)

// TestIdleFloodDoesNotLockOut (docs/SECURITY.md, in a bounded form):
// 21,000 idle unauthenticated connections once used up the server's file
// descriptors. With a cap of 16 connections, 200 idle ones leave at most
// 16 open, and the user's request with the token is still answered; the
// user's own connection, once authenticated, is not closed to make room
// for more idle ones.
func TestIdleFloodDoesNotLockOut(t *testing.T) {
	t.Parallel()
	const max, flood = 16, 200
	s, err := dashboard.New(context.Background(), dashboard.Options{Dir: workspace(t), Shapes: dashboardcmd.Shapes(), MaxConns: max, MaxConnsPerClient: max})
	if err != nil {
		t.Fatal(err)
	}
	l, err := s.Listen(0)
	if err != nil {
		t.Fatal(err)
	}
	hs := s.HTTPServer()
	go hs.Serve(l)
	t.Cleanup(func() { s.Close(); hs.Close() })
	if hs.ReadHeaderTimeout <= 0 || hs.IdleTimeout <= 0 || hs.MaxHeaderBytes <= 0 {
		t.Errorf("timeouts: header %v, idle %v, header bytes %d", hs.ReadHeaderTimeout, hs.IdleTimeout, hs.MaxHeaderBytes)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", s.Port())

	// The user's client, with a connection kept alive across requests.
	user := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1, MaxConnsPerHost: 1}}
	get := func() int {
		t.Helper()
		req, _ := http.NewRequest("GET", "http://"+addr+"/api/nudge/tasks", nil)
		req.Header.Set("Authorization", "Bearer "+s.Token())
		resp, err := user.Do(req)
		if err != nil {
			t.Fatalf("the user's request: %v (open connections: %d)", err, s.OpenConns())
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := get(); code != http.StatusOK {
		t.Fatalf("before the flood: %d", code)
	}

	var idle []net.Conn
	t.Cleanup(func() {
		for _, c := range idle {
			c.Close()
		}
	})
	for range flood {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("dial: %v", err)
		}
		idle = append(idle, c)
	}
	// The user's kept-alive connection still answers, and so does a new one.
	if code := get(); code != http.StatusOK {
		t.Fatalf("after the flood, on the user's connection: %d", code)
	}
	user.CloseIdleConnections()
	if code := get(); code != http.StatusOK {
		t.Fatalf("after the flood, on a new connection: %d", code)
	}
	if n := s.OpenConns(); n > max {
		t.Errorf("%d connections open, cap %d", n, max)
	}
	// An idle connection that was closed to make room reads EOF.
	closed := 0
	for _, c := range idle[:flood-max] {
		c.SetReadDeadline(time.Now().Add(10 * time.Second)) // a bound, not a measure: closed ones answer at once
		if _, err := c.Read(make([]byte, 1)); err == io.EOF {
			closed++
		}
	}
	if closed != flood-max {
		t.Errorf("%d of the oldest %d idle connections were closed", closed, flood-max)
	}
}
