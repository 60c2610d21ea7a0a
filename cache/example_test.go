package cache_test

import (
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/bloomcast/bloomcast/cache"
	"github.com/bloomcast/bloomcast/formats/squid"
)

func ExampleKey() {
	key, _ := cache.Key("HTTP://WWW.Example.COM:80/a/b?q=1#top")
	fmt.Println(key)
	// Squid's store key of the same object: MD5 of 0x01 (GET) and the key.
	fmt.Printf("%x\n", squid.StoreKeyCanonical(squid.GET, key))
	// Output:
	// http://www.example.com/a/b?q=1
	// c2f113bae9d47892c72d377019c69cd6
}

func ExampleFreshnessLifetime() {
	date := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	h := http.Header{}
	h.Set("Date", date.Format(http.TimeFormat))
	h.Set("Last-Modified", date.Add(-30*time.Hour).Format(http.TimeFormat))
	fmt.Println(cache.FreshnessLifetime(200, h, date)) // heuristic: 10% of 30 h

	h.Set("Cache-Control", "max-age=600, s-maxage=60")
	fmt.Println(cache.FreshnessLifetime(200, h, date)) // a shared cache obeys s-maxage
	// Output:
	// 3h0m0s
	// 1m0s
}

func ExampleRecord_AppendSquid() {
	r := cache.Record{
		Time:        time.UnixMilli(1700000000123),
		Elapsed:     12 * time.Millisecond,
		Client:      "127.0.0.1",
		Code:        "TCP_HIT",
		Status:      200,
		Bytes:       1234,
		Method:      "GET",
		URL:         "http://x/",
		Hierarchy:   "HIER_NONE",
		ContentType: "text/html",
	}
	os.Stdout.Write(r.AppendSquid(nil))
	r.Code, r.Hierarchy, r.From, r.ContentType = "TCP_MISS", "CD_SIBLING_HIT", "peer1", "text/html; charset=utf-8"
	os.Stdout.Write(r.AppendSquid(nil))
	// Output:
	// 1700000000.123     12 127.0.0.1 TCP_HIT/200 1234 GET http://x/ - HIER_NONE/- text/html
	// 1700000000.123     12 127.0.0.1 TCP_MISS/200 1234 GET http://x/ - CD_SIBLING_HIT/peer1 text/html;%20charset=utf-8
}

func ExampleNewProxy() {
	store, err := cache.NewMemory(cache.MemoryConfig{MaxBytes: 64 << 20})
	if err != nil {
		panic(err)
	}
	proxy, err := cache.NewProxy(cache.Config{Store: store, AccessLog: os.Stdout})
	if err != nil {
		panic(err)
	}
	// Clients configured with this address as their HTTP proxy send
	// absolute-form requests, which the proxy answers from its store or
	// forwards.
	srv := &http.Server{Addr: "127.0.0.1:3128", Handler: proxy, ReadHeaderTimeout: 10 * time.Second}
	_ = srv // srv.ListenAndServe()
}
