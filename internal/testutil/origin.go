package testutil

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// RawOrigin is an HTTP/1.1 server on a loopback socket that writes each
// response as raw bytes, so that a test can send framings and codings Go's
// own server never would. It keeps a connection open across requests
// unless Respond asks it to close.
type RawOrigin struct {
	URL         string       // http://host:port
	Conns, Reqs atomic.Int32 // connections accepted, requests read
	respond     func(req *http.Request) (raw string, close bool)
}

// NewRawOrigin starts a RawOrigin whose answer to each request is
// respond's raw bytes; it stops when the test ends.
func NewRawOrigin(t testing.TB, respond func(req *http.Request) (raw string, close bool)) *RawOrigin {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	o := &RawOrigin{URL: "http://" + ln.Addr().String(), respond: respond}
	go o.serve(ln)
	return o
}

func (o *RawOrigin) serve(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		o.Conns.Add(1)
		go o.serveConn(c)
	}
}

func (o *RawOrigin) serveConn(c net.Conn) {
	defer func() { _ = c.Close() }()
	br := bufio.NewReader(c)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		_, _ = io.Copy(io.Discard, req.Body)
		o.Reqs.Add(1)
		raw, closeAfter := o.respond(req)
		if _, err := io.WriteString(c, raw); err != nil || closeAfter {
			return
		}
	}
}

// Gzipped returns s in the gzip coding (RFC 1952).
func Gzipped(t testing.TB, s string) string {
	t.Helper()
	return encoded(t, s, func(w io.Writer) io.WriteCloser { return gzip.NewWriter(w) })
}

// Zlibbed is s in the zlib format, which HTTP's deflate coding names
// (RFC 9110 §8.4.1.2).
func Zlibbed(t testing.TB, s string) string {
	t.Helper()
	return encoded(t, s, func(w io.Writer) io.WriteCloser { return zlib.NewWriter(w) })
}

// Deflated is s in raw DEFLATE, which some servers send as deflate.
func Deflated(t testing.TB, s string) string {
	t.Helper()
	return encoded(t, s, func(w io.Writer) io.WriteCloser {
		fw, _ := flate.NewWriter(w, flate.BestCompression) // a valid level: no error
		return fw
	})
}

// encoded is s written through the writer newWriter makes and closed.
func encoded(t testing.TB, s string, newWriter func(io.Writer) io.WriteCloser) string {
	t.Helper()
	var b bytes.Buffer
	w := newWriter(&b)
	_, _ = io.WriteString(w, s)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// Chunked frames s in the chunked coding (RFC 9112 §7.1), in pieces of
// at most n bytes, the first size line with an extension.
func Chunked(s string, n int) string {
	var b strings.Builder
	ext := ";x=1"
	for len(s) > 0 {
		k := min(n, len(s))
		fmt.Fprintf(&b, "%x%s\r\n%s\r\n", k, ext, s[:k])
		s, ext = s[k:], ""
	}
	return b.String() + "0\r\n\r\n"
}

// GzipBomb returns a gzip stream that inflates to mib MiB of zeros: one
// member of 1 MiB repeated (a gzip reader reads concatenated members as
// one stream, RFC 1952 §2.2), about 1 KiB a MiB.
func GzipBomb(t testing.TB, mib int) []byte {
	t.Helper()
	var member bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&member, gzip.BestCompression)
	if _, err := zw.Write(make([]byte, 1<<20)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return bytes.Repeat(member.Bytes(), mib)
}

// Allocated returns the bytes f allocates (runtime.MemStats.TotalAlloc:
// every allocation, garbage included, so it bounds the peak f holds).
func Allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// DiscardWriter is an http.ResponseWriter that keeps the status and
// header and drops the body, as cheaply as it can, so that a benchmark
// counts the handler's own work. Make one with NewDiscardWriter.
type DiscardWriter struct {
	Hdr    http.Header
	Status int
	N      int // body bytes written
}

// NewDiscardWriter returns a DiscardWriter with an empty header.
func NewDiscardWriter() *DiscardWriter { return &DiscardWriter{Hdr: http.Header{}} }

// Header returns the header the handler sets.
func (d *DiscardWriter) Header() http.Header { return d.Hdr }

// WriteHeader records the status.
func (d *DiscardWriter) WriteHeader(status int) { d.Status = status }

// Write counts p and drops it.
func (d *DiscardWriter) Write(p []byte) (int, error) { d.N += len(p); return len(p), nil }

// SetWriteDeadline takes a deadline, as a server's writer does
// (http.ResponseController), and ignores it.
func (d *DiscardWriter) SetWriteDeadline(time.Time) error { return nil }
