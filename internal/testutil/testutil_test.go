package testutil

import (
	"fmt"
	"runtime"
	"testing"
	"time"
)

// fatalRecorder is a testing.TB whose Fatalf records the message and
// ends the goroutine, as testing.T's does.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (r *fatalRecorder) Helper() {}

func (r *fatalRecorder) Fatalf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func TestWaitForHolds(t *testing.T) {
	n := 0
	WaitFor(t, 5*time.Second, "the third check", func() bool { n++; return n == 3 })
	if n != 3 {
		t.Errorf("checked %d times, want 3", n)
	}
}

func TestWaitForGivesUp(t *testing.T) {
	r := &fatalRecorder{TB: t}
	done := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(done)
		WaitFor(r, 50*time.Millisecond, "nothing", func() bool { return false })
	}()
	<-done
	if want := "gave up after 50ms waiting for nothing"; r.msg != want {
		t.Errorf("message %q, want %q", r.msg, want)
	}
	if d := time.Since(start); d < 50*time.Millisecond || d > 5*time.Second {
		t.Errorf("gave up after %v", d)
	}
}
