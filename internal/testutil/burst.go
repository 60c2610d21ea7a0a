package testutil

import (
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Burst wraps a handler so that the requests of a burst are held until
// all N have arrived: N requests are then in flight at once, each on its
// own connection. Connections counts the connections the server
// accepted, so that a test can tell a client that reuses its connections
// from one that redials.
type Burst struct {
	N int
	// Hold, if set, chooses the requests a burst counts; the others pass.
	Hold func(r *http.Request) bool

	dialled atomic.Int64
	mu      sync.Mutex
	arrived int
	release chan struct{}
}

// Start begins a burst: the next N requests held wait for each other.
func (b *Burst) Start() {
	b.mu.Lock()
	b.arrived, b.release = 0, make(chan struct{})
	b.mu.Unlock()
}

// Run starts a burst and calls send(i) for i in [0, N), each in its own
// goroutine, returning when all have returned.
func (b *Burst) Run(send func(i int)) {
	b.Start()
	var wg sync.WaitGroup
	for i := range b.N {
		wg.Add(1)
		go func() {
			defer wg.Done()
			send(i)
		}()
	}
	wg.Wait()
}

// Connections is the number of connections accepted so far.
func (b *Burst) Connections() int64 { return b.dialled.Load() }

// ConnState counts new connections; set it as the http.Server's.
func (b *Burst) ConnState(_ net.Conn, s http.ConnState) {
	if s == http.StateNew {
		b.dialled.Add(1)
	}
}

// Wrap returns h behind the barrier. Before Start, requests pass. A
// burst that does not fill within 10 s answers 503.
func (b *Burst) Wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if b.Hold != nil && !b.Hold(r) {
			h.ServeHTTP(w, r)
			return
		}
		b.mu.Lock()
		release := b.release
		if release != nil {
			b.arrived++
			if b.arrived == b.N {
				close(release)
			}
		}
		b.mu.Unlock()
		if release != nil {
			select {
			case <-release:
			case <-time.After(10 * time.Second):
				http.Error(w, "burst incomplete", http.StatusServiceUnavailable)
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}
