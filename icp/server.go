package icp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"time"
)

// ServerConfig configures a Server.
// The zero ServerConfig is not valid: NewServer reports ErrConfig, as Lookup
// is required.
type ServerConfig struct {
	// Lookup reports whether the cache holds a URL; required. It runs on
	// the serving goroutine for every allowed query and must not block:
	// the querier is waiting, and RFC 2186 §3 forbids delaying a reply
	// even for an RTT measurement.
	Lookup func(url string) bool
	// Allow reports whether a peer may query this cache; nil allows
	// everyone. A peer not allowed gets ICP_OP_DENIED (RFC 2186 §2).
	Allow func(peer netip.AddrPort) bool
	// NoFetch, when it returns true, turns misses into
	// ICP_OP_MISS_NOFETCH: "up, but do not fetch this from me now", for
	// example while the store is rebuilt (RFC 2186 §2). Nil means never.
	NoFetch func() bool
	// Logger receives start, stop and (at debug level, at most 10
	// lines a second) dropped datagrams; nil discards.
	Logger *slog.Logger
	// Limits bounds the queries accepted; the zero value applies the
	// defaults.
	Limits Limits
}

// Server answers ICP queries (RFC 2186 §2, and RFC 2187 on how caches
// use them): a query gets ICP_OP_HIT or ICP_OP_MISS
// (or ICP_OP_MISS_NOFETCH) from Lookup, ICP_OP_DENIED if Allow refuses
// the peer, and ICP_OP_ERR if its URL is unusable; the reply copies the
// query's request number and URL, is version 2 (as Squid answers version
// 3 queries too), and sets no option flags, so it never claims an RTT it
// was not asked for (RFC 2186 §3). Anything else is dropped unanswered
// and counted. Replies are sent at most Limits.Replies a second
// (DefaultReplies, 10,000), ICP_OP_DENIED at most 10 a second; queries beyond are counted and left unanswered
// (a querier times out, as it would on a lost datagram). One Server may
// serve several sockets at once.
//
// The zero Server has no Lookup: Serve returns an error wrapping ErrConfig
// and NewClient refuses it as ClientConfig.Server; make one with NewServer.
type Server struct {
	cfg   ServerConfig
	log   *slog.Logger
	dlog  *datagramLog
	stats serverCounters

	// Every reply answers a query whose source address may be forged:
	// these bound the replies a second the server can be made to send
	// to such an address. DENIED has its own, smaller budget, so that
	// queries from outside Allow cannot use up the peers'.
	replies, denials *limiter
}

// The reply budgets. A reply is never larger than its query (it drops
// the requester address), so the server does not amplify; these bound
// the rate at which it reflects. Squid sends ICP_OP_DENIED only while
// fewer than 95 of a client's last 100 queries were denied
// (clientdbCutoffDenied); a server-wide budget holds against queries from
// forged, ever-changing addresses as well. The budget for all replies
// is Limits.Replies.
const deniedPerSecond = 10

// NewServer validates cfg and returns a Server.
func NewServer(cfg ServerConfig) (*Server, error) {
	if cfg.Lookup == nil {
		return nil, fmt.Errorf("%w: ServerConfig.Lookup is required", ErrConfig)
	}
	if cfg.Limits.MaxMessage < 0 || cfg.Limits.MaxURL < 0 || cfg.Limits.Replies < 0 {
		return nil, fmt.Errorf("%w: negative limits %+v", ErrConfig, cfg.Limits)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Server{cfg: cfg, log: log, dlog: newDatagramLog(log),
		replies: newLimiter(float64(cfg.Limits.replies())), denials: newLimiter(deniedPerSecond)}, nil
}

// Stats returns a snapshot of the server's counters.
func (s *Server) Stats() ServerStats { return s.stats.snapshot() }

// Serve answers queries arriving on conn, a UDP socket, until ctx is
// done or conn is closed, either of which returns nil; any other read
// error is returned. Serve does not close conn. To stop it, Serve sets
// a read deadline in the past, and clears it again before returning, so
// conn may be served again. If conn refuses the deadline, a blocked read
// could not end: Serve then closes conn, the only other way to end it,
// and returns the deadline's error.
func (s *Server) Serve(ctx context.Context, conn net.PacketConn) error {
	if s.cfg.Lookup == nil {
		return fmt.Errorf("%w: zero Server; use NewServer", ErrConfig)
	}
	return s.serve(ctx, conn)
}

func (s *Server) serve(ctx context.Context, conn net.PacketConn) (err error) {
	fired := make(chan struct{})
	var stopErr error // set before fired is closed
	stop := context.AfterFunc(ctx, func() {
		defer close(fired)
		if derr := conn.SetReadDeadline(time.Now()); derr != nil {
			s.log.Error("icp: cannot interrupt the read to stop; closing the socket", "addr", conn.LocalAddr(), "err", derr)
			stopErr = errors.Join(fmt.Errorf("icp: stopping: %w", derr), conn.Close())
		}
	})
	defer func() {
		if stop() {
			return
		}
		<-fired
		if stopErr != nil {
			err = errors.Join(err, stopErr)
			return
		}
		if derr := conn.SetReadDeadline(time.Time{}); derr != nil {
			err = errors.Join(err, fmt.Errorf("icp: clearing the read deadline: %w", derr))
		}
	}()
	s.log.Info("icp: serving", "addr", conn.LocalAddr())
	buf := make([]byte, readBufferSize)
	var out []byte
	for {
		n, from, err := readFrom(conn, buf)
		switch {
		case err == nil:
			out = s.handle(conn, buf[:n], from, out)
		case ctx.Err() != nil || errors.Is(err, net.ErrClosed):
			s.log.Info("icp: stopped serving", "addr", conn.LocalAddr())
			return nil
		case transient(err):
		default:
			return fmt.Errorf("icp: serving %v: %w", conn.LocalAddr(), err)
		}
	}
}

// handle answers one datagram; out is scratch space for the reply,
// returned for reuse.
func (s *Server) handle(conn net.PacketConn, in []byte, from netip.AddrPort, out []byte) []byte {
	s.stats.received(len(in))
	q, err := Decode(in, s.cfg.Limits)
	if err != nil {
		s.stats.malformed.Add(1)
		s.dlog.debug("icp: dropped a datagram", "from", from, "err", err)
		return out
	}
	if q.Opcode != OpQuery {
		// RFC 2186 §2 lists the replies a query gets; a reply, an
		// echo or a query's answer arriving here is not ours to answer.
		s.stats.ignored.Add(1)
		s.dlog.debug("icp: ignored a message that is not a query", "from", from, "opcode", q.Opcode)
		return out
	}
	s.stats.queries.Add(1)
	op, ok := s.answer(q.URL, from)
	if !ok {
		s.stats.unanswered.Add(1)
		s.dlog.debug("icp: left a query unanswered, over the reply rate", "from", from, "denied", op == OpDenied)
		return out
	}
	out, err = AppendMessage(out[:0], Message{Opcode: op, RequestNumber: q.RequestNumber, URL: q.URL})
	if err != nil {
		// Only a query over RFC 2186's 16 KiB leaves no room for its reply.
		s.stats.sendFailures.Add(1)
		s.dlog.debug("icp: cannot reply", "to", from, "err", err)
		return out
	}
	if err := writeTo(conn, out, from); err != nil {
		s.stats.sendFailures.Add(1)
		s.dlog.debug("icp: cannot reply", "to", from, "err", err)
		return out
	}
	s.stats.sent(len(out))
	switch op {
	case OpHit:
		s.stats.hits.Add(1)
	case OpMiss:
		s.stats.misses.Add(1)
	case OpMissNoFetch:
		s.stats.noFetch.Add(1)
	case OpDenied:
		s.stats.denied.Add(1)
	case OpErr:
		s.stats.errs.Add(1)
	}
	return out
}

// answer chooses the reply opcode for a query, and reports whether the
// reply is within its budget. Over budget, it does no lookup.
func (s *Server) answer(url string, from netip.AddrPort) (Opcode, bool) {
	now := time.Now()
	if s.cfg.Allow != nil && !s.cfg.Allow(from) {
		return OpDenied, s.denials.allow(now)
	}
	if !s.replies.allow(now) {
		return OpInvalid, false
	}
	switch {
	case !usableURL(url):
		return OpErr, true
	case s.cfg.Lookup(url):
		return OpHit, true
	case s.cfg.NoFetch != nil && s.cfg.NoFetch():
		return OpMissNoFetch, true
	}
	return OpMiss, true
}
