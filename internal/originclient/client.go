// Package originclient builds the HTTP client the caching proxy (package
// cache) sends misses with and the summary-cache node (package node) asks
// its peers with: no environment proxy, no redirects followed, no
// transparent decompression, timeouts on every wait but the body's, a
// connection pool as large as a node's concurrency, and a connection
// framer that decodes the transfer codings Go's client refuses (RFC 9112
// §7) into chunked ones.
package originclient

import (
	"crypto/tls"
	"net"
	"net/http"
	"net/netip"
	"time"

	"github.com/bloomcast/bloomcast/internal/httpx"
)

// Timeouts of the client New builds. There is no limit on a whole
// exchange, so that large bodies can stream; the client's request context
// ends an exchange the client abandons.
const (
	dialTimeout           = 10 * time.Second
	responseHeaderTimeout = 30 * time.Second
	IdleConnTimeout       = 90 * time.Second
)

// MaxResponseHeaderBytes bounds the head (status line and header
// fields) of a response the node's clients read from an origin or a
// peer: Squid's reply_header_max_size. A longer head is an error, which
// the proxy answers with 502, as Squid does, and nothing is stored.
const MaxResponseHeaderBytes = 64 << 10

// IdleConnsPerHost is how many idle connections the node's clients keep
// to one origin or peer. It is set above the concurrency a node sees
// (net/http keeps 2 by default): a connection the pool cannot keep is
// closed when its response ends, and the next request pays a new TCP
// handshake and leaves a socket in TIME_WAIT, so a pool smaller than
// the concurrency redials on most requests. Idle connections still close
// after IdleConnTimeout.
const IdleConnsPerHost = 256

// New returns the HTTP client a proxy uses by default, with tlsConfig for
// origins (nil: the defaults), which never connects to an address within
// deny (DenyControl; the error wraps ErrDenied). Response bodies in the transfer codings
// gzip, x-gzip, deflate, compress and x-compress reach it decoded, as
// chunked bodies do, when the request went through [Expect].
func New(tlsConfig *tls.Config, deny []netip.Prefix) *http.Client {
	dial := (&net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second, Control: DenyControl(deny)}).DialContext
	t := &http.Transport{
		DialContext:            Dialer(dial),
		DialTLSContext:         tlsDialer(dial, tlsConfig, dialTimeout),
		TLSHandshakeTimeout:    dialTimeout,
		ResponseHeaderTimeout:  responseHeaderTimeout,
		IdleConnTimeout:        IdleConnTimeout,
		MaxIdleConnsPerHost:    IdleConnsPerHost,
		MaxResponseHeaderBytes: MaxResponseHeaderBytes,
		DisableCompression:     true,
		ForceAttemptHTTP2:      true,
	}
	return &http.Client{
		Transport:     t,
		CheckRedirect: httpx.NoRedirect,
	}
}
