package icp

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/internal/testutil"
)

// lineCounter is a debug-level logger that counts the lines written.
type lineCounter struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lineCounter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lineCounter) lines() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Count(l.buf.String(), "\n")
}

func (l *lineCounter) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// A flood of datagrams the server and the client drop is counted in
// full but logged at a bounded rate, and the line after a gap says how
// many were left out.
func TestDroppedDatagramsLoggedAtBoundedRate(t *testing.T) {
	const flood = 500
	var slines lineCounter
	srv, addr := startServer(t, ServerConfig{Lookup: holds(), Logger: slines.logger()})
	var clog lineCounter
	c := newClient(t, ClientConfig{Logger: clog.logger()})
	conn := listen(t)
	hit, _ := Encode(Message{Opcode: OpHit, RequestNumber: 1, URL: "http://example.com/"})
	start := time.Now()
	for i := range flood {
		conn.WriteToUDPAddrPort([]byte("garbage"), addr)
		conn.WriteToUDPAddrPort(hit, addr)
		conn.WriteToUDPAddrPort(hit, addrOf(c.conn))
		if i%50 == 0 {
			time.Sleep(time.Millisecond) // not more than the socket buffers hold
		}
	}
	testutil.WaitFor(t, 10*time.Second, "the server's counts", func() bool {
		st := srv.Stats()
		return st.Malformed+st.Ignored == srv.Stats().MessagesReceived && st.MessagesReceived >= flood
	})
	testutil.WaitFor(t, 10*time.Second, "the client's counts", func() bool { return c.Stats().Unmatched >= flood })
	time.Sleep(time.Second / logLinesPerSecond)
	conn.WriteToUDPAddrPort(hit, addr)
	testutil.WaitFor(t, 10*time.Second, "a line after the flood", func() bool {
		slines.mu.Lock()
		defer slines.mu.Unlock()
		return strings.Contains(slines.buf.String(), "suppressed=")
	})
	// The log lines allowed in the time taken, and the start line.
	bound := 2 + int(time.Since(start).Seconds()+1)*logLinesPerSecond
	if n := slines.lines(); n > bound {
		t.Errorf("server: %d log lines for %d datagrams dropped (want at most %d)", n, srv.Stats().MessagesReceived, bound)
	}
	if n := clog.lines(); n > bound {
		t.Errorf("client: %d log lines for %d datagrams dropped (want at most %d)", n, c.Stats().Unmatched, bound)
	}
}

// flood sends n copies of b from conn to addr, pausing now and then so
// that the socket buffers keep up, and returns the replies read until
// they stop coming; each must be no larger than b.
func flood(t *testing.T, conn *net.UDPConn, addr netip.AddrPort, b []byte, n int) int {
	t.Helper()
	got := make(chan int, 1)
	go func() {
		buf := make([]byte, readBufferSize)
		replies := 0
		for {
			conn.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
			m, _, err := conn.ReadFromUDPAddrPort(buf)
			if err != nil {
				got <- replies
				return
			}
			if m > len(b) {
				t.Errorf("a reply of %d bytes to a query of %d", m, len(b))
			}
			replies++
		}
	}()
	for i := range n {
		conn.WriteToUDPAddrPort(b, addr)
		if i%20 == 0 {
			time.Sleep(time.Millisecond)
		}
	}
	return <-got
}

// A query from a peer outside Allow, its source perhaps forged, gets
// ICP_OP_DENIED at most deniedPerSecond times a second; the rest are
// counted and left unanswered, so that forged queries cannot turn the
// server into a reflector. No reply is larger than its query.
func TestDeniedRepliesBounded(t *testing.T) {
	const n = 300
	srv, addr := startServer(t, ServerConfig{Lookup: holds(), Allow: func(netip.AddrPort) bool { return false }})
	q, _ := Encode(Message{Opcode: OpQuery, RequestNumber: 1, URL: "http://example.com/"})
	start := time.Now()
	replies := flood(t, listen(t), addr, q, n)
	bound := int((time.Since(start).Seconds() + 1) * deniedPerSecond)
	st := srv.Stats()
	if replies > bound || st.Denied != uint64(replies) || st.Unanswered == 0 || st.Answered() != st.Queries {
		t.Fatalf("%d replies to %d queries (want at most %d), stats %+v", replies, n, bound, st)
	}
}

// Allowed queries are answered at most Limits.Replies times a second,
// before any lookup; the rest are counted and left unanswered.
func TestRepliesBounded(t *testing.T) {
	const n, rate = 300, 50
	lookups := 0
	s, err := NewServer(ServerConfig{Lookup: func(string) bool { lookups++; return false }, Limits: Limits{Replies: rate}})
	if err != nil {
		t.Fatal(err)
	}
	conn := listen(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, conn) }()
	q, _ := Encode(Message{Opcode: OpQuery, RequestNumber: 1, URL: "http://example.com/"})
	start := time.Now()
	replies := flood(t, listen(t), addrOf(conn), q, n)
	bound := int((time.Since(start).Seconds() + 1) * rate)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	if replies > bound || lookups != replies || st.Misses != uint64(replies) || st.Unanswered == 0 || st.Answered() != st.Queries {
		t.Fatalf("%d replies and %d lookups for %d queries (want at most %d), stats %+v", replies, lookups, n, bound, st)
	}
}
