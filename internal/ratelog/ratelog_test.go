package ratelog

import (
	"testing"
	"time"
)

// TestAllow: one event of a key an interval, the first after a gap
// saying how many were left out; keys apart.
func TestAllow(t *testing.T) {
	l := New(time.Minute)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	steps := []struct {
		key  string
		at   time.Duration
		ok   bool
		left uint64
	}{
		{"a", 0, true, 0},
		{"a", time.Second, false, 0},
		{"b", time.Second, true, 0},
		{"a", 59 * time.Second, false, 0},
		{"a", time.Minute, true, 2},
		{"a", 2 * time.Minute, true, 0},
	}
	for i, s := range steps {
		ok, left := l.Allow(s.key, t0.Add(s.at))
		if ok != s.ok || left != s.left {
			t.Errorf("step %d (%s at %v): %v, %d left; want %v, %d", i, s.key, s.at, ok, left, s.ok, s.left)
		}
	}
}
