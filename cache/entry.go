package cache

import (
	"net/http"
	"strings"
	"time"
)

// Entry is one stored response (RFC 9111 §3): the URL it answers, the
// response's status, header fields and body, the request header fields
// the response's Vary names (to select it for later requests, §4.1), and
// the request and response times the age calculation needs (§4.2.3).
//
// An Entry handed to or returned by a [Store] is shared and must be
// treated as read-only.
//
// The zero value is an entry with no URL and no response.
type Entry struct {
	URL          string      // canonical absolute URL; also the cache key (see Key)
	Status       int         // response status code
	Header       http.Header // response header fields, hop-by-hop fields removed
	Body         []byte      // response content
	ReqHeader    http.Header // the request's values of the fields named in Vary
	RequestTime  time.Time   // when the request that produced the response was sent
	ResponseTime time.Time   // when the response was received
}

// lifetime is the entry's freshness lifetime (RFC 9111 §4.2.1).
func (e *Entry) lifetime() time.Duration {
	return freshnessLifetime(e.Status, e.Header, e.ResponseTime)
}

// age is the entry's current age at now (RFC 9111 §4.2.3).
func (e *Entry) age(now time.Time) time.Duration {
	return currentAge(e.Header, e.RequestTime, e.ResponseTime, now)
}

// fresh reports whether the entry is fresh at now: its freshness lifetime
// exceeds its current age (RFC 9111 §4.2). A response with
// "Cache-Control: no-cache" is never served without validation, so it is
// not fresh here either (a qualified no-cache="field" only keeps its
// fields out of the stored response, RFC 9111 §3.1).
func (e *Entry) fresh(now time.Time) bool {
	if sharedCacheControl(e.Header).whole("no-cache") {
		return false
	}
	return e.lifetime() > e.age(now)
}

// matchesVary reports whether the entry may answer a request with header
// fields h: every field the stored response's Vary names has the same
// (normalised) value in h as in the request that produced the response,
// and Vary is not "*" (RFC 9111 §4.1).
func (e *Entry) matchesVary(h http.Header) bool {
	names, star := varyNames(e.Header)
	return matchVary(names, star, e.ReqHeader, h)
}

// matchVary reports whether request header fields h match the stored
// request's fields req for the Vary names (MatchesVary).
func matchVary(names []string, star bool, req, h http.Header) bool {
	if star {
		return false
	}
	for _, n := range names {
		if fieldValue(req, n) != fieldValue(h, n) {
			return false
		}
	}
	return true
}

// varyNames returns the canonical field names listed in the Vary field
// lines of h and whether one of them is "*".
func varyNames(h http.Header) (names []string, star bool) {
	for _, line := range h.Values("Vary") {
		for _, n := range strings.Split(line, ",") {
			n = strings.TrimSpace(n)
			switch n {
			case "":
			case "*":
				star = true
			default:
				names = append(names, http.CanonicalHeaderKey(n))
			}
		}
	}
	return names, star
}

// varyHeader returns the fields of the request header req that the
// response header resp names in Vary, to be stored with the response.
func varyHeader(resp, req http.Header) http.Header {
	names, _ := varyNames(resp)
	if len(names) == 0 {
		return nil
	}
	out := make(http.Header, len(names))
	for _, n := range names {
		if vs := req.Values(n); len(vs) > 0 {
			out[n] = append([]string(nil), vs...)
		}
	}
	return out
}

// fieldValue normalises a field for Vary matching: the field lines
// combined with commas, whitespace around each member removed (RFC 9111
// §4.1 allows such semantically equivalent normalisations).
func fieldValue(h http.Header, name string) string {
	var b strings.Builder
	first := true
	for _, line := range h.Values(name) {
		for _, m := range strings.Split(line, ",") {
			if !first {
				b.WriteByte(',')
			}
			first = false
			b.WriteString(strings.TrimSpace(m))
		}
	}
	return b.String()
}
