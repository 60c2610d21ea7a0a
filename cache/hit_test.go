package cache

import (
	"net/http"
	"reflect"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/bloomcast/bloomcast/internal/testutil"
)

// TestStoredAgreesWithEntry checks that what a stored entry works out once
// (lifetime, age, Cache-Control, Vary) is what the Entry's own methods
// compute on every call.
func TestStoredAgreesWithEntry(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	headers := []http.Header{
		hdr("Cache-Control", "max-age=60"),
		hdr("Cache-Control", "s-maxage=10, max-age=60", "Age", "5"),
		hdr("Cache-Control", "max-age=60", "Age", "7200, 0", "Date", httpDate(t0.Add(-30*time.Second))),
		hdr("Expires", httpDate(t0.Add(time.Hour)), "Date", httpDate(t0)),
		hdr("Expires", "0"),
		hdr("Last-Modified", httpDate(t0.Add(-100*time.Hour)), "Date", httpDate(t0.Add(-time.Second))),
		hdr("Cache-Control", "no-cache, max-age=60"),
		hdr("Cache-Control", "max-age=60", "Vary", "Accept-Encoding, accept-language"),
		hdr("Cache-Control", "max-age=60", "Vary", "*"),
		hdr("Age", "abc", "Date", "not a date"),
		hdr("Cache-Control", "public, max-age=60", "Set-Cookie", "a=1", "Set-Cookie2", "b=2", "Via", "1.0 origin"),
		{},
	}
	reqs := []http.Header{
		{},
		hdr("Accept-Encoding", "gzip", "Accept-Language", "en"),
		hdr("Accept-Encoding", " gzip "),
	}
	for i, h := range headers {
		for _, status := range []int{200, 203, 302} {
			e := &Entry{URL: "http://x/", Status: status, Header: h, Body: []byte("body"),
				ReqHeader:   varyHeader(h, reqs[1]),
				RequestTime: t0.Add(-2 * time.Second), ResponseTime: t0}
			s := newStored(e)
			if s.lifetime != e.lifetime() {
				t.Errorf("header %d status %d: lifetime %v, Entry says %v", i, status, s.lifetime, e.lifetime())
			}
			if want := directivesOf(parseCacheControl(h)); s.dir != want {
				t.Errorf("header %d: directives %+v, parsed %+v", i, s.dir, want)
			}
			if got := s.entry(); !reflect.DeepEqual(got.Header, h) || got.URL != e.URL || got.Status != e.Status ||
				string(got.Body) != string(e.Body) || !reflect.DeepEqual(got.ReqHeader, e.ReqHeader) ||
				!got.RequestTime.Equal(e.RequestTime) || !got.ResponseTime.Equal(e.ResponseTime) {
				t.Errorf("header %d: rebuilt entry %+v, stored %+v", i, got, e)
			}
			for _, name := range []string{"Cache-Control", "ETag", "etag", "Age", "Vary", "Set-Cookie", "Absent"} {
				if got, want := s.Get(name), h.Get(name); got != want {
					t.Errorf("header %d: Get(%q) = %q, want %q", i, name, got, want)
				}
			}
			for _, d := range []time.Duration{-time.Hour, 0, 1500 * time.Millisecond, 90 * time.Second, 1000 * time.Hour} {
				if got, want := s.currentAge(t0.Add(d)), e.age(t0.Add(d)); got != want {
					t.Errorf("header %d at %v: age %v, Entry says %v", i, d, got, want)
				}
				if got, want := s.ageValues(t0.Add(d))[0], formatSeconds(e.age(t0.Add(d))); got != want {
					t.Errorf("header %d at %v: Age field %q, want %q", i, d, got, want)
				}
			}
			for j, rh := range reqs {
				if got, want := s.matchesVary(rh), e.matchesVary(rh); got != want {
					t.Errorf("header %d request %d: matchesVary %v, MatchesVary %v", i, j, got, want)
				}
			}
			served := h.Clone()
			for k := range clientState {
				delete(served, k)
			}
			if got := http.Header(fieldsOf(s)); !reflect.DeepEqual(got, served) {
				t.Errorf("header %d: served fields %v, want %v", i, got, served)
			}
		}
	}
}

func fieldsOf(s *storedEntry) map[string][]string {
	m := map[string][]string{}
	for _, f := range s.fields[:s.served] {
		m[f.name] = f.values
	}
	return m
}

// TestConcurrentHitsAge serves one entry from many goroutines while its
// age changes, for the race detector: the shared Age value is replaced,
// never written in place.
func TestConcurrentHitsAge(t *testing.T) {
	t0 := time.Now()
	var mu sync.Mutex
	now := t0
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	store, _ := NewMemory(MemoryConfig{MaxBytes: 1 << 20})
	p, err := NewProxy(Config{Store: store, Now: clock, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	key := "http://origin.test/x"
	if err := store.Put(&Entry{URL: key, Status: 200, Header: hdr("Cache-Control", "max-age=3600"), Body: []byte("x"),
		RequestTime: t0, ResponseTime: t0}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				if g == 0 {
					mu.Lock()
					now = now.Add(time.Second)
					mu.Unlock()
				}
				r, _ := http.NewRequest(http.MethodGet, key, nil)
				r.RequestURI = key
				w := testutil.NewDiscardWriter()
				p.ServeHTTP(w, r)
				if w.Status != 200 || w.Hdr.Get("Age") == "" {
					t.Errorf("request %d: status %d, Age %q", i, w.Status, w.Hdr.Get("Age"))
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestStoredWithBody: the stored form the requests collapsed onto a miss
// read, made before the body arrived, becomes with the body the form
// newStored makes of the whole entry, sharing its text, values and
// fields, when the header's Content-Length is the body's length; and
// otherwise is not used.
func TestStoredWithBody(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	body := []byte("eleven byte")
	h := hdr("Cache-Control", "max-age=60", "Vary", "Accept-Encoding", "Date", httpDate(t0), "Age", "3",
		"Content-Length", "11", "X-Trace", "a", "Set-Cookie", "id=1")
	e := &Entry{URL: "http://x/a", Status: 200, Header: h, ReqHeader: hdr("Accept-Encoding", "gzip"),
		RequestTime: t0.Add(-time.Second), ResponseTime: t0}
	s := newStored(e) // as newInflight makes it: no body yet
	st := s.withBody(body)
	if st == nil {
		t.Fatal("withBody refused a body of the header's Content-Length")
	}
	if &st.fields[0] != &s.fields[0] || unsafe.StringData(st.URL) != unsafe.StringData(s.URL) {
		t.Error("withBody copied the text or fields")
	}
	whole := *e
	whole.Body = body
	if st.size != s.size+allocSize(cap(body)) {
		t.Errorf("size %d, the form without its body %d and the body %d", st.size, s.size, allocSize(cap(body)))
	}
	// Every field alike but the size: s's text holds the Content-Length
	// of no body, "0", where the whole entry's holds "11".
	want := newStored(&whole)
	want.size = st.size
	if !reflect.DeepEqual(st, want) {
		t.Errorf("withBody: %+v\nnewStored of the whole entry: %+v", st, want)
	}
	for _, c := range []struct {
		name string
		cl   []string
		body string
	}{
		{"longer body", []string{"11"}, "twelve bytes"},
		{"no Content-Length", nil, "eleven byte"},
		{"leading zero", []string{"011"}, "eleven byte"},
		{"two values", []string{"11", "11"}, "eleven byte"},
	} {
		h := h.Clone()
		h.Del("Content-Length")
		if c.cl != nil {
			h["Content-Length"] = c.cl
		}
		e := &Entry{URL: "http://x/a", Status: 200, Header: h, RequestTime: t0, ResponseTime: t0}
		if got := newStored(e).withBody([]byte(c.body)); got != nil {
			t.Errorf("%s: withBody made a form with Content-Length %v", c.name, got.contentLength)
		}
	}
}
