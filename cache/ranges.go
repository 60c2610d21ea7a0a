package cache

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// byteRange is a satisfiable byte range of a representation: the
// positions of its first and last bytes, inclusive (RFC 9110 §14.1.1).
type byteRange struct{ first, last int64 }

// rangeVerdict is what a Range request gets from a stored complete
// response.
type rangeVerdict int

const (
	rangeIgnored       rangeVerdict = iota // the whole response, 200
	rangePartial                           // the range, 206 with Content-Range
	rangeUnsatisfiable                     // 416 with Content-Range: bytes */size
)

// parseRange evaluates the value of a Range field against a
// representation of size bytes (RFC 9110 §14.1.2, §14.2):
//
//   - one range, first-last, first- or -suffix, that overlaps the
//     representation: rangePartial, clipped to it;
//   - one range that does not (first at or past the end, or a suffix of
//     0 bytes): rangeUnsatisfiable;
//   - anything else: rangeIgnored. That is a unit other than bytes, a
//     syntax error (last before first, a sign, no digits), several
//     ranges (a server may ignore Range, §14.2, and the proxy does rather
//     than send multipart/byteranges), and any range of an empty
//     representation, which has no bytes to name.
func parseRange(v string, size int64) (byteRange, rangeVerdict) {
	unit, set, ok := strings.Cut(v, "=")
	if !ok || !strings.EqualFold(strings.TrimSpace(unit), "bytes") || size <= 0 {
		return byteRange{}, rangeIgnored
	}
	var spec string
	for _, s := range strings.Split(set, ",") {
		if s = strings.Trim(s, " \t"); s == "" {
			continue // empty list elements are allowed (RFC 9110 §5.6.1)
		}
		if spec != "" {
			return byteRange{}, rangeIgnored // several ranges
		}
		spec = s
	}
	firstS, lastS, ok := strings.Cut(spec, "-")
	if !ok {
		return byteRange{}, rangeIgnored
	}
	if firstS == "" { // suffix-range: the last n bytes
		n, ok := parseDigits(lastS)
		switch {
		case !ok:
			return byteRange{}, rangeIgnored
		case n == 0:
			return byteRange{}, rangeUnsatisfiable
		}
		return byteRange{max(size-n, 0), size - 1}, rangePartial
	}
	first, ok := parseDigits(firstS)
	if !ok {
		return byteRange{}, rangeIgnored
	}
	last := int64(math.MaxInt64)
	if lastS != "" {
		if last, ok = parseDigits(lastS); !ok || last < first {
			return byteRange{}, rangeIgnored
		}
	}
	if first >= size {
		return byteRange{}, rangeUnsatisfiable
	}
	return byteRange{first, min(last, size-1)}, rangePartial
}

// parseDigits parses a non-empty string of decimal digits, saturating at
// math.MaxInt64 (a position past any representation).
func parseDigits(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	n := int64(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if n > (math.MaxInt64-int64(c-'0'))/10 {
			n = math.MaxInt64
			continue
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// ifRangeHolds evaluates an If-Range field value against a stored
// response's header fields (RFC 9110 §13.1.5): an entity-tag holds when
// it is strong and equal, byte for byte, to the stored strong ETag; an
// HTTP-date when it equals the stored Last-Modified and that is a strong
// validator, at least one second before the stored Date (§8.8.2.2).
// Anything else does not hold, and the Range is then ignored. now
// places two-digit years.
func ifRangeHolds(v string, stored fieldGetter, now time.Time) bool {
	v = strings.Trim(v, " \t")
	if strings.HasPrefix(v, `"`) || strings.HasPrefix(v, "W/") {
		etag := stored.Get("ETag")
		return strings.HasPrefix(v, `"`) && len(v) >= 2 && strings.HasSuffix(v, `"`) && v == etag
	}
	date, ok := parseHTTPDate(v, now)
	if !ok {
		return false
	}
	lm, ok := parseHTTPDate(stored.Get("Last-Modified"), now)
	if !ok || !lm.Equal(date) {
		return false
	}
	sent, ok := parseHTTPDate(stored.Get("Date"), now)
	return ok && sent.Sub(lm) >= time.Second
}

// writeRange answers a GET with a Range field from the stored complete
// response e (RFC 9110 §14.2, §15.3.7, §15.5.17; RFC 9111 §4), whose
// header fields the caller has already put in w.Header(): 206 with the
// range and its Content-Range, or 416 with "Content-Range: bytes
// */size". It reports false, having written nothing, when there is no
// Range, several Range lines, an If-Range that does not hold, or a range
// the proxy ignores (see parseRange); the caller then sends the whole
// response.
func writeRange(w http.ResponseWriter, r *http.Request, e *storedEntry, now time.Time) bool {
	vs := r.Header["Range"]
	if len(vs) != 1 || r.Method != http.MethodGet || e.Status != http.StatusOK {
		return false
	}
	if ir, ok := r.Header["If-Range"]; ok && (len(ir) != 1 || !ifRangeHolds(ir[0], e, now)) {
		return false
	}
	size := int64(len(e.Body))
	br, verdict := parseRange(vs[0], size)
	h := w.Header()
	switch verdict {
	case rangePartial:
		h.Set("Content-Range", "bytes "+strconv.FormatInt(br.first, 10)+"-"+strconv.FormatInt(br.last, 10)+"/"+strconv.FormatInt(size, 10))
		h.Set("Content-Length", strconv.FormatInt(br.last-br.first+1, 10))
		w.WriteHeader(http.StatusPartialContent)
		_, _ = w.Write(e.Body[br.first : br.last+1]) // a failed write is a client gone away
	case rangeUnsatisfiable:
		for _, k := range []string{"Content-Type", "Content-Encoding", "Content-Language", "Content-Location"} {
			delete(h, k) // they described the body this answer does not carry
		}
		h.Set("Content-Range", "bytes */"+strconv.FormatInt(size, 10))
		h.Set("Content-Length", "0")
		w.WriteHeader(http.StatusRequestedRangeNotSatisfiable)
	default:
		return false
	}
	return true
}
