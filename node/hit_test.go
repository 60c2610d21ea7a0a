package node

import (
	"maps"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/cache"
	"github.com/bloomcast/bloomcast/internal/testutil"
)

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
		w := testutil.NewDiscardWriter()
		n.Handler().ServeHTTP(w, r)
		if w.Status != http.StatusOK || w.Hdr.Get("X-Cache") != "HIT from bench" {
			t.Fatalf("status %d, header %v", w.Status, w.Hdr)
		}
		for k := range maps.Clone(w.Hdr) {
			w.Hdr.Add(k, "added")
			w.Hdr[k][0] = strings.ToUpper(w.Hdr[k][0]) // a handler's own copy may be changed in place
		}
	}
	if after := mustGetEntry(t, n.Store(), key).Header; !reflect.DeepEqual(after, before) {
		t.Errorf("stored header changed by a response's:\n%v\nwas\n%v", after, before)
	}
}

func mustGetEntry(t testing.TB, s cache.Store, key string) *cache.Entry {
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
	w := testutil.NewDiscardWriter()
	h := n.Handler()
	allocs := testing.AllocsPerRun(200, func() {
		clear(w.Hdr)
		w.N = 0
		h.ServeHTTP(w, r)
	})
	if w.Status != http.StatusOK || w.N != hitBenchBytes {
		t.Fatalf("status %d, %d bytes", w.Status, w.N)
	}
	if allocs > 1 {
		t.Errorf("a hit allocates %v times, want 1", allocs)
	}
}
