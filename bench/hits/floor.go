package hits

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// ProxyFloor is the floor of a round: Go's net/http server answering
// every request from memory as a hit, with no cache behind it
// (ServeFloor), so that a node's hit can be read as the floor's cost
// and the rest; for peer hits, a pair of them, the front forwarding
// through net/http's client (ServeFloorFront).
const ProxyFloor = "net/http"

// floorCountersPath is where a floor server reports what it counted.
const floorCountersPath = "/counters"

// ServeFloor serves on ln until the listener fails: a GET of an absolute
// URI whose path is /obj-N is answered with size bytes from memory and
// the header fields a node's hit has (Cache-Control, Content-Type,
// Content-Length, Age, Via, X-Cache), set as the node sets them, from
// values made once; any other request gets 404. GET /counters (an
// origin-form request) answers "hits H requests R": the hits answered
// and all requests but its own. It measures what serving a hit costs in
// net/http alone: no cache key, lookup, freshness or metrics.
func ServeFloor(ln net.Listener, size int) error {
	body := bytes.Repeat([]byte("x"), size)
	fields := http.Header{
		"Cache-Control":  {"max-age=86400"},
		"Content-Type":   {"application/octet-stream"},
		"Content-Length": {strconv.Itoa(size)},
		"Age":            {"0"},
		"Via":            {"1.1 floor (bloomcast-bench)"},
		"X-Cache":        {"HIT from floor"},
	}
	return serveCounted(ln, func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodGet || !r.URL.IsAbs() || !strings.HasPrefix(r.URL.Path, "/obj-") {
			http.NotFound(w, r)
			return false
		}
		wh := w.Header()
		for k, vs := range fields {
			wh[k] = vs
		}
		_, _ = w.Write(body) // a failed write is a client gone away; the round's checks see it
		return true
	})
}

// ServeFloorFront serves on ln until the listener fails as the front of
// a floor pair: every request but GET /counters is sent on, as the
// absolute-URI request it came as, to the floor server at back through
// net/http's client (back as its proxy; as many idle connections kept
// as requests in flight), and its response relayed: status, header
// fields and body. /counters answers as ServeFloor's: the responses of
// status 200 relayed, and all requests but its own. It measures what a
// peer hit costs in net/http alone: a client and a server on each side
// of the hop, and nothing of a cache.
func ServeFloorFront(ln net.Listener, back string) error {
	proxy := &url.URL{Scheme: "http", Host: back}
	c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy), MaxIdleConnsPerHost: 1 << 10}}
	return serveCounted(ln, func(w http.ResponseWriter, r *http.Request) bool {
		out, err := http.NewRequestWithContext(r.Context(), r.Method, r.URL.String(), nil)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return false
		}
		resp, err := c.Do(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return false
		}
		defer func() { _ = resp.Body.Close() }() // read to the end below, or the connection is dropped
		wh := w.Header()
		for k, vs := range resp.Header {
			wh[k] = vs
		}
		w.WriteHeader(resp.StatusCode)
		_, err = io.Copy(w, resp.Body)
		return err == nil && resp.StatusCode == http.StatusOK
	})
}

// serveCounted serves on ln until the listener fails: GET /counters (an
// origin-form request) answers "hits H requests R", and every other
// request is counted and handed to serve, which reports whether it was
// a hit.
func serveCounted(ln net.Listener, serve func(http.ResponseWriter, *http.Request) bool) error {
	var hits, requests atomic.Int64
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !r.URL.IsAbs() && r.URL.Path == floorCountersPath {
			_, _ = fmt.Fprintf(w, "hits %d requests %d\n", hits.Load(), requests.Load()) // a failed write is a client gone away
			return
		}
		requests.Add(1)
		if serve(w, r) {
			hits.Add(1)
		}
	})
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	return srv.Serve(ln)
}

// FloorCounters reads a floor server's /counters answer.
func FloorCounters(s string) (hits, requests int64, err error) {
	if _, err := fmt.Sscanf(s, "hits %d requests %d", &hits, &requests); err != nil {
		return 0, 0, fmt.Errorf("hits: floor counters %q: %w", s, err)
	}
	return hits, requests, nil
}

// buildFloor builds the bench module's cmd/hitfloor into bin, with the
// go build flags given.
func buildFloor(ctx context.Context, bin string, flags ...string) error {
	return goBuild(ctx, "github.com/bloomcast/bloomcast/bench", "hitfloor", bin, flags...)
}

// startFloorPair starts a floor server and, in front of it, a floor
// front (ServeFloorFront), both at GOMAXPROCS=1 on cpus (unless "").
func startFloorPair(ctx context.Context, cpus, bin string, size int) (*target, error) {
	back, err := startFloor(ctx, cpus, bin, size)
	if err != nil {
		return nil, errors.Join(err, stopTarget(back))
	}
	front, err := startFloor(ctx, cpus, bin, size, "-forward", back.addr)
	if front != nil {
		front.back = back
	} else {
		err = errors.Join(err, back.stop())
	}
	return front, err
}

// startFloor runs the floor server bin at GOMAXPROCS=1 on cpus (unless ""), with the extra
// arguments, and waits until it answers.
func startFloor(ctx context.Context, cpus, bin string, size int, extra ...string) (*target, error) {
	return startGoServer(ctx, cpus, ProxyFloor, bin, 1, floorCountersPath, func(addr string) []string {
		return append([]string{"-listen", addr, "-size", strconv.Itoa(size)}, extra...)
	})
}
