// Package testutil holds the helpers that tests across the module share,
// defined once: waiting for a condition that another goroutine or process
// brings about.
package testutil

import (
	"testing"
	"time"
)

// maxPoll bounds the pause between two checks of a condition.
const maxPoll = 100 * time.Millisecond

// WaitFor checks ok until it holds, failing the test after limit with
// what it was waiting for. It checks again after 1 ms, then after
// pauses that double up to 100 ms, so that a condition that is nearly
// there costs little and a slow one (a process starting) is not polled
// in a busy loop.
func WaitFor(t testing.TB, limit time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	pause := time.Millisecond
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up after %v waiting for %s", limit, what)
		}
		time.Sleep(pause)
		pause = min(2*pause, maxPoll)
	}
}
