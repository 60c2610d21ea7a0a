package node

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"os"
	"strings"

	"github.com/bloomcast/bloomcast/cache"
	"github.com/bloomcast/bloomcast/internal/httpx"
)

// hostName is the default node name: the host name, or DefaultVia when
// the system has none that can stand in a Via header.
func hostName() string {
	h, err := os.Hostname()
	if err != nil || !httpx.IsToken(h) {
		return cache.DefaultVia
	}
	return h
}

// checkSelfPeers refuses a peer that is the node itself.
func checkSelfPeers(cfg *NodeConfig) error {
	for _, p := range cfg.Peers {
		if cfg.IsSelf(p) {
			return fmt.Errorf("%w: peer %q is this node (name %q, listening on %s)", cache.ErrConfig, p.Proxy, cfg.Name, cfg.Listen)
		}
	}
	return nil
}

// IsSelf reports whether the peer p is this node: it has the node's Name,
// or its proxy URL names the Listen address (the same host and port; a
// loopback address or "localhost" when the node listens on loopback or on
// every interface; an address of this host's interfaces, or its host name,
// when it listens on every interface). Host names other than these are not
// resolved. Empty Name and Listen are taken as their defaults.
func (cfg *NodeConfig) IsSelf(p PeerConfig) bool {
	name := cfg.Name
	if name == "" {
		name = hostName()
	}
	if p.Name != "" && p.Name == name {
		return true
	}
	u, err := url.Parse(p.Proxy)
	if err != nil || u.Host == "" {
		return false
	}
	peerHost, peerPort := u.Hostname(), u.Port()
	if peerPort == "" {
		peerPort = "80"
		if u.Scheme == "https" {
			peerPort = "443"
		}
	}
	listen := cfg.Listen
	if listen == "" {
		listen = "127.0.0.1:3128"
	}
	myHost, myPort, err := net.SplitHostPort(listen)
	if err != nil || myPort != peerPort {
		return false
	}
	if strings.EqualFold(peerHost, myHost) {
		return true
	}
	my, myErr := netip.ParseAddr(myHost)
	unspecified := myHost == "" || myErr == nil && my.IsUnspecified()
	peerIP, peerErr := netip.ParseAddr(peerHost)
	loopbackPeer := strings.EqualFold(peerHost, "localhost") || peerErr == nil && peerIP.IsLoopback()
	switch {
	case myErr == nil && my.IsLoopback():
		return strings.EqualFold(peerHost, "localhost")
	case !unspecified:
		return strings.EqualFold(myHost, "localhost") && loopbackPeer
	case loopbackPeer:
		return true
	}
	if h, err := os.Hostname(); err == nil && strings.EqualFold(peerHost, h) {
		return true
	}
	if peerErr != nil {
		return false
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if pfx, err := netip.ParsePrefix(a.String()); err == nil && pfx.Addr().Unmap() == peerIP.Unmap() {
			return true
		}
	}
	return false
}
