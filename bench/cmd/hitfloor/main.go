// Command hitfloor is the floor of cmd/hits: Go's net/http server
// answering every absolute-URI request for /obj-N from memory as a cache
// hit, with no cache behind it (hits.ServeFloor). cmd/hits builds and
// runs it at GOMAXPROCS=1 beside the node and Squid:
//
//	hitfloor -listen 127.0.0.1:8080 -size 4096
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
	if err := hits.ServeFloor(ln, *size); err != nil {
		fmt.Fprintln(os.Stderr, "hitfloor:", err)
		os.Exit(1)
	}
}
