//go:build !linux

package dashboard

import "net"

// clientKey names the client of a connection for the per-client cap: its
// address here (Linux tells the user owning the other end).
func clientKey(c net.Conn) string {
	if a, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		return a.IP.String()
	}
	return c.RemoteAddr().String()
}
