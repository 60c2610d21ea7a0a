// Package ratelog bounds how often a program logs one kind of event: a
// failing disk or a hostile peer repeats the same event as fast as it
// can, and one line per interval, saying how many were left out, tells
// the operator as much as all of them.
package ratelog

import (
	"sync"
	"time"
)

// Limiter allows an event of each key at most once per interval. The
// keys are a program's own (reasons, messages), not a peer's, so the
// maps it keeps stay small. It is safe for concurrent use; the zero
// value is not: make one with New.
type Limiter struct {
	every time.Duration

	mu     sync.Mutex
	logged map[string]time.Time // when each key was last allowed
	left   map[string]uint64    // events of each key not allowed since
}

// New returns a Limiter that allows each key once per every.
func New(every time.Duration) *Limiter {
	return &Limiter{every: every, logged: map[string]time.Time{}, left: map[string]uint64{}}
}

// Allow reports whether an event of key at now is to be logged, and, if
// it is, how many events of key were not since the last that was.
func (l *Limiter) Allow(key string, now time.Time) (ok bool, left uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if last, seen := l.logged[key]; seen && now.Sub(last) < l.every {
		l.left[key]++
		return false, 0
	}
	l.logged[key] = now
	left = l.left[key]
	delete(l.left, key)
	return true, left
}
