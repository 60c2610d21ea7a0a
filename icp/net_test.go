package icp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/internal/testutil"
)

func listen(t testing.TB) *net.UDPConn {
	t.Helper()
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func addrOf(c net.PacketConn) netip.AddrPort { return c.LocalAddr().(*net.UDPAddr).AddrPort() }

// startServer serves cfg on a loopback socket until the test ends.
func startServer(t testing.TB, cfg ServerConfig) (*Server, netip.AddrPort) {
	t.Helper()
	s, err := NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	conn := listen(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, conn) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return s, addrOf(conn)
}

func newClient(t testing.TB, cfg ClientConfig) *Client {
	t.Helper()
	c, err := NewClient(listen(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func holds(urls ...string) func(string) bool {
	set := make(map[string]bool)
	for _, u := range urls {
		set[u] = true
	}
	return func(u string) bool { return set[u] }
}

// exchange sends b from conn to a server and returns its reply, if one
// comes within wait.
func exchange(t *testing.T, conn *net.UDPConn, to netip.AddrPort, b []byte, wait time.Duration) (Message, bool) {
	t.Helper()
	if _, err := conn.WriteToUDPAddrPort(b, to); err != nil {
		t.Fatal(err)
	}
	conn.SetReadDeadline(time.Now().Add(wait))
	defer conn.SetReadDeadline(time.Time{})
	buf := make([]byte, readBufferSize)
	n, _, err := conn.ReadFromUDPAddrPort(buf)
	if err != nil {
		return Message{}, false
	}
	m, err := Decode(buf[:n], Limits{})
	if err != nil {
		t.Fatalf("reply does not decode: %v", err)
	}
	return m, true
}

// One peer holds the URL, one does not, one never answers: a hit returns
// at once, a miss waits for the silent peer until the timeout and no
// longer, and without the silent peer a miss returns as soon as both
// have answered.
func TestQueryThreePeers(t *testing.T) {
	const url, other = "http://example.com/held", "http://example.com/nowhere"
	hitSrv, hitter := startServer(t, ServerConfig{Lookup: holds(url)})
	missSrv, misser := startServer(t, ServerConfig{Lookup: holds()})
	silent := addrOf(listen(t)) // bound, never read
	peers := []netip.AddrPort{silent, misser, hitter}
	c := newClient(t, ClientConfig{})
	ctx := context.Background()

	res, err := c.Query(ctx, peers, url, 5*time.Second)
	if err != nil || !res.Hit || res.Peer != hitter || res.TimedOut {
		t.Fatalf("hit: %+v, %v", res, err)
	}
	if res.Elapsed > 2*time.Second {
		t.Fatalf("a hit waited %v", res.Elapsed)
	}

	const timeout = 250 * time.Millisecond
	start := time.Now()
	res, err = c.Query(ctx, peers, other, timeout)
	took := time.Since(start)
	if err != nil || res.Hit || !res.TimedOut || len(res.Replies) != 2 {
		t.Fatalf("miss with a silent peer: %+v, %v", res, err)
	}
	for _, r := range res.Replies {
		if r.Opcode != OpMiss || (r.Peer != hitter && r.Peer != misser) || r.RTT <= 0 || r.RTT > took {
			t.Fatalf("reply %+v", r)
		}
	}
	if took < timeout || took > timeout+2*time.Second {
		t.Fatalf("timeout of %v took %v", timeout, took)
	}

	res, err = c.Query(ctx, []netip.AddrPort{misser, hitter}, other, 5*time.Second)
	if err != nil || res.Hit || res.TimedOut || len(res.Replies) != 2 || res.Elapsed > 2*time.Second {
		t.Fatalf("miss from all: %+v, %v", res, err)
	}

	st := c.Stats()
	if st.Queries != 3 || st.Hits != 1 || st.Misses != 1 || st.Timeouts != 1 || st.MessagesSent != 8 {
		t.Fatalf("client stats %+v", st)
	}
	if want := uint64(3*(24+len(url)+1) + 5*(24+len(other)+1)); st.BytesSent != want {
		t.Fatalf("bytes sent %d, want %d", st.BytesSent, want)
	}
	testutil.WaitFor(t, 5*time.Second, "the stats", func() bool { return hitSrv.Stats().Queries == 3 && missSrv.Stats().Queries == 3 })
	if hs := hitSrv.Stats(); hs.Hits != 1 || hs.Misses != 2 || hs.MessagesSent != 3 || hs.MessagesReceived != 3 {
		t.Fatalf("server stats %+v", hs)
	}
}

func TestServerReplies(t *testing.T) {
	const url = "http://example.com/x"
	dconn := listen(t)
	denied := addrOf(dconn)
	var noFetch bool
	var mu sync.Mutex
	srv, addr := startServer(t, ServerConfig{
		Lookup:  holds(url),
		Allow:   func(p netip.AddrPort) bool { return p != denied },
		NoFetch: func() bool { mu.Lock(); defer mu.Unlock(); return noFetch },
	})
	conn := listen(t)
	ask := func(q Message) (Message, bool) {
		b, err := Encode(q)
		if err != nil {
			t.Fatal(err)
		}
		return exchange(t, conn, addr, b, 2*time.Second)
	}
	for _, c := range []struct {
		q    Message
		want Opcode
	}{
		{Message{Opcode: OpQuery, RequestNumber: 7, URL: url}, OpHit},
		{Message{Opcode: OpQuery, RequestNumber: 8, URL: url + "/y"}, OpMiss},
		{Message{Opcode: OpQuery, Version: 3, RequestNumber: 9, URL: url, Options: FlagSrcRTT | FlagHitObj}, OpHit},
		{Message{Opcode: OpQuery, RequestNumber: 10, URL: "not a url"}, OpErr},
		{Message{Opcode: OpQuery, RequestNumber: 11, URL: ""}, OpErr},
	} {
		r, ok := ask(c.q)
		want := Message{Opcode: c.want, Version: Version2, RequestNumber: c.q.RequestNumber, URL: c.q.URL}
		if !ok || !equalMessage(r, want) {
			t.Fatalf("query %+v: reply %+v (%v), want %+v", c.q, r, ok, want)
		}
	}
	mu.Lock()
	noFetch = true
	mu.Unlock()
	if r, _ := ask(Message{Opcode: OpQuery, RequestNumber: 12, URL: url + "/y"}); r.Opcode != OpMissNoFetch {
		t.Fatalf("no-fetch miss: %v", r.Opcode)
	}
	if r, _ := ask(Message{Opcode: OpQuery, RequestNumber: 13, URL: url}); r.Opcode != OpHit {
		t.Fatalf("no-fetch hit: %v", r.Opcode)
	}

	// A peer not allowed is denied.
	q, _ := Encode(Message{Opcode: OpQuery, RequestNumber: 14, URL: url})
	if r, ok := exchange(t, dconn, addr, q, 2*time.Second); !ok || r.Opcode != OpDenied || r.RequestNumber != 14 || r.URL != url {
		t.Fatalf("denied: %+v", r)
	}

	// Garbage and messages that are not queries get no reply.
	hit, _ := Encode(Message{Opcode: OpHit, RequestNumber: 15, URL: url})
	for _, b := range [][]byte{{1, 2, 3}, q[:len(q)-1], hit} {
		if r, ok := exchange(t, conn, addr, b, 100*time.Millisecond); ok {
			t.Fatalf("% x was answered: %+v", b, r)
		}
	}
	testutil.WaitFor(t, 5*time.Second, "the stats", func() bool { return srv.Stats().MessagesReceived == 11 })
	st := srv.Stats()
	want := ServerStats{Queries: 8, Hits: 3, Misses: 1, NoFetch: 1, Denied: 1, Errors: 2, Malformed: 2, Ignored: 1}
	want.Traffic = st.Traffic
	if st != want || st.MessagesReceived != 11 || st.MessagesSent != 8 {
		t.Fatalf("stats %+v", st)
	}
}

// A scripted peer answers with junk before its real reply: replies from
// a stranger, for another URL or request number, repeats and garbage
// are all dropped and counted.
func TestClientDropsStrayReplies(t *testing.T) {
	const url = "http://example.com/z"
	p, q, rogue := listen(t), listen(t), listen(t)
	c := newClient(t, ClientConfig{})
	client := addrOf(c.conn)

	script := make(chan error, 1)
	go func() {
		script <- func() error {
			buf := make([]byte, readBufferSize)
			p.SetReadDeadline(time.Now().Add(5 * time.Second))
			n, _, err := p.ReadFromUDPAddrPort(buf)
			if err != nil {
				return err
			}
			query, err := Decode(buf[:n], Limits{})
			if err != nil {
				return err
			}
			q.SetReadDeadline(time.Now().Add(5 * time.Second))
			if _, _, err := q.ReadFromUDPAddrPort(buf); err != nil {
				return err
			}
			id := query.RequestNumber
			send := func(from *net.UDPConn, m Message) {
				b, _ := Encode(m)
				from.WriteToUDPAddrPort(b, client)
			}
			send(rogue, Message{Opcode: OpHit, RequestNumber: id, URL: url})    // stranger
			send(p, Message{Opcode: OpHit, RequestNumber: id, URL: url + "/"})  // another URL
			send(p, Message{Opcode: OpHit, RequestNumber: id + 1, URL: url})    // another request
			send(p, Message{Opcode: OpQuery, RequestNumber: id, URL: url})      // not a reply
			p.WriteToUDPAddrPort([]byte("garbage that is long enough"), client) // malformed
			send(p, Message{Opcode: OpMiss, RequestNumber: id, URL: url})       // the reply
			send(p, Message{Opcode: OpHit, RequestNumber: id, URL: url})        // a repeat
			send(q, Message{Opcode: OpDenied, RequestNumber: id, URL: url})     // the other reply
			return nil
		}()
	}()
	res, err := c.Query(context.Background(), []netip.AddrPort{addrOf(p), addrOf(q), addrOf(p)}, url, 5*time.Second)
	if serr := <-script; serr != nil {
		t.Fatal(serr)
	}
	if err != nil || res.Hit || res.TimedOut || len(res.Replies) != 2 ||
		res.Replies[0].Opcode != OpMiss || res.Replies[0].Peer != addrOf(p) ||
		res.Replies[1].Opcode != OpDenied || res.Replies[1].Peer != addrOf(q) {
		t.Fatalf("%+v, %v", res, err)
	}
	st := c.Stats()
	if st.Unmatched != 5 || st.Malformed != 1 || st.MessagesReceived != 8 || st.MessagesSent != 2 {
		t.Fatalf("stats %+v", st)
	}
	// A reply after the query ended is dropped too.
	b, _ := Encode(Message{Opcode: OpHit, RequestNumber: res.RequestNumber, URL: url})
	q.WriteToUDPAddrPort(b, client)
	testutil.WaitFor(t, 5*time.Second, "the stats", func() bool { return c.Stats().Unmatched == 6 })
}

func TestQueryArguments(t *testing.T) {
	c := newClient(t, ClientConfig{})
	ctx := context.Background()
	peer := addrOf(listen(t))
	for name, call := range map[string]func() error{
		"zero timeout": func() error { _, err := c.Query(ctx, []netip.AddrPort{peer}, "u", 0); return err },
		"invalid peer": func() error { _, err := c.Query(ctx, []netip.AddrPort{{}}, "u", time.Second); return err },
		"port 0": func() error {
			_, err := c.Query(ctx, []netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:0")}, "u", time.Second)
			return err
		},
	} {
		if err := call(); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: %v", name, err)
		}
	}
	for _, url := range []string{"", "a b", "a\x00b", "a\nb"} {
		if _, err := c.Query(ctx, []netip.AddrPort{peer}, url, time.Second); !errors.Is(err, ErrFormat) {
			t.Errorf("URL %q: %v", url, err)
		}
	}
	if res, err := c.Query(ctx, nil, "u", time.Second); err != nil || res.Hit || res.TimedOut {
		t.Errorf("no peers: %+v, %v", res, err)
	}
	if st := c.Stats(); st.MessagesSent != 0 || st.Queries != 0 {
		t.Fatalf("sent %+v", st)
	}
	if _, err := NewServer(ServerConfig{}); !errors.Is(err, ErrConfig) {
		t.Errorf("server without Lookup: %v", err)
	}
	if _, err := NewServer(ServerConfig{Lookup: func(string) bool { return false }, Limits: Limits{Replies: -1}}); !errors.Is(err, ErrConfig) {
		t.Errorf("server with a negative reply budget: %v", err)
	}
	if _, err := NewClient(nil, ClientConfig{}); !errors.Is(err, ErrConfig) {
		t.Errorf("client without a socket: %v", err)
	}
}

func TestQueryEndsOnCancelAndClose(t *testing.T) {
	silent := []netip.AddrPort{addrOf(listen(t))}
	c := newClient(t, ClientConfig{})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := c.Query(ctx, silent, "u", time.Minute); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("cancel: %v", err)
	}

	errc := make(chan error, 1)
	go func() {
		_, err := c.Query(context.Background(), silent, "u", time.Minute)
		errc <- err
	}()
	testutil.WaitFor(t, 5*time.Second, "the stats", func() bool { return c.Stats().Queries == 2 })
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		if !errors.Is(err, ErrClosed) {
			t.Fatalf("close: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close left a query hanging")
	}
	if _, err := c.Query(context.Background(), silent, "u", time.Second); !errors.Is(err, ErrClosed) {
		t.Fatalf("after close: %v", err)
	}
	if st := c.Stats(); st.Canceled != 2 {
		t.Fatalf("stats %+v", st)
	}
	c.Close() // idempotent
}

// Serve returns nil when its context ends or its socket closes, and
// leaves a socket it did not close ready to serve again.
func TestServeStops(t *testing.T) {
	s, err := NewServer(ServerConfig{Lookup: holds("u")})
	if err != nil {
		t.Fatal(err)
	}
	conn := listen(t)
	serve := func(ctx context.Context) chan error {
		done := make(chan error, 1)
		go func() { done <- s.Serve(ctx, conn) }()
		return done
	}
	wait := func(done chan error) {
		t.Helper()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("Serve: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("Serve did not return")
		}
	}
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	wait(serve(canceled))

	ctx, cancel := context.WithCancel(context.Background())
	done := serve(ctx)
	q, _ := Encode(Message{Opcode: OpQuery, RequestNumber: 1, URL: "u"})
	if r, ok := exchange(t, listen(t), addrOf(conn), q, 2*time.Second); !ok || r.Opcode != OpHit {
		t.Fatalf("served again: %+v, %v", r, ok)
	}
	cancel()
	wait(done)

	done = serve(context.Background())
	time.Sleep(10 * time.Millisecond)
	conn.Close()
	wait(done)
}

// Two nodes share one socket each for asking and answering, as Squid's
// icp_port does, and ask each other.
func TestClientWithServerOnOneSocket(t *testing.T) {
	var nodes [2]*Client
	for i := range nodes {
		srv, err := NewServer(ServerConfig{Lookup: holds(fmt.Sprintf("http://node%d/", i))})
		if err != nil {
			t.Fatal(err)
		}
		nodes[i] = newClient(t, ClientConfig{Server: srv})
	}
	addr := func(i int) netip.AddrPort { return addrOf(nodes[i].conn) }
	for i := range nodes {
		peer := []netip.AddrPort{addr(1 - i)}
		res, err := nodes[i].Query(context.Background(), peer, fmt.Sprintf("http://node%d/", 1-i), 5*time.Second)
		if err != nil || !res.Hit || res.Peer != addr(1-i) {
			t.Fatalf("node %d: %+v, %v", i, res, err)
		}
		res, err = nodes[i].Query(context.Background(), peer, fmt.Sprintf("http://node%d/", i), 5*time.Second)
		if err != nil || res.Hit || res.TimedOut {
			t.Fatalf("node %d: %+v, %v", i, res, err)
		}
	}
	// The server counts a reply after sending it (ServerStats.Answered).
	testutil.WaitFor(t, 5*time.Second, "the stats", func() bool { st := nodes[0].cfg.Server.Stats(); return st.Answered() >= st.Queries })
	if st := nodes[0].cfg.Server.Stats(); st.Queries != 2 || st.Hits != 1 || st.Misses != 1 {
		t.Fatalf("server stats %+v", st)
	}
	if st := nodes[0].Stats(); st.MessagesSent != 2 || st.MessagesReceived != 2 || st.Unmatched != 0 {
		t.Fatalf("client stats %+v", st)
	}
}

// Many queries at once on one socket, each answered by the right peer.
func TestConcurrentQueries(t *testing.T) {
	const servers, workers, perWorker = 3, 16, 25
	url := func(n int) string { return fmt.Sprintf("http://example.com/%d", n) }
	var srvs [servers]*Server
	var peers []netip.AddrPort
	for i := range srvs {
		var held []string
		for n := i; n < workers*perWorker; n += servers + 1 {
			held = append(held, url(n))
		}
		var a netip.AddrPort
		srvs[i], a = startServer(t, ServerConfig{Lookup: holds(held...)})
		peers = append(peers, a)
	}
	c := newClient(t, ClientConfig{})
	var wg sync.WaitGroup
	errs := make(chan error, workers*perWorker)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < perWorker; k++ {
				n := w*perWorker + k
				res, err := c.Query(context.Background(), peers, url(n), 10*time.Second)
				owner := n % (servers + 1)
				switch {
				case err != nil:
					errs <- err
				case owner < servers && (!res.Hit || res.Peer != peers[owner]):
					errs <- fmt.Errorf("%s: %+v, want a hit from %v", url(n), res, peers[owner])
				case owner == servers && (res.Hit || res.TimedOut || len(res.Replies) != servers):
					errs <- fmt.Errorf("%s: %+v, want a miss from all", url(n), res)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	st := c.Stats()
	total := uint64(workers * perWorker)
	if st.Queries != total || st.Hits+st.Misses != total || st.Timeouts != 0 || st.MessagesSent != servers*total {
		t.Fatalf("client stats %+v", st)
	}
	testutil.WaitFor(t, 5*time.Second, "the stats", func() bool {
		var answered uint64
		for _, s := range srvs {
			answered += s.Stats().MessagesSent
		}
		return answered == servers*total && c.Stats().MessagesReceived == servers*total
	})
	// Replies after a hit arrive late: dropped as unmatched, never malformed.
	if st := c.Stats(); st.Malformed != 0 || st.Unmatched > st.MessagesReceived-total {
		t.Fatalf("client stats %+v", st)
	}
}

// noDeadlineConn is a real UDP socket that refuses read deadlines.
type noDeadlineConn struct{ net.PacketConn }

var errNoDeadline = errors.New("deadlines not supported")

func (noDeadlineConn) SetReadDeadline(time.Time) error { return errNoDeadline }

// When conn refuses the read deadline that stops Serve, Serve still
// returns once ctx is done (it closes conn) and says why, rather than
// blocking in a read forever.
func TestServeStopsWithoutDeadline(t *testing.T) {
	s, err := NewServer(ServerConfig{Lookup: holds()})
	if err != nil {
		t.Fatal(err)
	}
	conn := noDeadlineConn{listen(t)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, conn) }()
	time.Sleep(20 * time.Millisecond) // let Serve block in its read
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, errNoDeadline) {
			t.Fatalf("Serve returned %v, want the deadline's error", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after ctx was done")
	}
}
