package dashboard

import (
	"net"
	"os"
	"strconv"
	"testing"
)

// The per-client cap tells local users apart: a loopback connection's
// client is the user that owns its other end (here, this test's).
func TestClientKeyIsTheUser(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got, want := clientKey(s), "uid "+strconv.Itoa(os.Getuid()); got != want {
		t.Errorf("client of a loopback connection: %q, want %q", got, want)
	}
}
