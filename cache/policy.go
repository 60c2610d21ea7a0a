package cache

import (
	"net/http"
	"strings"
	"time"
)

// heuristicFraction and heuristicMax bound heuristic freshness (RFC 9111
// §4.2.2): a response with Last-Modified but no explicit expiration is
// fresh for heuristicFraction of the time since it was last modified (the
// 10% the RFC mentions as typical), at most heuristicMax.
const (
	heuristicFraction = 0.1
	heuristicMax      = 24 * time.Hour
)

// heuristicStatus lists the status codes that are heuristically cacheable
// (RFC 9110 §15.1): a response with one of them may be stored and given a
// heuristic lifetime without explicit freshness information.
var heuristicStatus = map[int]bool{
	200: true, 203: true, 204: true, 206: true, 300: true, 301: true,
	308: true, 404: true, 405: true, 410: true, 414: true, 501: true,
}

// understoodStatus reports whether the cache understands a status code
// for must-understand (RFC 9111 §5.2.2.3): it implements that status's
// caching requirements. These are the heuristically cacheable statuses
// it stores, 206 excepted (the proxy stores no partial content).
func understoodStatus(status int) bool {
	return heuristicStatus[status] && status != http.StatusPartialContent
}

// storable reports whether a shared cache may store the response with
// status and header fields resp to the request req (RFC 9111 §3):
//
//   - the request method is GET (HEAD requests are answered from stored GET
//     responses, not stored themselves);
//   - the status is final and neither 206 nor 304: partial content is
//     not stored (§3.3 allows storing it, §3.4 combining it; the proxy
//     does neither, and answers Range requests from stored complete
//     responses instead);
//   - with must-understand, the status is one the cache understands
//     (understoodStatus), and the response's no-store is then ignored
//     (§5.2.2.3);
//   - neither request nor response has no-store (§5.2.1.5, §5.2.2.5);
//   - the response has no unqualified private directive (§5.2.2.7); a
//     qualified one (private="Set-Cookie") keeps only the listed fields
//     out of the cache (see storedHeader);
//   - a request with Authorization is stored only when the response has
//     public, must-revalidate or s-maxage (§3.5);
//   - Vary is not "*" (it can never be matched, §4.1);
//   - the response has explicit freshness (public, s-maxage, max-age,
//     Expires) or a heuristically cacheable status (RFC 9110 §15.1).
//
// Set-Cookie does not prevent storage (RFC 9111 §7: it "does not inhibit
// caching"; an origin that minds says private or no-cache="Set-Cookie").
// The stored response keeps it, and the proxy leaves it out of responses
// served from the cache, as Squid does, so that one client's cookie is
// never handed to another.
func storable(req *http.Request, status int, resp http.Header) bool {
	if req.Method != http.MethodGet {
		return false
	}
	if status < 200 || status == http.StatusPartialContent || status == http.StatusNotModified {
		return false
	}
	qcc := sharedCacheControl(req.Header)
	rcc := sharedCacheControl(resp)
	mustUnderstand := rcc.Has("must-understand")
	if mustUnderstand && !understoodStatus(status) {
		return false
	}
	if qcc.Has("no-store") || rcc.Has("no-store") && !mustUnderstand || rcc.whole("private") {
		return false
	}
	public := rcc.Has("public")
	if req.Header.Get("Authorization") != "" && !public && !rcc.Has("must-revalidate") && !rcc.Has("s-maxage") {
		return false
	}
	if _, star := varyNames(resp); star {
		return false
	}
	return public || rcc.Has("s-maxage") || rcc.Has("max-age") ||
		len(resp.Values("Expires")) > 0 || heuristicStatus[status]
}

// storedHeader returns the header fields of a response as a shared cache
// stores them (RFC 9111 §3.1): every field received, including unknown
// ones, except the hop-by-hop fields and those the Connection field
// names (RFC 9110 §7.6.1), the proxy authentication fields, and the
// fields listed by a qualified no-cache (§5.2.2.4: they may not be sent
// without revalidation, so the proxy does not keep them) or private
// (§5.2.2.7: a shared cache must not store them). h is not modified.
func storedHeader(h http.Header) http.Header {
	out := h.Clone()
	stripHopByHop(out)
	dropListedFields(out)
	return out
}

// dropListedFields removes from h the fields that h's qualified no-cache
// and private directives list.
func dropListedFields(h http.Header) {
	rcc := sharedCacheControl(h)
	for _, d := range []string{"no-cache", "private"} {
		for _, n := range rcc.fields(d) {
			delete(h, n)
		}
	}
}

// freshnessLifetime returns the freshness lifetime of a response as a
// shared cache computes it (RFC 9111 §4.2.1), the first that applies of:
// s-maxage; max-age; Expires minus Date (an Expires that is not an
// HTTP-date in one of its three exact formats, or differs between field
// lines, means already expired, §5.3); a heuristic lifetime (§4.2.2) of
// heuristicFraction of Date minus Last-Modified, capped at heuristicMax,
// for heuristically cacheable statuses and public responses; otherwise
// zero. A missing or invalid Date is taken to be the response time.
func freshnessLifetime(status int, h http.Header, responseTime time.Time) time.Duration {
	cc := sharedCacheControl(h)
	if d, ok := cc.Duration("s-maxage"); ok {
		return d
	}
	if d, ok := cc.Duration("max-age"); ok {
		return d
	}
	date := dateValue(h, responseTime)
	if vs := h.Values("Expires"); len(vs) > 0 {
		exp, ok := parseHTTPDate(vs[0], responseTime)
		for _, v := range vs[1:] {
			ok = ok && v == vs[0] // a singleton field: differing lines are invalid
		}
		if !ok {
			return 0 // invalid: already expired (RFC 9111 §5.3)
		}
		return max(exp.Sub(date), 0)
	}
	if !heuristicStatus[status] && !cc.Has("public") {
		return 0
	}
	lm, ok := parseHTTPDate(h.Get("Last-Modified"), responseTime)
	if !ok || !lm.Before(date) {
		return 0
	}
	return min(time.Duration(float64(date.Sub(lm))*heuristicFraction), heuristicMax)
}

// ageField is the Age field's value (RFC 9111 §5.1): "a cache
// encountering a message with a list-based Age field value SHOULD use the
// first member of the field value, discarding subsequent ones", and
// ignore (0) a value that is then not delta-seconds.
func ageField(h http.Header) time.Duration {
	vs := h.Values("Age")
	if len(vs) == 0 {
		return 0
	}
	first, _, _ := strings.Cut(vs[0], ",")
	return parseDelta(strings.Trim(first, " \t"))
}

// dateValue is the response's Date, or fallback when absent or invalid.
func dateValue(h http.Header, fallback time.Time) time.Time {
	if d, ok := parseHTTPDate(h.Get("Date"), fallback); ok {
		return d
	}
	return fallback
}

// currentAge computes a stored response's current age at now (RFC 9111
// §4.2.3):
//
//	apparent_age = max(0, response_time - date_value)
//	corrected_age_value = age_value + (response_time - request_time)
//	corrected_initial_age = max(apparent_age, corrected_age_value)
//	current_age = corrected_initial_age + (now - response_time)
//
// age_value is the Age field (§5.1): of a list ("7200, 0", or several
// field lines) the first member; 0 if absent or invalid ("abc", "-1",
// "7200.0", "7200a").
func currentAge(h http.Header, requestTime, responseTime, now time.Time) time.Duration {
	apparent := max(responseTime.Sub(dateValue(h, responseTime)), 0)
	ageValue := ageField(h)
	corrected := ageValue + max(responseTime.Sub(requestTime), 0)
	return max(apparent, corrected) + max(now.Sub(responseTime), 0)
}

// usable reports whether entry e may answer, without contacting the
// origin, a request with cache directives qcc at now (RFC 9111 §4.2 and
// §5.2.1): the request has no no-cache; the response has no unqualified
// no-cache; its age is within the request's max-age; and it is fresh for
// at least min-fresh more, or, stale, within the request's max-stale when
// the response allows serving stale (no must-revalidate, proxy-revalidate
// or s-maxage, §5.2.2.2, §5.2.2.8, §5.2.2.10).
func usable(e *storedEntry, qcc cacheControl, now time.Time) bool {
	if qcc.Has("no-cache") {
		return false
	}
	if e.dir.noCache {
		return false
	}
	age, life := e.currentAge(now), e.lifetime
	if d, ok := qcc.Duration("max-age"); ok && age > d {
		return false
	}
	if life > age {
		d, ok := qcc.Duration("min-fresh")
		return !ok || life-age >= d
	}
	v, ok := qcc["max-stale"]
	if !ok || e.dir.forbidStale() {
		return false
	}
	return v == "" || age-life <= parseDelta(v)
}

// staleIfError reports whether stored entry e may answer, stale, a
// request whose forwarding failed (an error, or a 500, 502, 503 or 504)
// at now: the response's or the request's stale-if-error allows that
// much staleness (RFC 5861 §4), and nothing forbids serving it stale
// (no-cache, must-revalidate, proxy-revalidate, s-maxage: RFC 9111
// §4.2.4).
func staleIfError(e *Entry, qcc cacheControl, now time.Time) bool {
	rcc := sharedCacheControl(e.Header)
	if qcc.Has("no-cache") || rcc.whole("no-cache") || rcc.Has("must-revalidate") || rcc.Has("proxy-revalidate") || rcc.Has("s-maxage") {
		return false
	}
	window, ok := rcc.Duration("stale-if-error")
	if d, qok := qcc.Duration("stale-if-error"); qok {
		window, ok = max(window, d), true
	}
	stale := e.age(now) - e.lifetime()
	return ok && stale <= window
}

// staleIfUnreachable reports whether stored entry e may answer, stale, a
// request with cache directives qcc that could not be forwarded because
// the origin could not be reached: RFC 9111 §4.2.4 lets a cache that is
// disconnected serve a stale response unless a directive forbids it, the
// response's no-cache (§5.2.2.4), must-revalidate (§5.2.2.2),
// proxy-revalidate (§5.2.2.8) or s-maxage (§5.2.2.10, in a shared
// cache), or the request's no-cache (§5.2.1.4: the client wants nothing
// it has not validated).
func staleIfUnreachable(e *Entry, qcc cacheControl) bool {
	rcc := sharedCacheControl(e.Header)
	return !qcc.Has("no-cache") && !rcc.whole("no-cache") && !rcc.Has("must-revalidate") &&
		!rcc.Has("proxy-revalidate") && !rcc.Has("s-maxage")
}
