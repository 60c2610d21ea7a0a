package cache

import (
	"net/http"
	"reflect"
	"sync"
	"testing"
	"time"

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
			if s.lifetime != e.Lifetime() {
				t.Errorf("header %d status %d: lifetime %v, Entry says %v", i, status, s.lifetime, e.Lifetime())
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
