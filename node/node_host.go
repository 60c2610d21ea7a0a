package node

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"

	"github.com/bloomcast/bloomcast/cache"
	"github.com/bloomcast/bloomcast/internal/httpx"
	"github.com/bloomcast/bloomcast/internal/squidlog"
)

// The operator's endpoints check the Host a request names, against DNS
// rebinding: a web page the operator's browser opens can point its own
// name at the node's address (127.0.0.1, or an address --allow-peers
// holds) and then read the node's endpoints from the browser, which
// sends them the page's name in Host and lets the page read the answer,
// the name being its own. The node's source-address checks see the
// operator's address and let it through. A browser sends the name it
// resolved, so the node answers only names that no outsider's DNS
// decides: IP literals, localhost and the names under it (which
// browsers resolve to loopback themselves, RFC 6761 §6.3), and the names
// its operator gave it.

// operatorOnly wraps an operator's endpoint: it answers the addresses in
// AllowPeers (peersOnly), directly (direct), under one of the node's own
// names (ownHost).
func (n *Node) operatorOnly(h http.Handler) http.Handler {
	return n.peersOnly(n.direct(n.ownHost(h)))
}

// ownHost refuses a request whose Host is not one of the node's own
// names (operatorHost), logged TCP_DENIED/403. 403 rather than 421
// (Misdirected Request): 421 asks a client to try again on another
// connection (RFC 9110 §15.5.20), which would get the same answer; the
// node refuses access, as its other refusals of a request it could
// serve do, and Squid's access log has the code for it.
func (n *Node) ownHost(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !n.operatorHost(r) {
			n.refuse(w, r, squidlog.CodeDenied, http.StatusForbidden,
				fmt.Sprintf("access denied: Host %q is not one of this node's names (serve --allow-host NAME allows one)", hostOnly(r.Host)))
			return
		}
		h.ServeHTTP(w, r)
	})
}

// operatorHost reports whether r's Host (with or without a port) is one
// the operator's endpoints answer: an IP literal, localhost or a name
// under it, the node's Name, its Listen host, or one of AllowHosts;
// without case and a trailing dot. A request without Host (HTTP/1.0)
// is answered: every browser sends one. A request in absolute form
// addressed to the node has the URL's host as its Host, which
// ownAuthority found to be an address or localhost.
func (n *Node) operatorHost(r *http.Request) bool {
	host := hostOnly(r.Host)
	if host == "" || isLocalhost(host) {
		return true
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return true
	}
	host = strings.TrimSuffix(host, ".")
	same := func(name string) bool { return strings.EqualFold(strings.TrimSuffix(name, "."), host) }
	if same(n.cfg.Name) || same(listenHost(n.cfg.Listen)) {
		return true
	}
	return slices.ContainsFunc(*n.allowHosts.Load(), same)
}

// hostOnly returns the host of a Host field: without its port, an IPv6
// address without its brackets.
func hostOnly(h string) string {
	if _, err := netip.ParseAddr(h); err == nil {
		return h // an IPv6 address without brackets, which Go's server lets through
	}
	if host, _, err := net.SplitHostPort(h); err == nil {
		return host
	}
	return strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
}

// listenHost returns the host of a Listen address when it is a name,
// else "" (an address, or none).
func listenHost(listen string) string {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return ""
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return ""
	}
	return host
}

// checkAllowHosts refuses an AllowHosts entry that is not a host name:
// letters, digits, dashes, underscores and dots, without a port.
func checkAllowHosts(hosts []string) error {
	for _, h := range hosts {
		if !httpx.IsHostName(h) {
			return fmt.Errorf("%w: allowed host %q (want a host name without a port, such as node1.example.com)", cache.ErrConfig, h)
		}
	}
	return nil
}
