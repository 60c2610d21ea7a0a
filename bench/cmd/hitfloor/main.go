// Command hitfloor is the floor of cmd/hits: Go's net/http server
// answering every absolute-URI request for /obj-N from memory as a cache
// hit, with no cache behind it (hits.ServeFloor). cmd/hits builds and
// runs it at GOMAXPROCS=1 beside the node and Squid, and for peer hits
// a pair of it, the front forwarding to the other through net/http's
// client:
//
//	hitfloor -listen 127.0.0.1:8080 -size 4096
//	hitfloor -listen 127.0.0.1:8081 -forward 127.0.0.1:8080
package main

import (
	"flag"
	"fmt"
	"net"
	"os"

	"github.com/bloomcast/bloomcast/bench/hits"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:8080", "the address to serve on")
	size := flag.Int("size", 4096, "body size of every object in bytes")
	forward := flag.String("forward", "", "serve as the front of a pair: send every request on to the floor server at this address")
	flag.Parse()
	if *size < 0 {
		fmt.Fprintln(os.Stderr, "hitfloor: -size must not be negative")
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, "hitfloor:", err)
		os.Exit(1)
	}
	serve := func() error { return hits.ServeFloor(ln, *size) }
	if *forward != "" {
		serve = func() error { return hits.ServeFloorFront(ln, *forward) }
	}
	if err := serve(); err != nil {
		fmt.Fprintln(os.Stderr, "hitfloor:", err)
		os.Exit(1)
	}
}
