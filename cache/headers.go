package cache

import (
	"net/http"
	"strings"
	"time"
)

// hopByHop are the fields that describe one connection rather than the
// message (RFC 9110 §7.6.1), plus Proxy-Connection (a non-standard
// Connection) and the proxy authentication fields, which a proxy consumes
// (RFC 9110 §11.7; RFC 9111 §3.1 forbids storing them). Trailer is
// dropped because the proxy does not forward trailers.
var hopByHop = []string{
	"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
	"Proxy-Authentication-Info", "Proxy-Authorization", "Te", "Trailer",
	"Transfer-Encoding", "Upgrade",
}

// stripHopByHop removes the hop-by-hop fields of h, including every field
// its Connection header names.
func stripHopByHop(h http.Header) {
	for _, line := range h.Values("Connection") {
		for _, name := range strings.Split(line, ",") {
			if name = strings.TrimSpace(name); name != "" {
				h.Del(name)
			}
		}
	}
	for _, name := range hopByHop {
		h.Del(name)
	}
}

// clientState are the response fields that set state in the one client
// that received them (RFC 6265 §4.1; Set-Cookie2 of the obsolete RFC
// 2965): kept in stored responses, left out of responses served from
// the cache, as Squid does (its client_side_reply.cc drops Set-Cookie
// from hits).
var clientState = map[string]bool{"Set-Cookie": true, "Set-Cookie2": true}

// setClientState copies the clientState fields of src into dst.
func setClientState(dst, src http.Header) {
	for k := range clientState {
		if vs, ok := src[k]; ok {
			dst[k] = append([]string(nil), vs...)
		}
	}
}

// conditionalFields are the request fields that make a request conditional
// or partial (RFC 9110 §13.1, §14.2).
var conditionalFields = []string{"If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range", "Range"}

// hasPrecondition reports whether h has a precondition other than the
// validators a cache answers itself (If-None-Match, If-Modified-Since)
// and If-Range, which it answers with Range from a stored response.
func hasPrecondition(h http.Header) bool {
	for _, f := range conditionalFields[2:4] {
		if _, ok := h[f]; ok {
			return true
		}
	}
	return false
}

func isConditional(h http.Header) bool {
	for _, f := range conditionalFields {
		if _, ok := h[f]; ok {
			return true
		}
	}
	return false
}

// fieldGetter reads a stored response's fields: an http.Header, or a
// stored entry's fields.
type fieldGetter interface {
	Get(key string) string
}

// notModified evaluates a client's If-None-Match, or else
// If-Modified-Since, against a stored response (RFC 9110 §13.1.2,
// §13.1.3, §13.2.2; RFC 9111 §4.3.2): true when the client's copy is
// current and a 304 is the answer.
func notModified(req http.Header, stored fieldGetter) bool {
	if inm := req.Values("If-None-Match"); len(inm) > 0 {
		etag := stored.Get("ETag")
		for _, line := range inm {
			for _, tag := range strings.Split(line, ",") {
				tag = strings.TrimSpace(tag)
				if tag == "*" || etag != "" && weakEqual(tag, etag) {
					return true
				}
			}
		}
		return false
	}
	imsField := req.Get("If-Modified-Since")
	if imsField == "" {
		return false
	}
	now := time.Now()
	ims, ok := parseHTTPDate(imsField, now)
	if !ok {
		return false
	}
	lm, ok := parseHTTPDate(stored.Get("Last-Modified"), now)
	return ok && !lm.After(ims)
}

// weakEqual is the weak comparison of entity tags (RFC 9110 §8.8.3.2):
// equal opaque tags, either or both possibly weak.
func weakEqual(a, b string) bool {
	return strings.TrimPrefix(a, "W/") == strings.TrimPrefix(b, "W/")
}

// notModifiedFields are the fields a 304 repeats from the 200 it stands for
// (RFC 9110 §15.4.5: Content-Location, Date, ETag, Vary, Cache-Control
// and Expires; Last-Modified too, which guides a cache's update), in the
// canonical form that indexes an http.Header ("Etag", not "ETag").
var notModifiedFields = []string{"Cache-Control", "Content-Location", "Date", "Etag", "Expires", "Vary", "Last-Modified"}

// selectedBy304 reports whether a 304 with header fields h304 selects
// the stored response with fields stored for update (RFC 9111 §4.3.4),
// by the first rule that applies: a strong entity tag in the 304 selects
// a stored response with the same strong tag; else its Last-Modified
// selects one with the same Last-Modified; else the one stored response
// (the proxy keeps one per key) is selected.
func selectedBy304(stored fieldGetter, h304 http.Header) bool {
	if etag := h304.Get("ETag"); etag != "" && !strings.HasPrefix(etag, "W/") {
		return stored.Get("ETag") == etag
	}
	if lm := h304.Get("Last-Modified"); lm != "" {
		return stored.Get("Last-Modified") == lm
	}
	return true
}

// freshen returns a copy of e updated by the header of a 304 that
// selects it (selectedBy304; RFC 9111 §4.3.4, §3.2): every field of the 304 replaces
// the stored one, except Content-Length, and the times are the
// revalidation's.
func freshen(e *Entry, h304 http.Header, requestTime, responseTime time.Time) *Entry {
	h := e.Header.Clone()
	for k, vs := range h304 {
		if k == "Content-Length" {
			continue
		}
		h[k] = append([]string(nil), vs...)
	}
	ne := *e
	ne.Header, ne.RequestTime, ne.ResponseTime = h, requestTime, responseTime
	return &ne
}
