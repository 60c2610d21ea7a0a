package node

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/cache"
	"github.com/bloomcast/bloomcast/internal/testutil"
)

// hitBenchObjects and hitBenchBytes are the hit benchmarks' working set:
// the side-by-side comparison with Squid's (bench/cmd/hits) uses the same.
const (
	hitBenchObjects = 100
	hitBenchBytes   = 4096
)

// newHitBenchNode returns a node (not serving) whose memory store holds
// hitBenchObjects fresh 4 KiB objects under http://origin.test/obj-N, as
// an origin's responses would have been stored.
func newHitBenchNode(b testing.TB) *Node {
	b.Helper()
	n, err := NewNode(NodeConfig{Name: "bench", MemoryBytes: 64 << 20, Capacity: 1000, Manual: true,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	body := bytes.Repeat([]byte("x"), hitBenchBytes)
	now := time.Now()
	for i := range hitBenchObjects {
		h := http.Header{}
		h.Set("Cache-Control", "max-age=86400")
		h.Set("Content-Type", "application/octet-stream")
		h.Set("Date", now.UTC().Format(http.TimeFormat))
		h.Set("Content-Length", strconv.Itoa(len(body)))
		if err := n.Store().Put(&cache.Entry{URL: fmt.Sprintf("http://origin.test/obj-%d", i), Status: http.StatusOK,
			Header: h, Body: body, RequestTime: now, ResponseTime: now}); err != nil {
			b.Fatal(err)
		}
	}
	return n
}

// BenchmarkNodeHit is one hit through the node's handler (allow-list,
// proxy, store, metrics) with no access log: the hit path's own cost
// without the HTTP server's. allocs/op is the hit path's allocations.
func BenchmarkNodeHit(b *testing.B) {
	n := newHitBenchNode(b)
	reqs := make([]*http.Request, hitBenchObjects)
	for i := range reqs {
		target := fmt.Sprintf("http://origin.test/obj-%d", i)
		r, err := http.NewRequest(http.MethodGet, target, nil)
		if err != nil {
			b.Fatal(err)
		}
		r.RequestURI, r.RemoteAddr = target, "127.0.0.1:40000"
		r.Header.Set("User-Agent", "bench")
		reqs[i] = r
	}
	h := n.Handler()
	w := testutil.NewDiscardWriter()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		clear(w.Hdr)
		w.Status, w.N = 0, 0
		h.ServeHTTP(w, reqs[i%hitBenchObjects])
		if w.Status != http.StatusOK || w.N != hitBenchBytes {
			b.Fatalf("status %d, %d bytes", w.Status, w.N)
		}
	}
	if got := n.stats().LocalHits; got < uint64(b.N) {
		b.Fatalf("%d local hits for %d requests", got, b.N)
	}
}

// BenchmarkNodeHitLoopback is one hit through a serving node on loopback:
// keep-alive connections (one per parallel goroutine) each sending the
// next absolute-URI request when the last response is read. It includes
// net/http's server and the minimal client's work, which allocs/op then
// counts too.
func BenchmarkNodeHitLoopback(b *testing.B) {
	n := newHitBenchNode(b)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- n.Serve(ctx, ln, nil) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			b.Error(err)
		}
	}()
	addr := ln.Addr().String()
	reqs := make([][]byte, hitBenchObjects)
	for i := range reqs {
		reqs[i] = fmt.Appendf(nil, "GET http://origin.test/obj-%d HTTP/1.1\r\nHost: origin.test\r\nUser-Agent: bench\r\n\r\n", i)
	}
	b.ReportAllocs()
	b.SetParallelism(4)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			b.Error(err)
			return
		}
		defer c.Close()
		br := bufio.NewReaderSize(c, 16<<10)
		for i := 0; pb.Next(); i++ {
			if _, err := c.Write(reqs[i%hitBenchObjects]); err != nil {
				b.Error(err)
				return
			}
			if err := readHitResponse(br); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer()
	if st := n.stats(); st.LocalHits < uint64(b.N) {
		b.Fatalf("%d local hits for %d requests", st.LocalHits, b.N)
	}
}

// readHitResponse reads one response with a Content-Length from br,
// failing unless it is a 200 with an X-Cache HIT, allocating nothing for
// a well-formed one.
func readHitResponse(br *bufio.Reader) error {
	length, hit := -1, false
	for first := true; ; first = false {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return err
		}
		if first {
			if !bytes.HasPrefix(line, []byte("HTTP/1.1 200 ")) {
				return fmt.Errorf("status line %q", line)
			}
			continue
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			break
		}
		name, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimSpace(value)
		switch {
		case strings.EqualFold(string(name), "Content-Length"):
			v, err := strconv.Atoi(string(value))
			if err != nil {
				return err
			}
			length = v
		case strings.EqualFold(string(name), "X-Cache"):
			hit = bytes.HasPrefix(value, []byte("HIT "))
		}
	}
	if length < 0 || !hit {
		return fmt.Errorf("content-length %d, hit %v", length, hit)
	}
	_, err := br.Discard(length)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return err
}
