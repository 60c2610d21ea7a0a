package cache

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestHeuristicFreshnessLoggedOnce: a stored response without explicit
// freshness (a plain file server's) is logged once, saying what to add;
// one with max-age is not.
func TestHeuristicFreshnessLoggedOnce(t *testing.T) {
	modified := time.Now().Add(-time.Minute).UTC().Format(http.TimeFormat)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/fresh") {
			w.Header().Set("Cache-Control", "max-age=60")
		} else {
			w.Header().Set("Last-Modified", modified) // as python3 -m http.server sends
		}
		io.WriteString(w, "hello")
	}))
	defer origin.Close()
	var logs bytes.Buffer
	store, _ := NewMemory(MemoryConfig{MaxBytes: 1 << 20})
	p, err := NewProxy(Config{Store: store, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	get := func(path string) {
		r := httptest.NewRequest(http.MethodGet, origin.URL+path, nil)
		r.RequestURI = origin.URL + path
		w := httptest.NewRecorder()
		p.ServeHTTP(w, r)
		if w.Code != 200 {
			t.Fatalf("%s: status %d", path, w.Code)
		}
	}
	get("/fresh/a")
	if strings.Contains(logs.String(), "no freshness") {
		t.Fatalf("logged for a response with max-age: %s", logs.String())
	}
	for _, path := range []string{"/a", "/b", "/c"} {
		get(path)
	}
	if n := strings.Count(logs.String(), "origin sent no freshness"); n != 1 || !strings.Contains(logs.String(), "Cache-Control: max-age=N") {
		t.Fatalf("%d notes, want 1:\n%s", n, logs.String())
	}
}
