package dashboard

import (
	"context"
	"net"
	"net/http"
	"sync"
	"time"
)

// Connection limits (docs/SECURITY.md, the dashboard): anyone on the machine can connect
// to 127.0.0.1, so a flood of idle connections must not use up the
// server's descriptors and lock the user out. Every connection counts
// against a total and a per-client cap; one that has not yet presented
// the token is the first to go: at a cap, the oldest unauthenticated
// connection (of that client, then of anyone) is closed to make room, and
// a connection that has sent the token is never closed for another. The
// http.Server adds header, idle and read timeouts, so an unauthenticated
// connection cannot stay long anyway.
const (
	// DefaultMaxConns is the total cap on open connections.
	DefaultMaxConns = 256
	// DefaultMaxConnsPerClient caps one client: on Linux the local user
	// owning the other end (peer_linux.go), elsewhere the address. So
	// another user can hold at most half the slots, and the eviction
	// rule keeps room for the user's own new connections.
	DefaultMaxConnsPerClient = 128

	readHeaderTimeout = 5 * time.Second
	idleTimeout       = 60 * time.Second
	maxHeaderBytes    = 64 << 10
)

type connKey struct{}

// limiter tracks the open connections of one server.
type limiter struct {
	max, perClient int

	mu    sync.Mutex
	conns []*trackedConn // in accept order
}

type trackedConn struct {
	net.Conn
	lim    *limiter
	client string
	authed bool // under lim.mu
	once   sync.Once
}

func (c *trackedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.lim.remove(c) })
	return err
}

func (l *limiter) remove(c *trackedConn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, o := range l.conns {
		if o == c {
			l.conns = append(l.conns[:i], l.conns[i+1:]...)
			return
		}
	}
}

// admit adds c, making room first: it returns the connections to close
// (older unauthenticated ones), and ok false when c itself must go (every
// slot is held by an authenticated connection).
func (l *limiter) admit(c *trackedConn) (evict []*trackedConn, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	gone := map[*trackedConn]bool{}
	oldestUnauth := func(client string) *trackedConn {
		for _, o := range l.conns {
			if !o.authed && !gone[o] && (client == "" || o.client == client) {
				return o
			}
		}
		return nil
	}
	count := func(client string) int {
		n := 0
		for _, o := range l.conns {
			if !gone[o] && (client == "" || o.client == client) {
				n++
			}
		}
		return n
	}
	for count(c.client) >= l.perClient {
		o := oldestUnauth(c.client)
		if o == nil {
			return evict, false
		}
		gone[o] = true
		evict = append(evict, o)
	}
	for count("") >= l.max {
		o := oldestUnauth("")
		if o == nil {
			return evict, false
		}
		gone[o] = true
		evict = append(evict, o)
	}
	l.conns = append(l.conns, c)
	return evict, true
}

func (l *limiter) open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.conns)
}

// limitListener applies the limiter at Accept.
type limitListener struct {
	net.Listener
	lim *limiter
}

func (ll *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := ll.Listener.Accept()
		if err != nil {
			return nil, err
		}
		tc := &trackedConn{Conn: c, lim: ll.lim, client: clientKey(c)}
		evict, ok := ll.lim.admit(tc)
		for _, o := range evict {
			o.Close()
		}
		if !ok {
			c.Close()
			continue
		}
		return tc, nil
	}
}

// markAuthenticated records that r's connection presented the token: it
// is no longer closed to make room for others.
func markAuthenticated(r *http.Request) {
	c, _ := r.Context().Value(connKey{}).(*trackedConn)
	if c == nil {
		return
	}
	c.lim.mu.Lock()
	c.authed = true
	c.lim.mu.Unlock()
}

// HTTPServer is the http.Server for s, with its timeouts and the hook
// that lets the limits know which connections have authenticated. Serve
// it on the listener Listen returns (which applies the connection caps).
func (s *Server) HTTPServer() *http.Server {
	return &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: readHeaderTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			return context.WithValue(ctx, connKey{}, c)
		},
	}
}

// OpenConns is how many connections the server holds open now.
func (s *Server) OpenConns() int { return s.limits.open() }
