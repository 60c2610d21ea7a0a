package cache

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/bloomcast/bloomcast/internal/httpx"
	"github.com/bloomcast/bloomcast/internal/squidlog"
)

// backgroundTimeout bounds a background revalidation, body included.
const backgroundTimeout = 2 * time.Minute

// staleWhileRevalidate reports whether the stored entry e, stale at now,
// may answer a request with cache directives qcc while it is revalidated
// in the background (RFC 5861 §3): it is stale by no more than the
// response's stale-while-revalidate; nothing forbids serving it stale
// (no-cache, must-revalidate, proxy-revalidate, s-maxage: RFC 9111
// §4.2.4, §5.2.2); and the request accepts a stale response (no
// no-cache, no min-fresh, an age within its max-age: §5.2.1).
func staleWhileRevalidate(e *storedEntry, qcc cacheControl, now time.Time) bool {
	window, ok := e.dir.swr, e.dir.hasSWR
	if !ok || qcc.Has("no-cache") || qcc.Has("min-fresh") || e.dir.forbidStale() {
		return false
	}
	age, life := e.currentAge(now), e.lifetime
	if d, ok := qcc.Duration("max-age"); ok && age > d {
		return false
	}
	return age >= life && age-life <= window
}

// tryLead starts a flight for key unless one is under way, and reports
// whether it did; the caller then lands it.
func (p *Proxy) tryLead(key string) (*flight, bool) {
	p.flightMu.Lock()
	defer p.flightMu.Unlock()
	if _, ok := p.flights[key]; ok {
		return nil, false
	}
	if p.flights == nil {
		p.flights = map[string]*flight{}
	}
	f := newFlight()
	p.flights[key] = f
	return f, true
}

// revalidateInBackground refreshes the stored entry e, which answered r
// stale, unless a request for its key is already being forwarded: the
// collapsed-forwarding flight of the key makes it one revalidation
// however many requests are served stale meanwhile, and a miss of the
// key waits for it as for any flight. It returns at once.
func (p *Proxy) revalidateInBackground(r *http.Request, key string, e *storedEntry) {
	f, ok := p.tryLead(key)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), backgroundTimeout)
	out := p.outbound(ctx, r)
	out.Method, out.Body, out.ContentLength = http.MethodGet, nil, 0
	for _, name := range conditionalFields {
		out.Header.Del(name)
	}
	validators := false
	if etag := e.Get("ETag"); etag != "" {
		out.Header.Set("If-None-Match", etag)
		validators = true
	}
	if lm := e.Get("Last-Modified"); lm != "" {
		out.Header.Set("If-Modified-Since", lm)
		validators = true
	}
	client := httpx.ClientIP(r.RemoteAddr)
	p.bg.Add(1)
	go func() {
		defer p.bg.Done()
		defer cancel()
		defer p.land(key, f)
		p.refresh(out, key, e.entry(), validators, client)
	}()
}

// refresh forwards the background revalidation out of the stored entry
// e and stores what it learns: a 304 that selects e freshens it (RFC
// 9111 §4.3.4), a storable response replaces it, a failure (an error, or
// 500, 502, 503, 504) leaves it as it is, and anything else, a 304 that
// selects no stored response included, removes it. The access log
// gets a line for it, as Squid 2.7 logged its background revalidations:
// TCP_ASYNC_HIT when the stored response was still valid, else
// TCP_ASYNC_MISS, with the address of the client whose request started
// it, and 0 bytes, since no client received it.
func (p *Proxy) refresh(out *http.Request, key string, e *Entry, validators bool, client string) {
	start := p.now()
	rec := Record{Time: start, Client: client, Method: http.MethodGet, URL: out.URL.String(),
		Hierarchy: squidlog.HierNone, Key: key, Code: squidlog.CodeAsyncMiss}
	defer func() {
		rec.Elapsed = p.now().Sub(start)
		if p.access != nil {
			if err := p.access.Log(rec); err != nil {
				p.log.Warn("cache: writing access log", "err", err)
			}
		}
	}()
	resp, src, err := p.router.Route(&Forward{Request: out, Key: key, Revalidation: validators})
	if err != nil {
		p.log.Info("cache: background revalidation failed", "url", logURL(rec.URL), "err", logErr(err))
		rec.Status = http.StatusBadGateway
		return
	}
	if resp.Body == nil {
		resp.Body = http.NoBody
	}
	defer httpx.DiscardBody(resp.Body, p.maxObject)
	responseTime := p.now()
	rec.Status, rec.Hierarchy, rec.From, rec.FalseHits = resp.StatusCode, src.Hierarchy, src.Host, src.FalseHits
	rec.ContentType = resp.Header.Get("Content-Type")
	stripHopByHop(resp.Header)
	switch sc := resp.StatusCode; {
	case sc == http.StatusNotModified && validators && selectedBy304(e.Header, resp.Header):
		p.put(out, freshen(e, resp.Header, start, responseTime))
		rec.Code = squidlog.CodeAsyncHit
		return
	case sc == 500 || sc == 502 || sc == 503 || sc == 504:
		return
	}
	if storable(out, resp.StatusCode, resp.Header) && resp.ContentLength <= p.maxObject {
		b, err := io.ReadAll(io.LimitReader(resp.Body, p.maxObject+1))
		if err == nil && int64(len(b)) <= p.maxObject {
			ne := &Entry{URL: key, Status: resp.StatusCode, Header: storedHeader(resp.Header), Body: b,
				ReqHeader: varyHeader(resp.Header, out.Header), RequestTime: start, ResponseTime: responseTime}
			ne.Header.Set("Content-Length", strconv.Itoa(len(b)))
			p.put(out, ne)
			return
		}
	}
	p.store.Delete(key) // superseded by a response that is not stored
}
