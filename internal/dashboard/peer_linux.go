package dashboard

import (
	"encoding/binary"
	"net"
	"strconv"

	"golang.org/x/sys/unix"
)

// clientKey names the client of a loopback connection for the
// per-client cap: on Linux, the user that owns the other end (asked of
// the kernel through sock_diag, as ss(8) does), since every local user
// connects from 127.0.0.1; the address when that cannot be told.
func clientKey(c net.Conn) string {
	local, ok1 := c.LocalAddr().(*net.TCPAddr)
	remote, ok2 := c.RemoteAddr().(*net.TCPAddr)
	if !ok1 || !ok2 {
		return c.RemoteAddr().String()
	}
	if uid, ok := peerUID(remote, local); ok {
		return "uid " + strconv.FormatUint(uint64(uid), 10)
	}
	return remote.IP.String()
}

// peerUID asks sock_diag for the owner of the TCP socket at src (the
// client's end) connected to dst (ours).
func peerUID(src, dst *net.TCPAddr) (uint32, bool) {
	family := byte(unix.AF_INET)
	s4, d4 := src.IP.To4(), dst.IP.To4()
	if s4 == nil || d4 == nil {
		family = unix.AF_INET6
	}
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
	if err != nil {
		return 0, false
	}
	defer unix.Close(fd)
	tv := unix.Timeval{Usec: 200000} // the kernel answers at once; never wait long
	_ = unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)

	const hdr, reqLen = 16, 56
	b := make([]byte, hdr+reqLen)
	binary.NativeEndian.PutUint32(b[0:], uint32(len(b)))
	binary.NativeEndian.PutUint16(b[4:], 20) // SOCK_DIAG_BY_FAMILY
	binary.NativeEndian.PutUint16(b[6:], unix.NLM_F_REQUEST)
	binary.NativeEndian.PutUint32(b[8:], 1) // sequence
	r := b[hdr:]
	r[0] = family
	r[1] = unix.IPPROTO_TCP
	binary.NativeEndian.PutUint32(r[4:], 0xffffffff) // every state
	id := r[8:]
	binary.BigEndian.PutUint16(id[0:], uint16(src.Port))
	binary.BigEndian.PutUint16(id[2:], uint16(dst.Port))
	if family == unix.AF_INET {
		copy(id[4:], s4)
		copy(id[20:], d4)
	} else {
		copy(id[4:], src.IP.To16())
		copy(id[20:], dst.IP.To16())
	}
	binary.NativeEndian.PutUint32(id[40:], 0xffffffff) // no cookie
	binary.NativeEndian.PutUint32(id[44:], 0xffffffff)
	if err := unix.Sendto(fd, b, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return 0, false
	}
	buf := make([]byte, 8192)
	n, _, err := unix.Recvfrom(fd, buf, 0)
	if err != nil || n < hdr+72 {
		return 0, false
	}
	if t := binary.NativeEndian.Uint16(buf[4:]); t != 20 { // an error or done message
		return 0, false
	}
	msg := buf[hdr:n]
	// inet_diag_msg: family, state, timer, retrans (4), sockid (48),
	// expires, rqueue, wqueue (12), uid.
	if binary.BigEndian.Uint16(msg[4:]) != uint16(src.Port) {
		return 0, false
	}
	return binary.NativeEndian.Uint32(msg[64:]), true
}
