package cache

import (
	"crypto/tls"
	"net"
	"net/http"
	"time"

	"github.com/bloomcast/bloomcast/internal/squidlog"
)

// Forward is a request the proxy could not answer from its store, handed
// to a [Router].
// The zero value carries no Request and is not a request a Router can send.
type Forward struct {
	// Request is the outbound request, ready to send: absolute URL,
	// hop-by-hop fields removed, Via added, the client's context.
	Request *http.Request
	// Key is the request's cache key ([Key]); "" for methods other than
	// GET and HEAD. A router that asks peers probes their digests with it.
	Key string
	// Revalidation is true when Request is the proxy's own conditional
	// request validating a stale stored response (RFC 9111 §4.3.1).
	Revalidation bool
}

// Source says where a forwarded response came from, for the access log
// and the metrics.
//
// The zero value names no hierarchy and no host, with no false hit.
type Source struct {
	Hierarchy string // Squid's hierarchy code: HIER_DIRECT, CD_SIBLING_HIT, SIBLING_HIT, ...
	Host      string // the origin's or the peer's name
	// FalseHits counts the peers asked before the response that
	// answered 504 to only-if-cached: a summary (or ICP) said maybe,
	// the peer did not have the object.
	FalseHits int
}

// Router sends a request the cache cannot answer: straight to the origin
// ([Direct]) or first to peers that probably hold the object. It returns
// the response (whose body the proxy closes) and where it came from. The
// response must be a final response to Request, not a redirect followed on
// the client's behalf.
//
// The zero value, nil, is no router; a nil Config.Router means
// Direct(Client).
type Router interface {
	Route(f *Forward) (*http.Response, Source, error)
}

// RouterFunc adapts a function to Router.
// The zero value, a nil function, is no router: its Route panics.
type RouterFunc func(f *Forward) (*http.Response, Source, error)

// Route implements Router.
func (fn RouterFunc) Route(f *Forward) (*http.Response, Source, error) { return fn(f) }

// Direct returns the Router that sends every request to its origin server
// with client (nil: [NewClient]'s), reporting HIER_DIRECT and the origin's
// host. The client must not follow redirects: a proxy passes them on.
func Direct(client *http.Client) Router {
	if client == nil {
		client = NewClient()
	}
	return RouterFunc(func(f *Forward) (*http.Response, Source, error) {
		resp, err := client.Do(ExpectResponse(f.Request))
		return resp, Source{Hierarchy: squidlog.HierDirect, Host: f.Request.URL.Hostname()}, err
	})
}

// Timeouts of the client NewClient builds. There is no limit on a whole
// exchange, so that large bodies can stream; the client's request context
// ends an exchange the client abandons.
const (
	dialTimeout           = 10 * time.Second
	responseHeaderTimeout = 30 * time.Second
	IdleConnTimeout       = 90 * time.Second
)

// IdleConnsPerHost is how many idle connections the node's clients keep
// to one origin or peer. It is set above the concurrency a node sees
// (net/http keeps 2 by default): a connection the pool cannot keep is
// closed when its response ends, and the next request pays a new TCP
// handshake and leaves a socket in TIME_WAIT, so a pool smaller than
// the concurrency redials on most requests. Idle connections still close
// after IdleConnTimeout.
const IdleConnsPerHost = 256

// NewClient returns the HTTP client a proxy uses by default: no
// environment proxy, no redirect following, no transparent decompression
// (the cache stores and forwards what the origin sent), and timeouts on
// connecting, TLS handshakes and waiting for response headers. Response
// bodies in the transfer codings gzip, x-gzip, deflate, compress and
// x-compress (RFC 9112 §7) reach it decoded, as chunked bodies do, when
// the request came through [Direct].
func NewClient() *http.Client { return newClient(nil) }

// newClient is NewClient with a TLS configuration for origins (nil: the
// defaults).
func newClient(tlsConfig *tls.Config) *http.Client {
	dial := (&net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}).DialContext
	t := &http.Transport{
		DialContext:           DecodingDialer(dial),
		DialTLSContext:        codingTLSDialer(dial, tlsConfig, dialTimeout),
		TLSHandshakeTimeout:   dialTimeout,
		ResponseHeaderTimeout: responseHeaderTimeout,
		IdleConnTimeout:       IdleConnTimeout,
		MaxIdleConnsPerHost:   IdleConnsPerHost,
		DisableCompression:    true,
		ForceAttemptHTTP2:     true,
	}
	return &http.Client{
		Transport:     t,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
