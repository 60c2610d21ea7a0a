package node

import (
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultMaxConnections is NodeConfig.MaxConnections's default: at about
// 21 KiB of buffers and stacks an idle connection costs net/http's
// server, 10,000 connections hold some 210 MiB beside --memory.
const DefaultMaxConnections = 10000

// connLimit is a listener that keeps at most cap(slots) of its
// connections open at once: at the limit, Accept waits for one of them
// to close, so further clients wait in the kernel's backlog (as with
// golang.org/x/net/netutil.LimitListener) instead of each costing the
// node its buffers and goroutines. Close ends a waiting Accept.
type connLimit struct {
	net.Listener
	slots   chan struct{}
	open    *atomic.Int64 // connections open, for /metrics
	full    func()        // called when Accept finds every slot taken
	done    chan struct{}
	closing sync.Once
}

func newConnLimit(ln net.Listener, limit int, open *atomic.Int64, full func()) *connLimit {
	return &connLimit{Listener: ln, slots: make(chan struct{}, limit), open: open, full: full, done: make(chan struct{})}
}

func (l *connLimit) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	default:
		l.full()
		select {
		case l.slots <- struct{}{}:
		case <-l.done:
			return nil, net.ErrClosed
		}
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	l.open.Add(1)
	return &limitedConn{Conn: c, l: l}, nil
}

func (l *connLimit) Close() error {
	l.closing.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// limitedConn gives its slot back when it is first closed, by the
// server or, for a hijacked connection (a CONNECT tunnel), by whoever
// holds it then.
type limitedConn struct {
	net.Conn
	l       *connLimit
	closing sync.Once
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.closing.Do(func() {
		c.l.open.Add(-1)
		<-c.l.slots
	})
	return err
}

// connLimitWarnEvery spaces the warnings that the node is at its
// connection limit: a flood reaches it once per accepted connection.
const connLimitWarnEvery = time.Minute

// connLimitReached warns, at most once a connLimitWarnEvery, that every
// connection the node keeps open is taken and clients wait to be
// accepted.
func (n *Node) connLimitReached() {
	ok, left := n.connWarn.Allow("max connections", time.Now())
	if !ok {
		return
	}
	n.log.Warn("node: at the connection limit; clients wait to be accepted until a connection closes",
		"maxConnections", n.cfg.MaxConnections, "suppressedSinceLastWarning", left)
}
