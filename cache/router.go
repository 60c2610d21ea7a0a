package cache

import (
	"net/http"

	"github.com/bloomcast/bloomcast/internal/originclient"
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

// ErrDestinationDenied is the error, wrapped, of a request the origin
// client refused to connect for, its address being denied
// (Config.DenyDestinations). A Router may return it too: the proxy
// answers 403, logged TCP_DENIED, and serves no stale response.
var ErrDestinationDenied = originclient.ErrDenied

// Direct returns the Router that sends every request to its origin server
// with client, reporting HIER_DIRECT and the origin's host. A nil client
// means the proxy's own, which also decodes the transfer codings Go's
// client refuses (gzip, deflate, compress; RFC 9112 §7). The client must not follow redirects: a proxy passes them on.
func Direct(client *http.Client) Router {
	if client == nil {
		client = originclient.New(nil, nil)
	}
	return RouterFunc(func(f *Forward) (*http.Response, Source, error) {
		resp, err := client.Do(originclient.Expect(f.Request))
		return resp, Source{Hierarchy: squidlog.HierDirect, Host: f.Request.URL.Hostname()}, err
	})
}
