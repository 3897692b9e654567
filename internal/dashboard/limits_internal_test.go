package dashboard

import (
	"net"
	"testing"
)

// A second local user's flood (client "other") holds at most the
// per-client cap and only ever pushes out its own idle connections; the
// user's authenticated connections are never closed for it, and a new one
// of the user's still gets in.
func TestLimiterKeepsTheUserIn(t *testing.T) {
	l := &limiter{max: 8, perClient: 4}
	conn := func(client string) *trackedConn {
		a, b := net.Pipe()
		t.Cleanup(func() { a.Close(); b.Close() })
		return &trackedConn{Conn: a, lim: l, client: client}
	}
	var mine []*trackedConn
	for range 2 {
		c := conn("uid 1000")
		if _, ok := l.admit(c); !ok {
			t.Fatal("the user's connection refused")
		}
		c.authed = true
		mine = append(mine, c)
	}
	closed := map[*trackedConn]bool{}
	for range 100 {
		evict, ok := l.admit(conn("uid 1001"))
		if !ok {
			t.Fatal("a newcomer was refused while idle connections could make room")
		}
		for _, e := range evict {
			if e.client != "uid 1001" {
				t.Fatalf("the other user's flood closed a connection of %s", e.client)
			}
			closed[e] = true
			l.remove(e)
		}
	}
	others := 0
	for _, c := range l.conns {
		if c.client == "uid 1001" {
			others++
		}
	}
	if others != 4 {
		t.Errorf("the other user holds %d connections, cap 4", others)
	}
	// The user's new connection gets in, without closing the user's own.
	evict, ok := l.admit(conn("uid 1000"))
	if !ok {
		t.Fatal("the user's new connection refused")
	}
	for _, e := range evict {
		if e.client == "uid 1000" {
			t.Fatal("an authenticated connection of the user was closed")
		}
	}
	for _, c := range mine {
		if closed[c] {
			t.Fatal("an authenticated connection was closed")
		}
	}
}
