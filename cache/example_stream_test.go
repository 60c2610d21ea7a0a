package cache_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/bloomcast/bloomcast/cache"
)

// A stale stored response answers when the origin cannot be reached
// (RFC 9111 §4.2.4), unless a directive such as must-revalidate forbids
// it: then 504.
func ExampleProxy_unreachableOrigin() {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Date", now.Format(http.TimeFormat))
		if r.URL.Path == "/strict" {
			w.Header().Set("Cache-Control", "max-age=60, must-revalidate")
		} else {
			w.Header().Set("Cache-Control", "max-age=60")
		}
		io.WriteString(w, "stored copy")
	}))
	store, _ := cache.NewMemory(cache.MemoryConfig{MaxBytes: 1 << 20})
	proxy, err := cache.NewProxy(cache.Config{
		Store: store, Via: "example", ReadTimeout: 5 * time.Second,
		Now:       func() time.Time { return now },
		OnRequest: func(r *cache.Record) { fmt.Printf("%s/%d ", r.Code, r.Status) },
	})
	if err != nil {
		panic(err)
	}
	get := func(path string) {
		w := httptest.NewRecorder()
		proxy.ServeHTTP(w, httptest.NewRequest("GET", origin.URL+path, nil))
		fmt.Printf("Age %q: %s\n", w.Header().Get("Age"), w.Body.String())
	}
	get("/page")
	get("/strict")
	origin.Close()           // connections are refused from now on
	now = now.Add(time.Hour) // both responses are stale
	get("/page")
	get("/strict")
	// Output:
	// TCP_MISS/200 Age "": stored copy
	// TCP_MISS/200 Age "": stored copy
	// TCP_REFRESH_FAIL_OLD/200 Age "3600": stored copy
	// TCP_REFRESH_FAIL_ERR/504 Age "": cache: forwarding failed
}
