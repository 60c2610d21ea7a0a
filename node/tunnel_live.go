package node

import (
	"context"
	"net"
	"sync"
)

// liveTunnels keeps the CONNECT tunnels in flight, which Go's server no
// longer tracks once their connections are hijacked, so that a node that
// stops gives them the grace its other requests get, then closes them
// and waits for their access-log lines, rather than returning from Serve
// with tunnels still copying (or, in serve, exiting without logging them).
type liveTunnels struct {
	mu      sync.Mutex
	running int                   // handlers inside tunnel
	conns   map[net.Conn]struct{} // their sockets, client and server
	closed  bool                  // closeAll has run: a socket added is closed at once
	idle    chan struct{}         // closed when running falls to 0; nil unless waited for
}

// enter counts a tunnel handler in; leave counts it out.
func (l *liveTunnels) enter() {
	l.mu.Lock()
	l.running++
	l.mu.Unlock()
}

func (l *liveTunnels) leave() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.running--; l.running == 0 && l.idle != nil {
		close(l.idle)
		l.idle = nil
	}
}

// add keeps c until remove; once the tunnels are closed, it closes c.
func (l *liveTunnels) add(c net.Conn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		closeConn(c)
		return
	}
	if l.conns == nil {
		l.conns = make(map[net.Conn]struct{})
	}
	l.conns[c] = struct{}{}
}

func (l *liveTunnels) remove(c net.Conn) {
	l.mu.Lock()
	delete(l.conns, c)
	l.mu.Unlock()
}

// wait returns when no tunnel handler runs, or with ctx's error when ctx
// is done first.
func (l *liveTunnels) wait(ctx context.Context) error {
	l.mu.Lock()
	if l.running == 0 {
		l.mu.Unlock()
		return nil
	}
	if l.idle == nil {
		l.idle = make(chan struct{})
	}
	idle := l.idle
	l.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// closeAll closes every tunnel's sockets, and those of tunnels yet to
// connect, which ends their copies, and returns the number of tunnel
// handlers running.
func (l *liveTunnels) closeAll() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	for c := range l.conns {
		closeConn(c)
	}
	return l.running
}
