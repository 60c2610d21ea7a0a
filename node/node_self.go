package node

import (
	"errors"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"syscall"

	"github.com/bloomcast/bloomcast/internal/originclient"
	"github.com/bloomcast/bloomcast/internal/squidlog"
)

// errTunnelSelf is the error of a CONNECT whose host resolved to one of
// the node's own addresses.
var errTunnelSelf = errors.New("node: CONNECT to the node's own address")

// addressedToMe reports whether r is for the node itself: origin form
// ("GET /metrics"), or absolute form or CONNECT naming one of the node's
// own addresses (ownAuthority), as Squid fetches a peer's digest ("GET
// http://peer:3128/squid-internal-periodic/store_digest"). Forwarded,
// such a request would come back from the node's own address, which
// --allow-peers may hold, in place of its client's.
func (n *Node) addressedToMe(r *http.Request) bool {
	if r.Method == http.MethodConnect {
		return n.ownAuthority(r.URL.Hostname(), r.URL.Port(), "")
	}
	if !strings.Contains(r.RequestURI, "://") {
		return r.RequestURI != "*"
	}
	return n.ownAuthority(r.URL.Hostname(), r.URL.Port(), r.URL.Scheme)
}

// serveLocal answers a request addressed to the node with its own
// endpoints, unless it is one the node sent itself (looped) or a
// CONNECT, which its endpoints do not answer.
func (n *Node) serveLocal(local http.Handler, w http.ResponseWriter, r *http.Request) {
	switch {
	case n.looped(r):
		n.refuse(w, r, squidlog.CodeDenied, http.StatusForbidden, "forwarding loop: the node's own address")
	case r.Method == http.MethodConnect:
		n.refuse(w, r, squidlog.CodeDenied, http.StatusForbidden, "tunnel to the node's own address")
	default:
		if hasBody(r) {
			w.Header().Set("Connection", "close") // the node's endpoints read none (boundBody)
		}
		local.ServeHTTP(w, r)
	}
}

// tunnelControl is the Control of the dialer of CONNECT tunnels: it
// refuses the node's own listener, by the address dialled after name
// resolution, then DenyDestinations. A CONNECT naming one of the node's
// addresses is refused before (serveLocal), but a name that resolves to
// one (the host's name in /etc/hosts, an alias in DNS) would open a
// tunnel to the node, whose requests then come from the node's own
// address, which --allow-peers holds, without Via: a client would read
// the operator's endpoints, and tunnels nested in tunnels would take two
// connections each until the node had none left.
func (n *Node) tunnelControl() func(network, address string, c syscall.RawConn) error {
	deny := originclient.DenyControl(n.cfg.DenyDestinations)
	return func(network, address string, c syscall.RawConn) error {
		if host, port, err := net.SplitHostPort(address); err == nil && n.ownAuthority(host, port, "") {
			return errTunnelSelf
		}
		if deny == nil {
			return nil
		}
		return deny(network, address, c)
	}
}

// looped reports whether r carries the node's own Via entry (RFC 9110
// §7.6.3: Via is there to detect forwarding loops): the node forwarded
// it to itself, under a name that resolves to one of its addresses, and
// it comes from the node's address, not its client's. An entry with a
// comment is another proxy's (Squid writes "1.1 host (squid/5.7)").
func (n *Node) looped(r *http.Request) bool {
	for _, v := range r.Header.Values("Via") {
		for elem := range strings.SplitSeq(v, ",") {
			f := strings.Fields(elem)
			if len(f) == 2 && strings.EqualFold(f[1], n.cfg.Name) {
				return true
			}
		}
	}
	return false
}

// ownAuthority reports whether host and port (empty: the scheme's
// default) reach the node's listener: its address; on a wildcard
// listener (0.0.0.0, ::) any address of this host; localhost names
// (RFC 6761 §6.3) and the unspecified addresses, which connect to
// loopback, when it listens there.
func (n *Node) ownAuthority(host, port, scheme string) bool {
	ap := n.listening.Load()
	if ap == nil || !samePort(port, scheme, ap.Port()) {
		return false
	}
	mine := ap.Addr().Unmap()
	if isLocalhost(host) {
		return mine.IsLoopback() || mine.IsUnspecified()
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	ip = ip.WithZone("").Unmap()
	switch {
	case ip.IsUnspecified() || ip.IsLoopback() && mine.IsUnspecified():
		return mine.IsLoopback() || mine.IsUnspecified()
	case mine.IsUnspecified():
		return isLocalAddr(ip)
	}
	return ip == mine
}

// samePort reports whether port (empty: the default of scheme, RFC 9110
// §4.2.1, §4.2.2) is mine, however it is written ("03128" dials 3128).
func samePort(port, scheme string, mine uint16) bool {
	if port == "" {
		port = "80"
		if scheme == "https" {
			port = "443"
		}
	}
	p, err := strconv.ParseUint(port, 10, 16)
	return err == nil && uint16(p) == mine
}

// isLocalhost reports whether host is localhost or a name under it,
// with or without the root's dot, in any case (RFC 6761 §6.3).
func isLocalhost(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	return h == "localhost" || strings.HasSuffix(h, ".localhost")
}

// isLocalAddr reports whether ip is an address of one of this host's
// interfaces.
func isLocalAddr(ip netip.Addr) bool {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if p, ok := a.(*net.IPNet); ok {
			if local, ok := netip.AddrFromSlice(p.IP); ok && local.Unmap() == ip {
				return true
			}
		}
	}
	return false
}
