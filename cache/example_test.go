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
