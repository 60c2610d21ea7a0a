package cache

import (
	"hash/maphash"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// cacheControl holds the directives of a message's Cache-Control field
// lines (RFC 9111 §5.2): lower-cased directive names mapped to their
// arguments, unquoted, or "" for a directive without one. When a directive
// appears more than once the first occurrence is kept (RFC 9111 §4.2.1).
//
// The zero value, nil, holds no directive; parseCacheControl returns it for
// a message without any.
type cacheControl map[string]string

// parseCacheControl parses every Cache-Control field line of h. A request
// without Cache-Control but with "Pragma: no-cache" is read as
// "Cache-Control: no-cache" (RFC 9111 §5.4); the caller passes request
// headers and response headers alike, since a response never carries a
// meaningful Pragma. When h has neither field the map is nil: it reads
// as empty and must not be written to.
func parseCacheControl(h http.Header) cacheControl {
	lines := h.Values("Cache-Control")
	if len(lines) == 0 {
		// Most requests have neither field: their (nil) map is never
		// allocated.
		var cc cacheControl
		for _, p := range h.Values("Pragma") {
			for _, d := range strings.Split(p, ",") {
				if strings.EqualFold(strings.TrimSpace(d), "no-cache") {
					cc = cacheControl{"no-cache": ""}
				}
			}
		}
		return cc
	}
	cc := cacheControl{}
	for _, line := range lines {
		parseDirectives(cc, line)
	}
	return cc
}

// Parsed Cache-Control values, shared: a miss reads its response's
// Cache-Control in several places (is it storable, which fields are kept,
// its freshness lifetime) and each parseCacheControl makes a map. Origins
// send few distinct values, so the proxy keeps the directives of the
// values it saw last, one per slot of a small table, and hands the same
// read-only map to each reader of the same value. A stored entry keeps
// only the directives that decide its use (storedDirectives).
const (
	ccMemoSlots   = 256
	ccMemoMaxLine = 256 // longer values are parsed each time
)

type ccMemoEntry struct {
	line string
	cc   cacheControl
}

var (
	ccMemo     [ccMemoSlots]atomic.Pointer[ccMemoEntry]
	ccMemoSeed = maphash.MakeSeed()
)

// sharedCacheControl is parseCacheControl for a reader that does not
// keep the result: a message with one Cache-Control field line seen
// before gets the directives parsed then. The map must not be written
// to.
func sharedCacheControl(h http.Header) cacheControl {
	lines := h["Cache-Control"]
	if len(lines) != 1 || len(lines[0]) > ccMemoMaxLine {
		return parseCacheControl(h)
	}
	line := lines[0]
	slot := &ccMemo[maphash.String(ccMemoSeed, line)%ccMemoSlots]
	if e := slot.Load(); e != nil && e.line == line {
		return e.cc
	}
	cc := cacheControl{}
	line = strings.Clone(line) // the directives' values are substrings: keep no message's field alive
	parseDirectives(cc, line)
	slot.Store(&ccMemoEntry{line: line, cc: cc})
	return cc
}

// parseDirectives adds the directives of one field line: a comma-separated
// list of token [ "=" ( token / quoted-string ) ] (RFC 9111 §5.2). Commas
// inside quoted strings do not separate directives.
func parseDirectives(cc cacheControl, s string) {
	for s != "" {
		s = strings.TrimLeft(s, " \t,")
		if s == "" {
			return
		}
		end := strings.IndexAny(s, ",=")
		if end < 0 {
			end = len(s)
		}
		name := strings.ToLower(strings.TrimSpace(s[:end]))
		s = s[end:]
		val := ""
		if strings.HasPrefix(s, "=") {
			s = strings.TrimLeft(s[1:], " \t")
			if strings.HasPrefix(s, `"`) {
				var b strings.Builder
				i := 1
				for ; i < len(s) && s[i] != '"'; i++ {
					if s[i] == '\\' && i+1 < len(s) {
						i++
					}
					b.WriteByte(s[i])
				}
				val = b.String()
				s = s[min(i+1, len(s)):]
				if j := strings.IndexByte(s, ','); j >= 0 {
					s = s[j:]
				} else {
					s = ""
				}
			} else {
				j := strings.IndexByte(s, ',')
				if j < 0 {
					j = len(s)
				}
				val = strings.TrimSpace(s[:j])
				s = s[j:]
			}
		}
		if name == "" {
			continue
		}
		if _, dup := cc[name]; !dup {
			cc[name] = val
		}
	}
}

// Has reports whether the directive is present.
func (cc cacheControl) Has(name string) bool {
	_, ok := cc[name]
	return ok
}

// whole reports whether the response directive name (no-cache or
// private) is present in its unqualified form, which applies to the
// whole response rather than to listed fields (RFC 9111 §5.2.2.4,
// §5.2.2.7).
func (cc cacheControl) whole(name string) bool {
	v, ok := cc[name]
	return ok && strings.Trim(v, " \t,") == ""
}

// fields returns the canonical field names listed by the qualified form
// of the response directive name (no-cache="a, b" or private="a"), nil
// when it is absent or unqualified.
func (cc cacheControl) fields(name string) []string {
	var names []string
	for _, n := range strings.Split(cc[name], ",") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, http.CanonicalHeaderKey(n))
		}
	}
	return names
}

// maxDelta is the largest delta-seconds a cache must handle; larger values
// are read as it (RFC 9111 §1.2.2).
const maxDelta = math.MaxInt32 + 1

// Duration returns the delta-seconds argument of a directive (RFC 9111
// §1.2.2) and whether the directive is present. A present directive with a
// missing or invalid argument yields 0, so a malformed max-age makes a
// response stale rather than fresh.
func (cc cacheControl) Duration(name string) (time.Duration, bool) {
	v, ok := cc[name]
	if !ok {
		return 0, false
	}
	return parseDelta(v), true
}

// parseDelta parses delta-seconds: digits only, capped at 2^31; anything
// else is 0.
func parseDelta(v string) time.Duration {
	if v == "" {
		return 0
	}
	n := int64(0)
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0
		}
		n = n*10 + int64(c-'0')
		if n > maxDelta {
			n = maxDelta
		}
	}
	return time.Duration(n) * time.Second
}

// formatSeconds formats a non-negative duration as delta-seconds.
func formatSeconds(d time.Duration) string {
	return strconv.FormatInt(deltaSeconds(d), 10)
}

// deltaSeconds is d in whole seconds, 0 for a negative d, capped at
// maxDelta.
func deltaSeconds(d time.Duration) int64 {
	if d < 0 {
		d = 0
	}
	return min(int64(d/time.Second), maxDelta)
}
