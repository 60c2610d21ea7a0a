package icp

import (
	"errors"
	"net"
	"net/netip"
	"syscall"
)

// readBufferSize holds any datagram the Message Length field can
// describe plus one byte, so that a longer one shows as too big rather
// than truncated to a plausible length.
const readBufferSize = MaxDatagram + 1

// readFrom reads one datagram and its source, IPv4-mapped IPv6 addresses
// unmapped so that they compare equal to the IPv4 peers they are.
func readFrom(conn net.PacketConn, buf []byte) (int, netip.AddrPort, error) {
	if u, ok := conn.(*net.UDPConn); ok {
		n, from, err := u.ReadFromUDPAddrPort(buf)
		return n, normalize(from), err
	}
	n, addr, err := conn.ReadFrom(buf)
	return n, addrPortOf(addr), err
}

// writeTo sends one datagram to a UDP address.
func writeTo(conn net.PacketConn, b []byte, to netip.AddrPort) error {
	if u, ok := conn.(*net.UDPConn); ok {
		_, err := u.WriteToUDPAddrPort(b, to)
		return err
	}
	_, err := conn.WriteTo(b, net.UDPAddrFromAddrPort(to))
	return err
}

func normalize(ap netip.AddrPort) netip.AddrPort {
	return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
}

// addrPortOf converts the address a net.PacketConn reports; anything not
// UDP-like becomes the zero AddrPort.
func addrPortOf(a net.Addr) netip.AddrPort {
	switch a := a.(type) {
	case nil:
		return netip.AddrPort{}
	case *net.UDPAddr:
		return normalize(a.AddrPort())
	}
	ap, err := netip.ParseAddrPort(a.String())
	if err != nil {
		return netip.AddrPort{}
	}
	return normalize(ap)
}

// transient reports whether a read error leaves the socket usable: an
// ICMP error that some systems report on an unconnected socket after a
// send to a closed port.
func transient(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET)
}

// usableURL reports whether a URL can be looked up: not empty, and no
// white space or control characters (Squid answers such a query with
// ICP_OP_ERR, as RFC 2186 §2 suggests for an invalid URL).
func usableURL(url string) bool {
	if url == "" {
		return false
	}
	for i := 0; i < len(url); i++ {
		if c := url[i]; c <= ' ' || c == 0x7f {
			return false
		}
	}
	return true
}
