package node

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/bloomcast/bloomcast/cache"
	"github.com/bloomcast/bloomcast/icp"
	"github.com/bloomcast/bloomcast/internal/httpx"
	"github.com/bloomcast/bloomcast/internal/originclient"
	"github.com/bloomcast/bloomcast/internal/squidlog"
)

// peerOutcome is what asking one peer for an object gave.
// The zero value is peerOutcomeHit.
type peerOutcome int

// Peer outcomes.
const (
	peerOutcomeHit      peerOutcome = iota // the peer served the object from its cache
	peerOutcomeFalseHit                    // the summary said maybe; the peer answered 504
	peerOutcomeError                       // the peer did not answer usefully (network error, timeout, other status)
)

func (o peerOutcome) String() string {
	return [...]string{"hit", "false_hit", "error"}[o]
}

// peerFetcher asks peers for objects through their proxies, with
// Cache-Control: only-if-cached so that a peer without the object answers
// 504 at once instead of fetching it (RFC 9111 section 5.2.1.7).
//
// The zero value is ready to use: a 5-second timeout and no OnOutcome.
type peerFetcher struct {
	// Timeout bounds the wait for a peer's response headers; 0 means 5 s.
	Timeout time.Duration
	// OnOutcome, if set, is called for every peer asked.
	OnOutcome func(peer string, o peerOutcome)
}

// client returns the client that sends requests through p's proxy,
// made on first use and kept on p: a peer reconfigured with another
// proxy under the same name (SIGHUP) is another Peer, and gets a client
// for its new proxy, and a peer a reload drops goes with its client
// (Directory.setPeers closes its idle connections).
func (pf *peerFetcher) client(p *Peer) *http.Client {
	p.fetchMu.Lock()
	defer p.fetchMu.Unlock()
	if p.fetchClient != nil {
		return p.fetchClient
	}
	timeout := pf.Timeout
	if timeout == 0 {
		timeout = 5 * time.Second
	}
	t := &http.Transport{
		Proxy:                  http.ProxyURL(p.proxy),
		ResponseHeaderTimeout:  timeout,
		TLSHandshakeTimeout:    timeout,
		IdleConnTimeout:        originclient.IdleConnTimeout,
		MaxIdleConnsPerHost:    originclient.IdleConnsPerHost,
		MaxResponseHeaderBytes: originclient.MaxResponseHeaderBytes,
		DisableCompression:     true,
	}
	t.DialContext = originclient.Dialer(dialer(timeout))
	p.fetchClient = &http.Client{Transport: t, CheckRedirect: httpx.NoRedirect}
	return p.fetchClient
}

// Fetch asks peer p for the object of f. It returns the response on a
// hit; on a false hit or an error the response is nil.
func (pf *peerFetcher) Fetch(p *Peer, f *cache.Forward) (*http.Response, peerOutcome, error) {
	if p == nil || p.proxy == nil || f == nil || f.Request == nil {
		return nil, peerOutcomeError, fmt.Errorf("%w: Fetch needs a Directory's Peer and a Forward with a Request", cache.ErrConfig)
	}
	req := originclient.Expect(f.Request) // a copy, whose Header may be replaced
	req.Header = onlyIfCached(f.Request.Header)
	resp, err := pf.client(p).Do(req)
	outcome := peerOutcomeError
	switch {
	case err != nil:
		if connectFailed(err) {
			p.unreachableNow() // asked no more until a digest poll reaches it
		}
		err = fmt.Errorf("peer %s: %w", p.name, err)
	case resp.StatusCode == http.StatusGatewayTimeout:
		outcome = peerOutcomeFalseHit
	case resp.StatusCode >= 500:
		err = fmt.Errorf("peer %s: %s", p.name, resp.Status)
	case refusesClient(resp.StatusCode):
		// The peer refuses this node as a client (its access rules
		// leave it out, or it wants proxy credentials): not the
		// object's answer, which the next peer or the origin gives.
		err = fmt.Errorf("peer %s: %s: it refuses this node as a client", p.name, resp.Status)
	default:
		outcome = peerOutcomeHit
	}
	if pf.OnOutcome != nil {
		pf.OnOutcome(p.name, outcome)
	}
	if outcome != peerOutcomeHit {
		if resp != nil {
			httpx.DiscardBody(resp.Body, 64<<10)
		}
		return nil, outcome, err
	}
	return resp, peerOutcomeHit, nil
}

// refusesClient reports whether a peer's status says it refuses the
// request as its proxy's client, 403 (a node's --allow-clients, Squid's
// http_access or miss_access) or 407, rather than answers for the
// object. A 403 the peer stored from an origin is rare (it is not
// heuristically cacheable), and the origin then answers the same.
func refusesClient(status int) bool {
	return status == http.StatusForbidden || status == http.StatusProxyAuthRequired
}

// onlyIfCached returns h asking for a stored response only (RFC 9111
// §5.2.1.7), so that a peer without the object answers 504 rather than
// fetching it: h itself when it already asks so, else a copy whose
// Cache-Control gains the directive. The copy shares h's other values,
// which nothing writes: the outbound request is the proxy's own, and the
// next peer or the origin is sent h unchanged.
func onlyIfCached(h http.Header) http.Header {
	cc := strings.Join(h.Values("Cache-Control"), ", ")
	if strings.Contains(strings.ToLower(cc), "only-if-cached") {
		return h
	}
	if cc != "" {
		cc += ", "
	}
	out := make(http.Header, len(h)+1)
	maps.Copy(out, h)
	out["Cache-Control"] = []string{cc + "only-if-cached"}
	return out
}

// digestRouter routes a miss by the peers' summaries (Fan et al.,
// "Summary cache"): it asks, in order, each peer whose digest says the
// key may be there, and goes to Origin when none has it. A peer that
// answers 504 was a false hit of its digest; the next is tried.
//
// The zero digestRouter is not usable: set Directory, Peers and Origin.
type digestRouter struct {
	Directory *Directory
	Peers     *peerFetcher
	Origin    cache.Router
}

// Route implements Router.
func (r *digestRouter) Route(f *cache.Forward) (*http.Response, cache.Source, error) {
	if r.Directory == nil || r.Peers == nil || r.Origin == nil || f == nil {
		return nil, cache.Source{}, fmt.Errorf("%w: digestRouter needs Directory, Peers and Origin, and Route a Forward", cache.ErrConfig)
	}
	falseHits := 0
	if f.Key != "" && !f.Revalidation {
		for _, p := range r.Directory.Candidates(f.Key) {
			resp, outcome, _ := r.Peers.Fetch(p, f)
			if resp != nil {
				return resp, cache.Source{Hierarchy: squidlog.HierCDSiblingHit, Host: p.name, FalseHits: falseHits}, nil
			}
			if outcome == peerOutcomeFalseHit {
				falseHits++
			}
			if f.Request.Context().Err() != nil {
				return nil, cache.Source{}, f.Request.Context().Err()
			}
		}
	}
	resp, src, err := r.Origin.Route(f)
	src.FalseHits += falseHits
	return resp, src, err
}

// icpRouter routes a miss the classic way (RFC 2187): it sends an ICP
// query to every peer with an ICP address and waits up to Timeout for a
// HIT; the first peer to answer HIT is asked for the object, and if none
// does (or the object is gone by then) the request goes to Origin.
//
// The zero icpRouter is not usable: set Client, Directory, Peers and Origin.
type icpRouter struct {
	Client    *icp.Client
	Directory *Directory // the peers; those without an ICP address are skipped
	Peers     *peerFetcher
	Origin    cache.Router
	// Timeout is how long to wait for replies; 0 means 2 s (Squid's
	// default icp_query_timeout is dynamic, at most 2 s).
	Timeout time.Duration

	once  sync.Once
	addrs []netip.AddrPort
	byICP map[netip.AddrPort]*Peer
}

func (r *icpRouter) resolve() {
	r.byICP = map[netip.AddrPort]*Peer{}
	for _, p := range r.Directory.Peers() {
		if p.cfg.ICP == "" {
			continue
		}
		ap, err := netip.ParseAddrPort(p.cfg.ICP)
		if err != nil {
			continue // NewNode validated the addresses
		}
		// Keyed as the ICP client reports a reply's source, unmapped: a
		// peer written [::ffff:10.0.0.1]:3130 answers from 10.0.0.1:3130.
		ap = netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
		r.addrs = append(r.addrs, ap)
		r.byICP[ap] = p
	}
}

// Route implements Router.
func (r *icpRouter) Route(f *cache.Forward) (*http.Response, cache.Source, error) {
	if r.Client == nil || r.Directory == nil || r.Peers == nil || r.Origin == nil || f == nil {
		return nil, cache.Source{}, fmt.Errorf("%w: icpRouter needs Client, Directory, Peers and Origin, and Route a Forward", cache.ErrConfig)
	}
	r.once.Do(r.resolve)
	if f.Key == "" || f.Revalidation || len(r.addrs) == 0 {
		return r.Origin.Route(f)
	}
	timeout := r.Timeout
	if timeout == 0 {
		timeout = 2 * time.Second
	}
	res, err := r.Client.Query(f.Request.Context(), r.addrs, f.Key, timeout)
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return r.Origin.Route(f)
	}
	falseHits := 0
	if res.Hit {
		if p := r.byICP[res.Peer]; p != nil {
			resp, outcome, _ := r.Peers.Fetch(p, f)
			if resp != nil {
				return resp, cache.Source{Hierarchy: squidlog.HierSiblingHit, Host: p.name}, nil
			}
			if outcome == peerOutcomeFalseHit {
				falseHits++ // evicted between the ICP reply and the request
			}
		}
	}
	resp, src, err := r.Origin.Route(f)
	src.FalseHits += falseHits
	return resp, src, err
}

// dialer returns a DialContext with a connect timeout.
func dialer(timeout time.Duration) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return (&net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}).DialContext
}
