package cache

import (
	"cmp"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"
)

// storedEntry is an entry in the form a request is answered from, worked
// out once when the entry is stored (a stored entry is read-only), so that
// a hit parses no header field and copies no value: its header fields
// ready to be handed to a ResponseWriter, the Cache-Control directives
// that decide whether it may be used, its freshness lifetime and initial
// age, and its Vary names.
//
// It is also the form a [Memory] store holds, so it is compact: the
// names and values of all its fields and its URL are substrings of one
// string, the values slices of one array, and a Memory store's recency
// list runs through the entries themselves. An entry of a few small
// fields takes five allocations (the struct, the text, the values, the
// field list and the body), where an [Entry] with its header map and
// strings takes about twenty: the collector has that much less to mark
// and the allocator fewer part-empty spans as entries come and go.
// [storedEntry.entry] rebuilds the Entry when one is needed.
type storedEntry struct {
	URL          string
	Status       int
	Body         []byte
	ReqHeader    http.Header // the request's values of the fields named in Vary
	RequestTime  time.Time
	ResponseTime time.Time

	// fields are the response's header fields, those served from the
	// cache first: fields[:served] are all but clientState. Each values
	// slice is clipped to its length, so that a ResponseWriter's header
	// may share them: a later Add to one of its fields copies the slice
	// rather than writing into the entry.
	fields []storedField
	served int
	// contentLength is the Content-Length field's value, the body's
	// length.
	contentLength []string
	dir           storedDirectives
	lifetime      time.Duration // Entry.Lifetime
	initialAge    time.Duration // corrected_initial_age (RFC 9111 §4.2.3): the age at ResponseTime
	varyNames     []string      // canonical names listed in Vary
	varyStar      bool          // Vary lists "*"
	// age is the Age field's value last served, shared while the age in
	// seconds stays the same.
	age atomic.Pointer[servedAge]

	// size is the heap the stored form holds (heapSize), which a Memory
	// store charges against its budget.
	size int64
	// newer and older link a Memory store's recency list; nil in any
	// other stored entry.
	newer, older *storedEntry
}

type storedField struct {
	name   string
	values []string
}

type servedAge struct {
	seconds int64
	values  []string
}

// storedDirectives are the response's Cache-Control directives that
// decide whether a stored response may be used (RFC 9111 §4.2.4, §5.2.2;
// RFC 5861 §3), read once when it is stored.
type storedDirectives struct {
	noCache         bool // unqualified no-cache: never used without validation
	mustRevalidate  bool
	proxyRevalidate bool
	sMaxAge         bool
	hasSWR          bool
	swr             time.Duration // stale-while-revalidate
}

// directivesOf reads the directives of a stored response from its
// Cache-Control.
func directivesOf(cc cacheControl) storedDirectives {
	swr, hasSWR := cc.Duration("stale-while-revalidate")
	return storedDirectives{
		noCache:         cc.whole("no-cache"),
		mustRevalidate:  cc.Has("must-revalidate"),
		proxyRevalidate: cc.Has("proxy-revalidate"),
		sMaxAge:         cc.Has("s-maxage"),
		hasSWR:          hasSWR,
		swr:             swr,
	}
}

// forbidStale reports whether any directive forbids serving the
// response stale (RFC 9111 §4.2.4: must-revalidate, proxy-revalidate and
// s-maxage in a shared cache, and no-cache, which allows no use without
// validation at all).
func (d storedDirectives) forbidStale() bool {
	return d.noCache || d.mustRevalidate || d.proxyRevalidate || d.sMaxAge
}

// commonFieldNames are field names most responses carry, kept once for
// all entries rather than in each entry's text.
var commonFieldNames = func() map[string]string {
	m := make(map[string]string)
	for _, n := range []string{
		"Accept-Ranges", "Age", "Cache-Control", "Content-Encoding", "Content-Language",
		"Content-Length", "Content-Location", "Content-Type", "Date", "Etag", "Expires",
		"Last-Modified", "Server", "Set-Cookie", "Vary", "X-Content-Type-Options",
	} {
		m[n] = n
	}
	return m
}()

// newStored works out what answering from e needs. The stored form
// keeps e's body and request fields and copies the rest, so e may be
// changed afterwards.
func newStored(e *Entry) *storedEntry {
	s := &storedEntry{
		Status:       e.Status,
		Body:         e.Body,
		ReqHeader:    e.ReqHeader,
		RequestTime:  e.RequestTime,
		ResponseTime: e.ResponseTime,
		dir:          directivesOf(sharedCacheControl(e.Header)),
		lifetime:     e.lifetime(),
		initialAge:   currentAge(e.Header, e.RequestTime, e.ResponseTime, e.ResponseTime),
		fields:       make([]storedField, 0, len(e.Header)),
	}
	s.varyNames, s.varyStar = varyNames(e.Header)
	for k := range e.Header {
		s.fields = append(s.fields, storedField{name: k})
		if !clientState[k] {
			s.served++
		}
	}
	// Served fields first, each part in name order: the order a hit
	// sends them in does not change from one hit to the next.
	slices.SortFunc(s.fields, func(a, b storedField) int {
		if c := cmp.Compare(b2i(clientState[a.name]), b2i(clientState[b.name])); c != 0 {
			return c
		}
		return strings.Compare(a.name, b.name)
	})
	s.size = s.heapSize(s.pack(e))
	return s
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// pack copies e's URL and the names and values of s.fields from e.Header
// into one string, and the values' slices into one array. It returns the
// string's length and the array's, which heapSize takes.
func (s *storedEntry) pack(e *Entry) (int, int) {
	length := strconv.Itoa(len(e.Body))
	size, count := len(e.URL)+len(length), 1
	for _, f := range s.fields {
		if _, ok := commonFieldNames[f.name]; !ok {
			size += len(f.name)
		}
		for _, v := range e.Header[f.name] {
			size += len(v)
		}
		count += len(e.Header[f.name])
	}
	var b strings.Builder
	b.Grow(size)
	b.WriteString(e.URL)
	for _, f := range s.fields {
		if _, ok := commonFieldNames[f.name]; !ok {
			b.WriteString(f.name)
		}
		for _, v := range e.Header[f.name] {
			b.WriteString(v)
		}
	}
	b.WriteString(length)
	text := b.String()
	next := func(n int) string {
		t := text[:n]
		text = text[n:]
		return t
	}
	s.URL = next(len(e.URL))
	values := make([]string, 0, count)
	for i := range s.fields {
		f := &s.fields[i]
		vs := e.Header[f.name]
		if c, ok := commonFieldNames[f.name]; ok {
			f.name = c
		} else {
			f.name = next(len(f.name))
		}
		first := len(values)
		for _, v := range vs {
			values = append(values, next(len(v)))
		}
		f.values = values[first:len(values):len(values)]
	}
	values = append(values, next(len(length)))
	s.contentLength = values[len(values)-1:]
	return size, count
}

// withBody returns the stored form of the entry whose header s was made
// from, with body: it shares s's text, values and fields, which are
// read-only, and its Content-Length is the header's, which must already
// be body's length; otherwise withBody returns nil, and the entry is
// worked out anew (newStored).
func (s *storedEntry) withBody(body []byte) *storedEntry {
	var digits [20]byte
	cl, ok := s.values("Content-Length")
	if !ok || len(cl) != 1 || cl[0] != string(strconv.AppendInt(digits[:0], int64(len(body)), 10)) {
		return nil
	}
	return &storedEntry{
		URL: s.URL, Status: s.Status, Body: body, ReqHeader: s.ReqHeader,
		RequestTime: s.RequestTime, ResponseTime: s.ResponseTime,
		fields: s.fields, served: s.served, contentLength: cl, dir: s.dir,
		lifetime: s.lifetime, initialAge: s.initialAge, varyNames: s.varyNames, varyStar: s.varyStar,
		size: s.size - allocSize(cap(s.Body)) + allocSize(cap(body)),
	}
}

// entry rebuilds the Entry: its header shares the stored values, which
// are read-only, as a stored Entry is.
func (s *storedEntry) entry() *Entry {
	h := make(http.Header, len(s.fields))
	for _, f := range s.fields {
		h[f.name] = f.values
	}
	return &Entry{URL: s.URL, Status: s.Status, Header: h, Body: s.Body, ReqHeader: s.ReqHeader,
		RequestTime: s.RequestTime, ResponseTime: s.ResponseTime}
}

// Get returns the first value of the stored response's field key, or ""
// (http.Header.Get, without allocating).
func (s *storedEntry) Get(key string) string {
	for _, f := range s.fields {
		if len(f.values) > 0 && strings.EqualFold(f.name, key) {
			return f.values[0]
		}
	}
	return ""
}

// values returns the values of the field of canonical name, if present.
func (s *storedEntry) values(name string) ([]string, bool) {
	for _, f := range s.fields {
		if f.name == name {
			return f.values, true
		}
	}
	return nil, false
}

// heapSize is the heap s holds: the struct, its text of text bytes and
// its array of values strings (pack), its field array, the body's
// capacity, the request fields of Vary, the Vary names, the Age value
// served from it, and the slot of a store's index that maps its URL to
// it.
func (s *storedEntry) heapSize(text, values int) int64 {
	n := allocSize(int(unsafe.Sizeof(*s))) + allocSize(text) +
		allocSize(values*int(unsafe.Sizeof(""))) +
		allocSize(cap(s.fields)*int(unsafe.Sizeof(storedField{}))) +
		allocSize(cap(s.Body)) + headerHeapSize(s.ReqHeader) +
		allocSize(cap(s.varyNames)*int(unsafe.Sizeof(""))) + servedAgeSize + indexSlot
	for _, name := range s.varyNames {
		n += allocSize(len(name))
	}
	return n
}

// servedAgeSize is the heap of the Age value an entry keeps once served
// (servedAge, its one-value slice and the digits).
var servedAgeSize = allocSize(int(unsafe.Sizeof(servedAge{}))) + allocSize(int(unsafe.Sizeof(""))) + allocSize(10)

// currentAge is Entry.age.
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

// storedPutter is a store that can be handed an entry's stored form.
type storedPutter interface {
	putStored(s *storedEntry) error
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
