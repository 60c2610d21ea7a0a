package icp

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/netip"
	"sync"
	"time"
)

// ClientConfig configures a Client.
// The zero value is ready to use: no logger, the default limits and no
// server.
type ClientConfig struct {
	// Logger receives (at debug level, at most 10 lines a second)
	// dropped datagrams and failed sends; nil discards.
	Logger *slog.Logger
	// Limits bounds the replies accepted; the zero value applies the
	// defaults.
	Limits Limits
	// Server, if set, answers the queries that arrive on the client's
	// socket, so that one socket serves both roles as Squid's icp_port
	// does. Its Serve must not also read that socket.
	Server *Server
}

// Reply is one peer's answer to a query.
// The zero value is no reply: its opcode, OpInvalid, is not a reply's.
type Reply struct {
	Peer   netip.AddrPort
	Opcode Opcode        // a reply opcode (see Opcode.IsReply)
	RTT    time.Duration // from sending the query to reading the reply
}

// Result is the outcome of a Query.
// The zero value is a query that ended with no reply.
type Result struct {
	// Hit is set when a peer answered ICP_OP_HIT (or ICP_OP_HIT_OBJ);
	// Peer is the first to do so.
	Hit  bool
	Peer netip.AddrPort
	// RequestNumber is the query's.
	RequestNumber uint32
	// Replies are the replies read before the query ended, in order of
	// arrival; replies that arrive later are dropped.
	Replies []Reply
	// TimedOut is set when the timeout expired before a hit or an answer
	// from every peer.
	TimedOut bool
	// Elapsed is the time from the first send to the outcome.
	Elapsed time.Duration
}

// Client sends ICP queries from one UDP socket that it owns, any number
// at a time: it reads every datagram on the socket, matches replies to
// the waiting queries by request number, and drops replies with an
// unknown or expired request number, from an address the query was not
// sent to, for another URL (RFC 2186 §2: a reply's URL and request
// number "must be exactly the same" as the query's), or repeated.
//
// The zero Client has no socket: Query and Close return an error wrapping
// ErrConfig, LocalAddr returns nil and Stats counts nothing; make one with
// NewClient.
type Client struct {
	conn  net.PacketConn
	cfg   ClientConfig
	log   *slog.Logger
	dlog  *datagramLog
	stats clientCounters

	mu      sync.Mutex
	pending map[uint32]*call
	readErr error // why the reader stopped, if not Close

	done      chan struct{} // closed when the reader stops
	closeOnce sync.Once
	closeErr  error
}

// call is one query in flight.
type call struct {
	url     string
	start   time.Time
	peers   map[netip.AddrPort]bool // true once answered (or unreachable)
	replies chan Reply              // capacity len(peers): never blocks
}

// NewClient returns a Client that owns conn, a UDP socket (for example
// from net.ListenUDP), and starts reading it. Close closes conn.
func NewClient(conn net.PacketConn, cfg ClientConfig) (*Client, error) {
	if conn == nil {
		return nil, fmt.Errorf("%w: nil connection", ErrConfig)
	}
	if cfg.Limits.MaxMessage < 0 || cfg.Limits.MaxURL < 0 {
		return nil, fmt.Errorf("%w: negative limits %+v", ErrConfig, cfg.Limits)
	}
	if cfg.Server != nil && cfg.Server.cfg.Lookup == nil {
		return nil, fmt.Errorf("%w: ClientConfig.Server is a zero Server; use NewServer", ErrConfig)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	c := &Client{conn: conn, cfg: cfg, log: log, dlog: newDatagramLog(log), pending: make(map[uint32]*call), done: make(chan struct{})}
	go c.read()
	return c, nil
}

// LocalAddr is the address of the client's socket, the one peers reply to.
func (c *Client) LocalAddr() net.Addr {
	if c.conn == nil {
		return nil
	}
	return c.conn.LocalAddr()
}

// errZeroClient is what the methods of a zero Client return.
var errZeroClient = fmt.Errorf("%w: zero Client; use NewClient", ErrConfig)

// Stats returns a snapshot of the client's counters.
func (c *Client) Stats() ClientStats { return c.stats.snapshot() }

// Close closes the socket, ends the queries in flight with ErrClosed and
// waits for the reader to stop.
func (c *Client) Close() error {
	if c.conn == nil {
		return errZeroClient
	}
	c.closeOnce.Do(func() {
		c.closeErr = c.conn.Close()
		<-c.done
	})
	return c.closeErr
}

// Query asks every peer whether it holds url, as a Squid asks its
// siblings (RFC 2187 describes the practice): one ICP_OP_QUERY with a fresh request number to each
// distinct peer, then it waits for the first hit, or for every peer to
// answer otherwise (MISS, MISS_NOFETCH, DENIED or ERR), or for timeout,
// whichever is first. A timeout is not an error: the Result says
// TimedOut and holds the replies that did come. Errors are an invalid
// argument, sends that all failed, ctx ending (ctx.Err()) and Close
// (ErrClosed). With no peers, Query sends nothing and returns a miss.
func (c *Client) Query(ctx context.Context, peers []netip.AddrPort, url string, timeout time.Duration) (Result, error) {
	if c.conn == nil {
		return Result{}, errZeroClient
	}
	if timeout <= 0 {
		return Result{}, fmt.Errorf("%w: timeout %v", ErrConfig, timeout)
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	if !usableURL(url) {
		return Result{}, fmt.Errorf("%w: URL %q is empty or has white space or control characters", ErrFormat, url)
	}
	q, err := Encode(Message{Opcode: OpQuery, URL: url})
	if err != nil {
		return Result{}, err
	}
	cl := &call{url: url, peers: make(map[netip.AddrPort]bool, len(peers))}
	targets := make([]netip.AddrPort, 0, len(peers))
	for _, p := range peers {
		p = normalize(p)
		if !p.IsValid() || p.Port() == 0 {
			return Result{}, fmt.Errorf("%w: peer address %v", ErrConfig, p)
		}
		if _, dup := cl.peers[p]; !dup {
			cl.peers[p] = false
			targets = append(targets, p)
		}
	}
	if len(targets) == 0 {
		return Result{}, nil
	}
	cl.replies = make(chan Reply, len(targets))
	cl.start = time.Now() // before register publishes cl to the reader

	id, err := c.register(cl)
	if err != nil {
		return Result{}, err
	}
	defer c.unregister(id)
	binary.BigEndian.PutUint32(q[4:], id)

	res := Result{RequestNumber: id}
	waiting, sendErr := 0, error(nil)
	for _, p := range targets {
		if err := writeTo(c.conn, q, p); err != nil {
			sendErr = err
			c.stats.sendFailures.Add(1)
			c.dlog.debug("icp: cannot send a query", "to", p, "err", err)
			c.mu.Lock()
			cl.peers[p] = true // no reply will come
			c.mu.Unlock()
			continue
		}
		c.stats.sent(len(q))
		waiting++
	}
	if waiting == 0 {
		return res, fmt.Errorf("icp: query %d reached no peer: %w", id, sendErr)
	}
	c.stats.queries.Add(1)

	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		select {
		case r := <-cl.replies:
			res.Replies = append(res.Replies, r)
			if r.Opcode.IsHit() {
				res.Hit, res.Peer, res.Elapsed = true, r.Peer, time.Since(cl.start)
				c.stats.hits.Add(1)
				return res, nil
			}
			if waiting--; waiting == 0 {
				res.Elapsed = time.Since(cl.start)
				c.stats.misses.Add(1)
				return res, nil
			}
		case <-timer.C:
			res.TimedOut, res.Elapsed = true, time.Since(cl.start)
			c.stats.timeouts.Add(1)
			return res, nil
		case <-ctx.Done():
			res.Elapsed = time.Since(cl.start)
			c.stats.canceled.Add(1)
			return res, ctx.Err()
		case <-c.done:
			res.Elapsed = time.Since(cl.start)
			c.stats.canceled.Add(1)
			return res, c.stopped()
		}
	}
}

// register records a call under a fresh, unpredictable request number,
// so that a stale reply or a blind guess rarely matches.
func (c *Client) register(cl *call) (uint32, error) {
	select {
	case <-c.done:
		return 0, c.stopped()
	default:
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		id := rand.Uint32()
		if _, taken := c.pending[id]; !taken {
			c.pending[id] = cl
			return id, nil
		}
	}
}

func (c *Client) unregister(id uint32) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// stopped is the error for a query on a client whose reader has stopped.
func (c *Client) stopped() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.readErr != nil {
		return fmt.Errorf("%w: reading the socket failed: %w", ErrClosed, c.readErr)
	}
	return ErrClosed
}

// read reads the socket until it is closed, handing queries to the
// configured Server and replies to their calls.
func (c *Client) read() {
	defer close(c.done)
	buf := make([]byte, readBufferSize)
	var out []byte
	for {
		n, from, err := readFrom(c.conn, buf)
		if err != nil {
			if transient(err) {
				continue
			}
			if !errors.Is(err, net.ErrClosed) {
				c.log.Warn("icp: client stopped reading", "addr", c.conn.LocalAddr(), "err", err)
				c.mu.Lock()
				c.readErr = err
				c.mu.Unlock()
			}
			return
		}
		in := buf[:n]
		if c.cfg.Server != nil && n > 0 && Opcode(in[0]) == OpQuery {
			out = c.cfg.Server.handle(c.conn, in, from, out)
			continue
		}
		c.stats.received(n)
		c.deliver(in, from)
	}
}

// deliver matches one datagram to the call waiting for it.
func (c *Client) deliver(in []byte, from netip.AddrPort) {
	m, err := Decode(in, c.cfg.Limits)
	if err != nil {
		c.stats.malformed.Add(1)
		c.dlog.debug("icp: dropped a datagram", "from", from, "err", err)
		return
	}
	var cl *call
	if m.Opcode.IsReply() {
		c.mu.Lock()
		cl = c.pending[m.RequestNumber]
		if cl != nil {
			if answered, sent := cl.peers[from]; !sent || answered || m.URL != cl.url {
				cl = nil
			} else {
				cl.peers[from] = true
			}
		}
		c.mu.Unlock()
	}
	if cl == nil {
		c.stats.unmatched.Add(1)
		c.dlog.debug("icp: dropped an unmatched message", "from", from, "opcode", m.Opcode, "request", m.RequestNumber)
		return
	}
	cl.replies <- Reply{Peer: from, Opcode: m.Opcode, RTT: time.Since(cl.start)}
}
