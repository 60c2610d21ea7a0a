package icp

import (
	"bytes"
	"log/slog"
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
