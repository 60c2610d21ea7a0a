package icp

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// limiter is a token bucket: it allows rate events a second on average
// and bursts of up to rate. It is safe for concurrent use, as one Server
// may serve several sockets.
type limiter struct {
	mu     sync.Mutex
	rate   float64
	tokens float64
	last   time.Time
}

func newLimiter(perSecond float64) *limiter {
	return &limiter{rate: perSecond, tokens: perSecond}
}

// allow takes a token if there is one.
func (l *limiter) allow(now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.last.IsZero() {
		l.tokens = min(l.rate, l.tokens+now.Sub(l.last).Seconds()*l.rate)
	}
	l.last = now
	if l.tokens < 1 {
		return false
	}
	l.tokens--
	return true
}

// logLinesPerSecond bounds the debug lines about single datagrams: each
// costs a write, and a flood of datagrams costs the sender nothing.
const logLinesPerSecond = 10

// datagramLog writes debug lines about single datagrams at a bounded
// rate; a line written after some were dropped says how many.
type datagramLog struct {
	log        *slog.Logger
	lim        *limiter
	mu         sync.Mutex
	suppressed uint64
}

func newDatagramLog(log *slog.Logger) *datagramLog {
	return &datagramLog{log: log, lim: newLimiter(logLinesPerSecond)}
}

func (d *datagramLog) debug(msg string, args ...any) {
	if !d.log.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	d.mu.Lock()
	if !d.lim.allow(time.Now()) {
		d.suppressed++
		d.mu.Unlock()
		return
	}
	n := d.suppressed
	d.suppressed = 0
	d.mu.Unlock()
	if n > 0 {
		args = append(args, "suppressed", n)
	}
	d.log.Debug(msg, args...)
}
