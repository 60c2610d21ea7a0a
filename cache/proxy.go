package cache

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bloomcast/bloomcast/internal/httpx"
	"github.com/bloomcast/bloomcast/internal/originclient"
	"github.com/bloomcast/bloomcast/internal/squidlog"
)

// DefaultMaxObjectBytes is Config.MaxObjectBytes when left 0: Squid's
// default maximum_object_size.
const DefaultMaxObjectBytes = 4 << 20

// DefaultVia is the proxy's pseudonym in Via and X-Cache when Config.Via
// is empty.
const DefaultVia = "bloomcast"

// Config configures a [Proxy]: it is the proxy's configuration, as
// [MemoryConfig] and [DiskConfig] are the stores'. (Package node builds
// its proxy's Config from its own NodeConfig.)
//
// The zero Config is not valid: NewProxy reports ErrConfig, as Store is
// required. Every other zero field takes the default shown.
type Config struct {
	Store          Store            // where responses are kept; required. Its Observer sees every change.
	Router         Router           // forwards what the cache cannot answer; nil: Direct(Client)
	Client         *http.Client     // the default Router's client; nil: one that decodes transfer codings
	AccessLog      io.Writer        // Squid-format access log; nil: none
	Logger         *slog.Logger     // operational log; nil: slog.Default()
	MaxObjectBytes int64            // largest body stored; larger ones stream through. 0: DefaultMaxObjectBytes
	ReadTimeout    time.Duration    // longest wait for the next byte of a forwarded response; 0: DefaultReadTimeout
	WriteTimeout   time.Duration    // longest a write may wait for the client to take it, then the connection closes; 0: DefaultWriteTimeout
	Via            string           // pseudonym in Via and X-Cache; "": DefaultVia
	Now            func() time.Time // the clock; nil: time.Now
	OnRequest      func(r *Record)  // called after every request with its log record (for metrics); nil: none
	// DenyDestinations are the addresses the default client never
	// connects to, checked on the address dialled after name resolution:
	// a request for one is answered 403 and logged TCP_DENIED/403, as
	// Squid's "http_access deny to_linklocal". Used only when Client and
	// Router are nil; nil: none.
	DenyDestinations []netip.Prefix
}

// Proxy is a caching HTTP forward proxy (an http.Handler) for requests in
// absolute form ("GET http://host/path HTTP/1.1", RFC 9112 §3.2.2). GET
// and HEAD requests are answered from the store when a stored response is
// fresh and selected by Vary (RFC 9111 §4); otherwise they are forwarded
// through the Router, stale responses with validators being revalidated
// (§4.3), and storable responses (§3) up to MaxObjectBytes are
// stored as they stream to the client. A request with only-if-cached that
// the store cannot answer gets 504 (§5.2.1.7) and is never forwarded.
//
// A forwarded response reaches the client as it arrives: its interim
// (1xx) responses, its header, then each piece of its body, flushed at
// once. A server that sends nothing for ReadTimeout (Squid's
// read_timeout) ends the exchange: a body cut so is logged (the access
// log's code gets Squid's _TIMEDOUT suffix), the client's connection is
// aborted, and nothing is stored.
//
// When the origin cannot be reached (the connection refused, dropped
// before a response, or timed out) and a stale response is stored, that
// response is served, with its Age, and logged TCP_REFRESH_FAIL_OLD, as
// Squid does (RFC 9111 §4.2.4 lets a disconnected cache serve stale),
// unless the response's no-cache, must-revalidate, proxy-revalidate or
// s-maxage, or the request's no-cache, forbids it: then the answer is 504
// (§5.2.2.2), logged TCP_REFRESH_FAIL_ERR. An error status from the
// origin is relayed unless stale-if-error (RFC 5861 §4) allows serving
// the stored response instead.
// Other methods are forwarded without caching and, when they succeed,
// invalidate the stored response of their URL (§4.4); CONNECT is refused
// with 501. A TRACE or OPTIONS with Max-Forwards: 0 is answered by the
// proxy, with any other Max-Forwards forwarded with one less (RFC 9110
// §7.6.2).
//
// Concurrent misses of one URL are collapsed (Squid's
// collapsed_forwarding): a plain GET that finds nothing stored while
// another request for the same key is being forwarded waits for that
// one's response header, and is then answered from that response as its
// body arrives (logged as a hit: the response is the cache's). It
// forwards on its own when the response cannot answer it: the response
// is not storable, Vary selects another, or it failed before the
// follower's answer began. A follower whose answer began is cut off
// with the response when the body is not received whole, or when a body
// of unknown length grows past MaxObjectBytes, which is as much of it as
// the proxy holds. A request with no-cache, a conditional or a Range is
// never made to wait.
//
// A stale stored response within its stale-while-revalidate (RFC 5861
// §3) is served at once, logged TCP_STALE_HIT, and revalidated in the
// background: once, however many requests it answers meanwhile, since
// the revalidation is the key's collapsed-forwarding flight. The
// background request is logged TCP_ASYNC_HIT (still valid) or
// TCP_ASYNC_MISS, as Squid 2.7 did. Past the window the response is
// revalidated before it is served, as any other.
//
// A GET with a Range of one byte range is answered from a stored
// complete response: 206 with Content-Range, or 416 when the range lies
// past its end; If-Range is honoured (RFC 9110 §13.1.5, §14). Several
// ranges get the whole 200, which RFC 9110 §14.2 allows. A Range that
// misses is forwarded as sent (as Squid does with its default
// range_offset_limit 0), and the 206 is not stored (RFC 9111 §3.3 allows
// storing partial content; the proxy keeps complete responses only). A
// stale stored response is revalidated as a whole, and the range served
// from it.
//
// CDN-Cache-Control (RFC 9213) is addressed to CDNs; a forward proxy
// ignores it, and the proxy passes it on untouched.
//
// The zero Proxy is not usable; make one with NewProxy.
type Proxy struct {
	store        Store
	router       Router
	log          *slog.Logger
	access       *accessLog
	maxObject    int64
	readTimeout  time.Duration
	writeTimeout time.Duration
	via          string
	now          func() time.Time
	onRequest    func(*Record)
	memory       bool // the store is a Memory store: hits are TCP_MEM_HIT

	// storedGetter is the store when it keeps entries' stored forms,
	// storedPutter when it can be handed one.
	storedGetter storedGetter
	storedPutter storedPutter
	// The values of Via and X-Cache on a hit, shared by every response
	// (a ResponseWriter's Add copies them: their capacity is their
	// length).
	viaHit, xcacheHit []string

	flightMu sync.Mutex
	flights  map[string]*flight // misses being forwarded, by key

	bg sync.WaitGroup // background revalidations (stale-while-revalidate)

	// heuristicOnce logs, once, that an origin sent a response to store
	// without explicit freshness (see noteHeuristic).
	heuristicOnce sync.Once
}

// flight is a miss being forwarded that other requests for its key wait
// for (collapsed forwarding).
type flight struct {
	once      sync.Once // lands it once
	followers int       // requests that joined it (under Proxy.flightMu)

	// ready is closed when the response's header is known to be
	// storable, stream then holding its body as it arrives, or when the
	// flight lands without one (stream nil).
	ready     chan struct{}
	readyOnce sync.Once
	stream    *inflight
}

func newFlight() *flight {
	return &flight{ready: make(chan struct{})}
}

// publish hands the followers the response being received.
func (f *flight) publish(s *inflight) {
	f.readyOnce.Do(func() {
		f.stream = s
		close(f.ready)
	})
}

// land ends the wait of the flight's followers.
func (p *Proxy) land(key string, f *flight) {
	f.once.Do(func() {
		p.flightMu.Lock()
		if p.flights[key] == f {
			delete(p.flights, key)
		}
		p.flightMu.Unlock()
		f.readyOnce.Do(func() { close(f.ready) })
	})
}

// join returns the flight for key and whether the caller leads it (and
// must land it).
func (p *Proxy) join(key string) (*flight, bool) {
	p.flightMu.Lock()
	defer p.flightMu.Unlock()
	if f, ok := p.flights[key]; ok {
		f.followers++
		return f, false
	}
	if p.flights == nil {
		p.flights = map[string]*flight{}
	}
	f := newFlight()
	p.flights[key] = f
	return f, true
}

// NewProxy returns a proxy for cfg.
func NewProxy(cfg Config) (*Proxy, error) {
	if cfg.Store == nil {
		return nil, fmt.Errorf("%w: Store is nil", ErrConfig)
	}
	if cfg.MaxObjectBytes < 0 {
		return nil, fmt.Errorf("%w: MaxObjectBytes %d is negative", ErrConfig, cfg.MaxObjectBytes)
	}
	if cfg.ReadTimeout < 0 || cfg.ReadTimeout > 0 && cfg.ReadTimeout < MinInterval {
		return nil, fmt.Errorf("%w: ReadTimeout %v (want 0 for the default, or ≥ %v)", ErrConfig, cfg.ReadTimeout, MinInterval)
	}
	if cfg.WriteTimeout < 0 || cfg.WriteTimeout > 0 && cfg.WriteTimeout < MinInterval {
		return nil, fmt.Errorf("%w: WriteTimeout %v (want 0 for the default, or ≥ %v)", ErrConfig, cfg.WriteTimeout, MinInterval)
	}
	p := &Proxy{
		store:        cfg.Store,
		router:       cfg.Router,
		log:          cfg.Logger,
		maxObject:    cfg.MaxObjectBytes,
		readTimeout:  cfg.ReadTimeout,
		writeTimeout: cfg.WriteTimeout,
		via:          cfg.Via,
		now:          cfg.Now,
		onRequest:    cfg.OnRequest,
	}
	_, p.memory = cfg.Store.(*Memory)
	p.storedGetter, _ = cfg.Store.(storedGetter)
	p.storedPutter, _ = cfg.Store.(storedPutter)
	if p.router == nil {
		client := cfg.Client
		if client == nil {
			client = originclient.New(nil, cfg.DenyDestinations)
		}
		p.router = Direct(client)
	}
	if p.log == nil {
		p.log = slog.Default()
	}
	if cfg.AccessLog != nil {
		p.access = newAccessLog(cfg.AccessLog)
	}
	if p.maxObject == 0 {
		p.maxObject = DefaultMaxObjectBytes
	}
	if p.via == "" {
		p.via = DefaultVia
	}
	if p.writeTimeout == 0 {
		p.writeTimeout = DefaultWriteTimeout
	}
	if p.readTimeout == 0 {
		p.readTimeout = DefaultReadTimeout
	}
	if p.now == nil {
		p.now = time.Now
	}
	p.viaHit = []string{"1.1 " + p.via}
	p.xcacheHit = []string{"HIT from " + p.via}
	return p, nil
}

// Store returns the proxy's store.
func (p *Proxy) Store() Store { return p.store }

// Lookup returns the stored response for an absolute URL (or a cache key,
// which is one) if it is fresh now (RFC 9111 §4.2): the test an ICP query
// applies. Vary is not
// consulted, since such a query carries no request header fields; a peer's
// HTTP request with only-if-cached goes through ServeHTTP, which applies
// every rule.
func (p *Proxy) Lookup(rawURL string) (*Entry, bool) {
	if p.store == nil { // a zero Proxy holds nothing
		return nil, false
	}
	key, err := Key(rawURL)
	if err != nil {
		return nil, false
	}
	e, ok := p.store.Get(key)
	if !ok || !e.fresh(p.now()) {
		return nil, false
	}
	return e, true
}

// ServeHTTP implements http.Handler.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if p.store == nil {
		panic("cache: zero Proxy; use NewProxy")
	}
	start := p.now()
	httpx.CloseAfterChunked(w, r)
	// One allocation for the record and the writer.
	x := &struct {
		rec Record
		cw  httpx.CountingWriter
	}{
		rec: Record{
			Time:      start,
			Client:    httpx.ClientIP(r.RemoteAddr),
			Method:    r.Method,
			URL:       r.RequestURI,
			Hierarchy: squidlog.HierNone,
		},
		cw: httpx.CountingWriter{ResponseWriter: w, WriteTimeout: p.writeTimeout},
	}
	rec, cw := &x.rec, &x.cw
	if rec.URL == "" && r.URL != nil {
		rec.URL = r.URL.String()
	}
	aborted := p.serve(cw, r, rec)
	rec.Elapsed = p.now().Sub(start)
	rec.Status, rec.Bytes = cw.Status, cw.Bytes
	if rec.Status == 0 {
		rec.Status = http.StatusOK
	}
	rec.ContentType = cw.Header().Get("Content-Type")
	if p.access != nil {
		if err := p.access.Log(*rec); err != nil {
			p.log.Warn("cache: writing access log", "err", err)
		}
	}
	if p.onRequest != nil {
		p.onRequest(rec)
	}
	if len(cw.Held) > 0 {
		// A failed write is a client gone away: no one to tell.
		_ = cw.WriteHeld()
	}
	if aborted {
		// The response is incomplete: abort the connection so the client
		// cannot take it for a whole one.
		panic(http.ErrAbortHandler)
	}
}

// serveHit returns the stored response that r selects, if any, and
// answers r from it when it is usable (a hit), filling rec.
func (p *Proxy) serveHit(w http.ResponseWriter, r *http.Request, key string, qcc cacheControl, rec *Record) (entry *storedEntry, hit bool) {
	if s, ok := p.getStored(key); ok && s.matchesVary(r.Header) {
		entry = s
	}
	now := p.now()
	if entry == nil || !usable(entry, qcc, now) {
		return entry, false
	}
	rec.Code = p.hitCode()
	if p.serveEntry(w, r, entry, now, "HIT") {
		rec.Code = squidlog.CodeIMSHit
	}
	return entry, true
}

// exchange is one request on its way through serve's stages: what the
// look-up found, and what forwarding it and storing the response need.
type exchange struct {
	w         *httpx.CountingWriter
	r         *http.Request
	rec       *Record
	cacheable bool // GET or HEAD: looked up, and stored when storable
	key       string
	qcc       cacheControl
	stored    *storedEntry // the stored response selected for r, if any
	entry     *Entry       // its entry, when it could not answer r
	lead      *flight      // the flight this request leads, landed when it is done
	// revalidating is the stored entry that the forwarded request
	// validates (RFC 9111 §4.3.1), if it does.
	revalidating *Entry
	// refetched is set when the request is forwarded again after a 304
	// that selected no stored response (refetch).
	refetched bool
}

// serve answers r, filling rec; it reports whether the response had to be
// cut short. A request goes through stages: refused if it is no proxy
// request; answered by the proxy if it is a TRACE or OPTIONS that may go
// no further (RFC 9110 §7.6.2); looked up (a GET or HEAD) and answered from the store when a
// stored response may be used; collapsed onto a miss of the same URL
// already in flight; else forwarded, and its response relayed and
// stored.
func (p *Proxy) serve(w *httpx.CountingWriter, r *http.Request, rec *Record) (aborted bool) {
	if p.refuse(w, r, rec) || p.answerFinal(w, r, rec) {
		return false
	}
	x := exchange{w: w, r: r, rec: rec, cacheable: r.Method == http.MethodGet || r.Method == http.MethodHead}
	if x.cacheable && p.lookUp(&x) {
		return false
	}
	if answered, aborted := p.collapse(&x); answered {
		return aborted
	}
	if x.lead != nil {
		defer p.land(x.key, x.lead)
	}
	return p.forward(&x)
}

// refuse answers a request the proxy does not serve, and reports whether
// it did: CONNECT (the node tunnels it), a target that is not an
// absolute http or https URL, a URL with userinfo or a fragment.
func (p *Proxy) refuse(w http.ResponseWriter, r *http.Request, rec *Record) bool {
	if r.Method == http.MethodConnect {
		rec.Code = squidlog.CodeDenied
		p.fail(w, http.StatusNotImplemented, "cache: CONNECT is not supported")
		return true
	}
	if r.URL == nil || !r.URL.IsAbs() || r.URL.Host == "" || r.URL.Scheme != "http" && r.URL.Scheme != "https" {
		rec.Code = squidlog.CodeNone
		p.fail(w, http.StatusBadRequest, "cache: not a proxy request (absolute http URL required)")
		return true
	}
	return p.refuseUserinfo(w, r, rec) || p.refuseFragment(w, r, rec)
}

// lookUp finds the stored response for a GET or HEAD and decides what it
// is good for: a hit, a stale response served while it is revalidated in
// the background (RFC 5861 §3), or, failing those, a 504 to an
// only-if-cached request (RFC 9111 §5.2.1.7). It reports whether r was
// answered; if not, x holds the key, the request's directives and the
// stored entry forwarding may validate.
func (p *Proxy) lookUp(x *exchange) (answered bool) {
	key, err := requestKey(x.r)
	if err != nil {
		x.rec.Code = squidlog.CodeNone
		p.fail(x.w, http.StatusBadRequest, err.Error())
		return true
	}
	x.key, x.rec.Key = key, key
	x.qcc = parseCacheControl(x.r.Header)
	stored, hit := p.serveHit(x.w, x.r, key, x.qcc, x.rec)
	if hit {
		return true
	}
	if now := p.now(); stored != nil && staleWhileRevalidate(stored, x.qcc, now) {
		x.rec.Code = squidlog.CodeStaleHit
		p.revalidateInBackground(x.r, key, stored)
		p.serveEntry(x.w, x.r, stored, now, "STALE")
		return true
	}
	if stored != nil {
		x.stored, x.entry = stored, stored.entry()
	}
	if x.qcc.Has("only-if-cached") {
		x.rec.Code = squidlog.CodeMiss
		x.w.Header().Set("X-Cache", "MISS from "+p.via)
		p.fail(x.w, http.StatusGatewayTimeout, "cache: only-if-cached: not in cache")
		return true
	}
	return false
}

// collapse joins a plain GET miss to the miss of the same key already in
// flight, if there is one, and answers it from that miss's stream or
// from what it stored; otherwise the request leads its own flight
// (x.lead), which the caller lands when it is done. It reports whether
// r was answered, and whether that answer was cut short.
func (p *Proxy) collapse(x *exchange) (answered, aborted bool) {
	if x.entry != nil || x.r.Method != http.MethodGet || x.qcc.Has("no-cache") || isConditional(x.r.Header) {
		return false, false
	}
	f, leader := p.join(x.key)
	if leader {
		x.lead = f
		return false, false
	}
	select {
	case <-f.ready:
	case <-x.r.Context().Done():
		x.rec.Code = squidlog.CodeMiss
		return true, false
	}
	if f.stream != nil {
		if served, aborted := p.follow(x.w, x.r, f.stream, x.qcc, x.rec); served {
			return true, aborted
		}
	} else if _, hit := p.serveHit(x.w, x.r, x.key, x.qcc, x.rec); hit {
		return true, false
	}
	return false, false
}

// forward sends r on through the router and answers it with the
// response: a stale one when the origin fails (RFC 9111 §4.2.4, RFC 5861
// §4), the freshened stored one after a 304 to the cache's own
// validation, or the response relayed and, when storable, stored.
func (p *Proxy) forward(x *exchange) (aborted bool) {
	u := p.newUpstream(x.r)
	defer u.end()
	var interim *interimRelay
	ctx := u.ctx
	if x.r.ProtoAtLeast(1, 1) {
		interim = &interimRelay{w: x.w}
		ctx = interim.trace(ctx)
	}
	out := p.outbound(ctx, x.r)
	if out.Body != nil {
		// The read timeout is the server's silence: while the request's
		// body is still being sent, the server is not yet silent.
		out.Body = &touchingBody{ReadCloser: out.Body, u: u}
	}
	p.decideValidation(x, out)
	requestTime := p.now()
	resp, src, err := p.router.Route(&Forward{Request: out, Key: x.key, Revalidation: x.revalidating != nil})
	if interim != nil {
		interim.done()
	}
	if err != nil {
		p.forwardFailed(x, u, err)
		return false
	}
	u.touch()
	if resp.Body == nil {
		resp.Body = http.NoBody
	}
	defer httpx.CloseBody(resp.Body)
	responseTime := p.now()
	x.rec.Hierarchy, x.rec.From, x.rec.FalseHits = src.Hierarchy, src.Host, src.FalseHits
	stripHopByHop(resp.Header)
	if sc := resp.StatusCode; x.cacheable && (sc == 500 || sc == 502 || sc == 503 || sc == 504) &&
		x.entry != nil && staleIfError(x.entry, x.qcc, responseTime) {
		x.rec.Code = squidlog.CodeRefreshFailOld
		p.serveEntry(x.w, x.r, x.stored, responseTime, "STALE")
		return false
	}
	if !x.cacheable {
		safe := x.r.Method == http.MethodOptions || x.r.Method == http.MethodTrace
		if !safe && resp.StatusCode >= 200 && resp.StatusCode < 400 {
			p.invalidate(x.r.URL, resp.Header)
		}
		return p.relay(x.w, x.r, resp, u, nil, nil)
	}
	if x.revalidating != nil {
		if resp.StatusCode == http.StatusNotModified {
			if !selectedBy304(x.revalidating.Header, resp.Header) {
				u.end() // this exchange is over: the deferred end finds nothing more to do
				return p.refetch(x)
			}
			p.serveRevalidated(x, resp.Header, requestTime, responseTime)
			return false
		}
		x.rec.Code = squidlog.CodeRefreshModified
	}
	return p.relayAndStore(x, resp, u, requestTime, responseTime)
}

// refetch forwards r again, as the client sent it, after a 304 to the
// cache's validation that selects no stored response (RFC 9111 §4.3.4):
// the origin's current response is not the one stored, which is
// removed, neither freshened nor served under the 304's validator. The
// client gets the response the origin sends now, stored as after a miss.
func (p *Proxy) refetch(x *exchange) (aborted bool) {
	p.store.Delete(x.key)
	x.stored, x.entry, x.revalidating, x.refetched = nil, nil, nil, true
	return p.forward(x)
}

// decideValidation sets the access-log code of a forwarded request and,
// when the cache holds a stored response it can validate, makes out the
// cache's own conditional request for it.
func (p *Proxy) decideValidation(x *exchange, out *http.Request) {
	x.rec.Code = squidlog.CodeMiss
	entry := x.entry
	switch {
	case entry != nil && x.r.Method == http.MethodGet && x.r.ContentLength == 0 && entry.Status == http.StatusOK &&
		!hasPrecondition(x.r.Header) && (entry.Header.Get("ETag") != "" || entry.Header.Get("Last-Modified") != ""):
		// The cache validates its own stored response (RFC 9111 §4.3.1);
		// a client's If-None-Match or If-Modified-Since is then answered
		// from the freshened response (§4.3.2), 304 when it matches, and
		// its Range from the freshened response too. When the origin
		// sends a new response instead, the client gets all of it (a
		// server may ignore Range, RFC 9110 §14.2) and it is stored.
		// A GET with a body (ContentLength not 0: sent, or of unknown
		// length) is forwarded as sent instead: the body is read once,
		// so a 304 that selects nothing could not be followed by the
		// request again (refetch).
		x.revalidating = entry
		for _, f := range []string{"If-None-Match", "If-Modified-Since", "Range", "If-Range"} {
			out.Header.Del(f)
		}
		if etag := entry.Header.Get("ETag"); etag != "" {
			out.Header.Set("If-None-Match", etag)
		}
		if lm := entry.Header.Get("Last-Modified"); lm != "" {
			out.Header.Set("If-Modified-Since", lm)
		}
	case x.refetched:
		x.rec.Code = squidlog.CodeRefreshModified // the validation found the stored response superseded
	case x.qcc.Has("no-cache"):
		x.rec.Code = squidlog.CodeClientRefreshMiss
	case entry != nil:
		x.rec.Code = squidlog.CodeRefreshMiss
	}
}

// forwardFailed answers a request that could not be forwarded: with the
// stored stale response when the cache is disconnected from the origin
// and no directive forbids it (RFC 9111 §4.2.4), else 502, or 504 on a
// timeout or when a stale response may not be served.
func (p *Proxy) forwardFailed(x *exchange, u *upstream, err error) {
	if errors.Is(err, ErrDestinationDenied) {
		x.rec.Code = squidlog.CodeDenied
		p.log.Info("cache: destination denied", "url", logURL(x.rec.URL), "err", logErr(err))
		p.fail(x.w, http.StatusForbidden, "cache: destination not allowed")
		return
	}
	status := http.StatusBadGateway
	if errors.Is(err, context.DeadlineExceeded) || httpx.IsTimeout(err) || u.timedOut.Load() {
		status = http.StatusGatewayTimeout
	}
	p.log.Info("cache: forwarding failed", "url", logURL(x.rec.URL), "err", logErr(err))
	if x.entry != nil {
		if now := p.now(); staleIfError(x.entry, x.qcc, now) || staleIfUnreachable(x.entry, x.qcc) {
			x.rec.Code = squidlog.CodeRefreshFailOld
			p.serveEntry(x.w, x.r, x.stored, now, "STALE")
			return
		}
		x.rec.Code, status = squidlog.CodeRefreshFailErr, http.StatusGatewayTimeout
	}
	p.fail(x.w, status, "cache: forwarding failed")
}

// serveRevalidated stores the validated entry freshened by the origin's
// 304 (RFC 9111 §4.3.4) and answers the client from it.
func (p *Proxy) serveRevalidated(x *exchange, h304 http.Header, requestTime, responseTime time.Time) {
	fresh := freshen(x.revalidating, h304, requestTime, responseTime)
	p.put(x.r, fresh)
	x.rec.Code = squidlog.CodeRefreshUnmodified
	// The cookies the origin set in its 304 are this client's.
	setClientState(x.w.Header(), h304)
	p.serveEntry(x.w, x.r, newStored(fresh), responseTime, "REFRESH_HIT")
}

// relayAndStore relays a forwarded response to the client and, when it
// is storable, collects its body as it goes (for the requests collapsed
// onto this one too) and stores it once whole; a stored response that
// the new one supersedes without being stored is removed.
func (p *Proxy) relayAndStore(x *exchange, resp *http.Response, u *upstream, requestTime, responseTime time.Time) (aborted bool) {
	r, key := x.r, x.key
	var keep *Entry
	if r.Method == http.MethodGet && storable(r, resp.StatusCode, resp.Header) &&
		resp.ContentLength <= p.maxObject {
		keep = &Entry{
			URL:          key,
			Status:       resp.StatusCode,
			Header:       storedHeader(resp.Header),
			ReqHeader:    varyHeader(resp.Header, r.Header),
			RequestTime:  requestTime,
			ResponseTime: responseTime,
		}
	}
	var s *inflight
	if keep != nil {
		p.noteHeuristic(r, resp.Header)
		s = newInflight(keep, resp.ContentLength, u.cancel)
		u.stream.Store(s)
		if x.lead != nil {
			x.lead.publish(s)
		}
	} else if x.lead != nil {
		p.land(key, x.lead) // nothing will be stored: the followers go on their own
	}
	committed := false
	commit := func() {
		if body, whole := s.finish(true); whole {
			keep.Body = body
			var st *storedEntry
			if p.storedPutter != nil && cap(body) == len(body) {
				// The stored form the followers read, with the body,
				// when its Content-Length is the body's: not made again.
				st = s.entry.withBody(body)
			}
			if st == nil {
				if cl := strconv.Itoa(len(body)); keep.Header.Get("Content-Length") != cl {
					keep.Header.Set("Content-Length", cl) // the followers read a copy (newInflight)
				}
			}
			p.putWith(r, keep, st)
			committed = true
		}
	}
	aborted = p.relay(x.w, r, resp, u, s, commit)
	if u.timedOut.Load() {
		x.rec.Code += "_TIMEDOUT"
	}
	if s != nil && !aborted && !u.timedOut.Load() {
		commit()
	}
	if !committed && x.entry != nil && r.Method == http.MethodGet && resp.StatusCode != http.StatusNotModified &&
		resp.StatusCode != http.StatusPartialContent && (keep == nil && !requestForbidsStore(r) || s != nil && s.outgrew()) {
		// The stored response is superseded by one the origin sent whole
		// and that is not to be stored, or is too large to be (a part of
		// a representation supersedes nothing). A response not stored
		// for the request's sake (its no-store, its Authorization) or
		// because it was cut short leaves the stored one alone: else any
		// client could remove any object from the cache.
		p.store.Delete(key)
	}
	return aborted
}

// requestForbidsStore reports whether r alone keeps its response from
// being stored (RFC 9111 §5.2.1.5 no-store, §3.5 Authorization).
func requestForbidsStore(r *http.Request) bool {
	return sharedCacheControl(r.Header).Has("no-store") || r.Header.Get("Authorization") != ""
}

// serveEntry writes a stored response (RFC 9111 §4), with Age (§5.1),
// Via and X-Cache, or a 304 when the client's conditional request finds
// its copy current (§4.3.2), which it reports.
//
// The values of the response's fields are the stored entry's own slices
// (clipped, so that an Add copies them), and those of Age, Via and
// X-Cache shared when they can be: a hit copies no value.
func (p *Proxy) serveEntry(w http.ResponseWriter, r *http.Request, s *storedEntry, now time.Time, xcache string) (notMod bool) {
	h := w.Header()
	if s.Status == http.StatusOK && notModified(r.Header, s) {
		for _, k := range notModifiedFields {
			if vs, ok := s.values(k); ok {
				h[k] = vs
			}
		}
		notMod = true
	} else {
		for _, f := range s.fields[:s.served] {
			h[f.name] = f.values
		}
	}
	h["Age"] = s.ageValues(now)
	if _, ok := h["Via"]; ok {
		httpx.AddVia(h, 1, 1, p.via)
	} else {
		h["Via"] = p.viaHit
	}
	if xcache == "HIT" {
		h["X-Cache"] = p.xcacheHit
	} else {
		h["X-Cache"] = []string{xcache + " from " + p.via}
	}
	if notMod {
		w.WriteHeader(http.StatusNotModified)
		return true
	}
	if writeRange(w, r, s, now) {
		return false
	}
	if s.Status == http.StatusNoContent || s.Status == http.StatusNotModified {
		h.Del("Content-Length")
	} else {
		h["Content-Length"] = s.contentLength
	}
	w.WriteHeader(s.Status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(s.Body) // a failed write is a client gone away: no one to tell
	}
	return false
}

// put stores e if the response is still storable, else removes the key.
// It first drops from e.Header, which must be e's own, the fields a
// qualified no-cache or private lists (as storedHeader does): a 304's
// fields merged into a stored header may list some.
func (p *Proxy) put(r *http.Request, e *Entry) {
	dropListedFields(e.Header)
	p.putWith(r, e, nil)
}

// putWith is put for an e whose header has no field its directives list
// (a miss's, made by storedHeader). Given s, e's stored form made from e
// as it is, it hands s to the store, which keeps stored forms
// (storedPutter).
func (p *Proxy) putWith(r *http.Request, e *Entry, s *storedEntry) {
	if !storable(r, e.Status, e.Header) {
		p.store.Delete(e.URL)
		return
	}
	var err error
	if s != nil {
		err = p.storedPutter.putStored(s)
	} else {
		err = p.store.Put(e)
	}
	if err != nil {
		p.log.Debug("cache: not stored", "url", logURL(e.URL), "err", logErr(err))
	}
}

// invalidate removes the stored responses a successful unsafe request
// makes obsolete: its target URI's, and those of the URIs the response's
// Location and Content-Location name when they have the target's origin
// (RFC 9111 §4.4): its scheme, host and port, compared as keys write
// them (keyOrigin).
func (p *Proxy) invalidate(target *url.URL, h http.Header) {
	key, err := Key(target.String())
	if err != nil {
		return
	}
	p.store.Delete(key)
	for _, f := range []string{"Location", "Content-Location"} {
		v := h.Get(f)
		if v == "" {
			continue
		}
		u, err := target.Parse(v)
		if err != nil {
			continue
		}
		if k, err := Key(u.String()); err == nil && keyOrigin(k) == keyOrigin(key) {
			p.store.Delete(k)
		}
	}
}

// keyOrigin returns the origin of a cache key (RFC 9110 §4.3.1), the key
// up to its path: "scheme://host[:port]", scheme and host lower-cased
// and a default port dropped, as [Key] writes them.
func keyOrigin(key string) string {
	i := strings.Index(key, "://") + len("://")
	if j := strings.IndexByte(key[i:], '/'); j >= 0 {
		return key[:i+j]
	}
	return key
}

// outbound builds the request to forward, in ctx: absolute URL,
// hop-by-hop fields removed, Via added, the Max-Forwards of a TRACE or
// OPTIONS one less (RFC 9110 §7.6).
func (p *Proxy) outbound(ctx context.Context, r *http.Request) *http.Request {
	out := r.Clone(ctx)
	out.RequestURI = ""
	out.Host = ""
	out.Close = false
	stripHopByHop(out.Header)
	httpx.AddVia(out.Header, r.ProtoMajor, r.ProtoMinor, p.via)
	if n, ok := maxForwards(r); ok && n > 0 {
		out.Header.Set("Max-Forwards", strconv.FormatUint(n-1, 10))
	}
	if r.ContentLength == 0 {
		out.Body = nil
	}
	return out
}

func (p *Proxy) hitCode() string {
	if p.memory {
		return squidlog.CodeMemHit
	}
	return squidlog.CodeHit
}

// fail writes an error response generated by the proxy.
func (p *Proxy) fail(w http.ResponseWriter, status int, msg string) {
	httpx.AddVia(w.Header(), 1, 1, p.via)
	http.Error(w, msg, status)
}

// noteHeuristic logs, once per proxy, that a response it stores carries
// no explicit freshness (no max-age, s-maxage or Expires): its lifetime
// is then the heuristic one (RFC 9111 §4.2.2), heuristicFraction of the
// time since Last-Modified, or none. A file served by a plain origin
// (python3 -m http.server, a directory listing) was modified moments
// ago, so its copy, here and in the peers that hold it, goes stale
// within minutes and a peer's only-if-cached answers a miss: the first
// peer-hit experiment fails with no other hint why.
func (p *Proxy) noteHeuristic(r *http.Request, h http.Header) {
	cc := sharedCacheControl(h)
	if cc.Has("max-age") || cc.Has("s-maxage") || len(h.Values("Expires")) > 0 {
		return
	}
	p.heuristicOnce.Do(func() {
		p.log.Warn("origin sent no freshness (no Cache-Control max-age, no Expires): cached copies use heuristic freshness, 10% of the time since Last-Modified, and may go stale within minutes, so peers answer misses; have the origin send Cache-Control: max-age=N (logged once)",
			"host", r.URL.Host, "last_modified", h.Get("Last-Modified"))
	})
}
