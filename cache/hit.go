package cache

import (
	"net/http"
	"slices"
	"strconv"
	"sync/atomic"
	"time"
)

// storedEntry is a stored entry with what answering a request from it needs
// and what does not change while it is stored: its response's
// Cache-Control, freshness lifetime and initial age, its Vary names, and
// its header fields ready to be handed to a ResponseWriter. A [Memory]
// store works these out once, when an entry is stored (a stored entry is
// read-only), so that a hit parses no header field and copies no value;
// for other stores the proxy works them out per request.
type storedEntry struct {
	*Entry
	cc         cacheControl  // the response's Cache-Control
	lifetime   time.Duration // Entry.Lifetime
	initialAge time.Duration // corrected_initial_age (RFC 9111 §4.2.3): the age at ResponseTime
	varyNames  []string      // canonical names listed in Vary
	varyStar   bool          // Vary lists "*"
	// header lists the fields of Entry.Header served from the cache
	// (all but clientState) with their values, each slice clipped to its
	// length: a ResponseWriter's header may share
	// them, since a later Add to one of its fields copies the slice
	// rather than writing into the entry.
	header []storedField
	// contentLength is the Content-Length field's value, the body's
	// length.
	contentLength []string
	// age is the Age field's value last served, shared while the age in
	// seconds stays the same.
	age atomic.Pointer[servedAge]
}

type storedField struct {
	name   string
	values []string
}

type servedAge struct {
	seconds int64
	values  []string
}

// newStored works out what answering from e needs.
func newStored(e *Entry) *storedEntry {
	s := &storedEntry{
		Entry:         e,
		cc:            parseCacheControl(e.Header),
		lifetime:      e.Lifetime(),
		initialAge:    currentAge(e.Header, e.RequestTime, e.ResponseTime, e.ResponseTime),
		header:        make([]storedField, 0, len(e.Header)),
		contentLength: []string{strconv.Itoa(len(e.Body))},
	}
	s.varyNames, s.varyStar = varyNames(e.Header)
	for k, vs := range e.Header {
		if clientState[k] {
			continue // another client's cookie: never served from the cache
		}
		s.header = append(s.header, storedField{k, slices.Clip(vs)})
	}
	return s
}

// currentAge is Entry.Age.
func (s *storedEntry) currentAge(now time.Time) time.Duration {
	return s.initialAge + max(now.Sub(s.ResponseTime), 0)
}

// matchesVary is Entry.MatchesVary.
func (s *storedEntry) matchesVary(h http.Header) bool {
	return matchVary(s.varyNames, s.varyStar, s.ReqHeader, h)
}

// ageValues returns the Age field's value at now, as one-element slice
// that the caller must not modify.
func (s *storedEntry) ageValues(now time.Time) []string {
	secs := deltaSeconds(s.currentAge(now))
	if a := s.age.Load(); a != nil && a.seconds == secs {
		return a.values
	}
	a := &servedAge{seconds: secs, values: []string{strconv.FormatInt(secs, 10)}}
	s.age.Store(a)
	return a.values
}

// storedGetter is a store that keeps its entries' stored forms.
type storedGetter interface {
	getStored(key string) (*storedEntry, bool)
}

// getStored returns the entry of key in its stored form.
func (p *Proxy) getStored(key string) (*storedEntry, bool) {
	if p.storedGetter != nil {
		return p.storedGetter.getStored(key)
	}
	e, ok := p.store.Get(key)
	if !ok {
		return nil, false
	}
	return newStored(e), true
}
