package originclient

import (
	"errors"
	"fmt"
	"net/netip"
	"syscall"
)

// ErrDenied is the error of a connection refused because its address is
// one the proxy must not reach (New's deny).
var ErrDenied = errors.New("destination address not allowed")

// DenyControl returns a net.Dialer Control function that refuses to
// connect to an address within one of deny's prefixes, or nil when deny
// is empty. It checks the address the dialer is about to connect to,
// after name resolution, so that a name resolving to a denied address
// (or made to, between two lookups) is refused as the address itself is.
// An IPv4 address mapped into IPv6 is checked as IPv4, and a link-local
// IPv6 address whatever its zone.
func DenyControl(deny []netip.Prefix) func(network, address string, c syscall.RawConn) error {
	if len(deny) == 0 {
		return nil
	}
	return func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("%w: %s is not an IP address and port", ErrDenied, address)
		}
		ip := ap.Addr().Unmap().WithZone("") // Contains is false for an address with a zone
		for _, p := range deny {
			if p.Contains(ip) {
				return fmt.Errorf("%w: %s is within %s", ErrDenied, address, p)
			}
		}
		return nil
	}
}
