package cache

import (
	"maps"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
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
			if s.lifetime != e.Lifetime() {
				t.Errorf("header %d status %d: lifetime %v, Entry says %v", i, status, s.lifetime, e.Lifetime())
			}
			if !reflect.DeepEqual(s.cc, ParseCacheControl(h)) {
				t.Errorf("header %d: Cache-Control %v, parsed %v", i, s.cc, ParseCacheControl(h))
			}
			for _, d := range []time.Duration{-time.Hour, 0, 1500 * time.Millisecond, 90 * time.Second, 1000 * time.Hour} {
				if got, want := s.currentAge(t0.Add(d)), e.Age(t0.Add(d)); got != want {
					t.Errorf("header %d at %v: age %v, Entry says %v", i, d, got, want)
				}
				if got, want := s.ageValues(t0.Add(d))[0], formatSeconds(e.Age(t0.Add(d))); got != want {
					t.Errorf("header %d at %v: Age field %q, want %q", i, d, got, want)
				}
			}
			for j, rh := range reqs {
				if got, want := s.matchesVary(rh), e.MatchesVary(rh); got != want {
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
	for _, f := range s.header {
		m[f.name] = f.values
	}
	return m
}

// TestHitSharesNoWritableValue checks that a hit's response header,
// whose values are the stored entry's own slices, cannot be used to
// change the stored entry: adding to a field after the proxy answered
// leaves the entry as it was.
func TestHitSharesNoWritableValue(t *testing.T) {
	n := newHitBenchNode(t)
	key := "http://origin.test/obj-1"
	before := mustGetEntry(t, n.Store(), key).Header.Clone()
	for range 2 {
		r, _ := http.NewRequest(http.MethodGet, key, nil)
		r.RequestURI, r.RemoteAddr = key, "127.0.0.1:1"
		w := &discardWriter{h: http.Header{}}
		n.Handler().ServeHTTP(w, r)
		if w.status != http.StatusOK || w.h.Get("X-Cache") != "HIT from bench" {
			t.Fatalf("status %d, header %v", w.status, w.h)
		}
		for k := range maps.Clone(w.h) {
			w.h.Add(k, "added")
			w.h[k][0] = strings.ToUpper(w.h[k][0]) // a handler's own copy may be changed in place
		}
	}
	if after := mustGetEntry(t, n.Store(), key).Header; !reflect.DeepEqual(after, before) {
		t.Errorf("stored header changed by a response's:\n%v\nwas\n%v", after, before)
	}
}

func mustGetEntry(t testing.TB, s Store, key string) *Entry {
	t.Helper()
	e, ok := s.Get(key)
	if !ok {
		t.Fatalf("%s not stored", key)
	}
	return e
}

// TestHitAllocations checks that a hit through the node's handler, with
// no access log, allocates once: its log record and counting writer.
func TestHitAllocations(t *testing.T) {
	n := newHitBenchNode(t)
	target := "http://origin.test/obj-7"
	r, _ := http.NewRequest(http.MethodGet, target, nil)
	r.RequestURI, r.RemoteAddr = target, "127.0.0.1:40000"
	r.Header.Set("User-Agent", "test")
	w := &discardWriter{h: http.Header{}}
	h := n.Handler()
	allocs := testing.AllocsPerRun(200, func() {
		clear(w.h)
		w.n = 0
		h.ServeHTTP(w, r)
	})
	if w.status != http.StatusOK || w.n != hitBenchBytes {
		t.Fatalf("status %d, %d bytes", w.status, w.n)
	}
	if allocs > 1 {
		t.Errorf("a hit allocates %v times, want 1", allocs)
	}
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
				w := &discardWriter{h: http.Header{}}
				p.ServeHTTP(w, r)
				if w.status != 200 || w.h.Get("Age") == "" {
					t.Errorf("request %d: status %d, Age %q", i, w.status, w.h.Get("Age"))
					return
				}
			}
		}()
	}
	wg.Wait()
}
