package cache

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/internal/squidlog"
	"github.com/bloomcast/bloomcast/internal/testutil"
)

// TestMemoryAccountingMatchesHeap fills a Memory store through the proxy,
// from responses parsed by net/http as a client parses an origin's, and
// compares what the store accounts with what the heap grew by: within
// 10% either way. The objects are 10^5 of 100 B and of 4 KiB, and 200 of
// 1 MiB (10^5 would not fit a test machine; the per-object overheads
// are the same). With -race or -short, 10^4, 2000 and 50: the race
// detector makes each request ten times slower.
func TestMemoryAccountingMatchesHeap(t *testing.T) {
	cases := []struct {
		size, count int
	}{{100, 100000}, {4096, 100000}, {1 << 20, 200}}
	if testing.Short() || raceEnabled {
		cases = []struct{ size, count int }{{100, 10000}, {4096, 2000}, {1 << 20, 50}}
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%dB", c.size), func(t *testing.T) {
			fillAndMeasure(t, c.size, c.count)
		})
	}
}

func fillAndMeasure(t *testing.T, size, count int) {
	body := bytes.Repeat([]byte("x"), size)
	date := time.Now().UTC().Format(http.TimeFormat)
	var raw bytes.Buffer
	fmt.Fprintf(&raw, "HTTP/1.1 200 OK\r\nDate: %s\r\nServer: origin/1.0\r\nContent-Type: application/octet-stream\r\n"+
		"Cache-Control: max-age=86400\r\nLast-Modified: %s\r\nETag: \"5f3a-1c2b\"\r\nContent-Length: %d\r\n\r\n", date, date, size)
	raw.Write(body)
	response := raw.Bytes()
	router := RouterFunc(func(f *Forward) (*http.Response, Source, error) {
		resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(response)), f.Request)
		return resp, Source{Hierarchy: squidlog.HierDirect, Host: "origin.test"}, err
	})
	store, err := NewMemory(MemoryConfig{MaxBytes: 1 << 40})
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewProxy(Config{Store: store, Router: router, Logger: quietLogger(), MaxObjectBytes: 2 << 20, AccessLog: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	req := func(i int) {
		u := fmt.Sprintf("http://origin.test/objects/%07d", i)
		r, err := http.ReadRequest(bufio.NewReader(strings.NewReader("GET " + u + " HTTP/1.1\r\nHost: origin.test\r\nUser-Agent: test\r\n\r\n")))
		if err != nil {
			t.Fatal(err)
		}
		r.RemoteAddr = "127.0.0.1:1234"
		p.ServeHTTP(testutil.NewDiscardWriter(), r)
	}
	req(-1) // the proxy's own lazily made state, outside the measurement
	store.Delete("http://origin.test/objects/-000001")
	before := liveHeap()
	bytesBefore := store.Bytes()
	for i := range count {
		req(i)
	}
	after := liveHeap()
	if store.Len() != count {
		t.Fatalf("stored %d of %d", store.Len(), count)
	}
	grown, accounted := after-before, store.Bytes()-bytesBefore
	p, store = nil, nil // req holds p by reference: the proxy and its store go now
	freed := after - liveHeap()
	// The heap is the process's: memory an earlier test's goroutines
	// still held at the first measurement and let go during the fill
	// makes the growth look smaller. The fill and the store's release are two
	// measurements of the same objects; an accounting error shows in
	// both, a neighbour's release in one.
	ratio, freedRatio := float64(accounted)/float64(grown), float64(accounted)/float64(freed)
	t.Logf("%d objects of %d B: heap grew %d B (%.0f B/object), freed %d B with the store, accounted %d B (%.0f B/object), ratios %.3f and %.3f",
		count, size, grown, float64(grown)/float64(count), freed, accounted, float64(accounted)/float64(count), ratio, freedRatio)
	within := func(r float64) bool { return r >= 0.9 && r <= 1.1 }
	if !within(ratio) && !within(freedRatio) {
		t.Errorf("accounted/heap = %.3f as filled and %.3f as freed, want one within 10%%", ratio, freedRatio)
	}
}

// TestMemoryTrimsSpareCapacity: a body with much spare room is stored as
// a copy of its length, charged as such, and the caller's entry is left
// as it was.
func TestMemoryTrimsSpareCapacity(t *testing.T) {
	m, err := NewMemory(MemoryConfig{MaxBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	e := testEntry(keyN(0), 400)
	e.Body = append(make([]byte, 0, 4096), "a body of 27 bytes, no more"...)
	if err := m.Put(e); err != nil {
		t.Fatal(err)
	}
	got, _ := m.Get(keyN(0))
	if string(got.Body) != string(e.Body) || cap(got.Body) > 32 || cap(e.Body) != 4096 {
		t.Fatalf("stored body cap %d, caller's %d", cap(got.Body), cap(e.Body))
	}
	if m.Bytes() != newStored(got).size || m.Bytes() > e.Size() {
		t.Fatalf("charged %d, entry as stored %d, as given %d", m.Bytes(), got.Size(), e.Size())
	}
}

func TestAllocSize(t *testing.T) {
	for _, c := range []struct{ n, want int }{{0, 0}, {1, 8}, {100, 112}, {4096, 4096}, {4097, 4864}, {32 << 10, 32 << 10}, {32<<10 + 1, 40 << 10}, {1 << 20, 1 << 20}} {
		if got := allocSize(c.n); got != int64(c.want) {
			t.Errorf("allocSize(%d) = %d, want %d", c.n, got, c.want)
		}
	}
}

// TestMemoryEntryAllocations: a Memory store holds a small entry in one
// compact form, four allocations besides the body it keeps (the struct,
// the text of URL, names and values, the values' array and the field
// list), however many fields the entry has; and changing the caller's
// entry afterwards does not change the stored one.
func TestMemoryEntryAllocations(t *testing.T) {
	m, err := NewMemory(MemoryConfig{MaxBytes: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{
		"Cache-Control":  {"max-age=3600"},
		"Content-Type":   {"text/plain"},
		"Date":           {"Sat, 28 Nov 2026 02:00:00 GMT"},
		"Etag":           {`"abc"`},
		"X-Origin-Trace": {"a", "b"},
		"Set-Cookie":     {"id=1"},
	}
	const entries = 1000
	es := make([]*Entry, entries+1)
	for i := range es {
		es[i] = &Entry{URL: keyN(i), Status: 200, Header: h, Body: []byte("body"), RequestTime: t0, ResponseTime: t0}
	}
	m.index = make(map[string]*storedEntry, 2*entries) // the index's growth is not the entry's
	i := 0
	allocs := testing.AllocsPerRun(entries, func() {
		if err := m.Put(es[i]); err != nil {
			t.Fatal(err)
		}
		i++
	})
	if allocs > 4 {
		t.Errorf("a stored entry takes %v allocations, want at most 4", allocs)
	}
	e := &Entry{URL: keyN(-1), Status: 200, Header: h.Clone(), Body: []byte("body"), RequestTime: t0, ResponseTime: t0}
	if err := m.Put(e); err != nil {
		t.Fatal(err)
	}
	e.Header.Set("Etag", `"changed"`)
	e.Header.Del("Date")
	got, _ := m.Get(keyN(-1))
	if !reflect.DeepEqual(got.Header, h) {
		t.Errorf("stored header %v after the caller's changed, want %v", got.Header, h)
	}
}

// TestStoredSizeCountsText: pack returns the length of the text it
// packs and of the values array, as the strings and values the stored
// form holds count them (the URL, the field names not in
// commonFieldNames, every value and the Content-Length), and a stored
// form's size is worked out from them.
func TestStoredSizeCountsText(t *testing.T) {
	for _, e := range []*Entry{
		{URL: keyN(1), Status: 200, Header: http.Header{}, RequestTime: t0, ResponseTime: t0},
		testEntry(keyN(2), 900),
		{URL: keyN(3), Status: 200, Body: []byte("body"), RequestTime: t0, ResponseTime: t0,
			Header: http.Header{
				"Cache-Control":  {"max-age=60"},
				"Vary":           {"Accept-Encoding, X-Variant"},
				"X-Origin-Trace": {"a", "bb", ""},
				"Set-Cookie":     {"id=1"},
				"Content-Length": {"4"},
			},
			ReqHeader: http.Header{"Accept-Encoding": {"gzip"}, "X-Variant": {"2"}}},
	} {
		s := &storedEntry{}
		for k := range e.Header {
			s.fields = append(s.fields, storedField{name: k})
		}
		gotText, gotValues := s.pack(e)
		text, values := len(s.URL)+len(s.contentLength[0]), 1
		for _, f := range s.fields {
			if _, ok := commonFieldNames[f.name]; !ok {
				text += len(f.name)
			}
			for _, v := range f.values {
				text += len(v)
			}
			values += len(f.values)
		}
		if gotText != text || gotValues != values {
			t.Errorf("%s: pack returned %d bytes of text, %d values; it holds %d, %d", e.URL, gotText, gotValues, text, values)
		}
		if st := newStored(e); st.size != st.heapSize(text, values) {
			t.Errorf("%s: size %d, from the strings held %d", e.URL, st.size, st.heapSize(text, values))
		}
	}
}
