package coders

import (
	"runtime"
	"time"
)

// sample is one timed pass of an operation on both clocks, in
// nanoseconds per run of the operation.
type sample struct{ cpu, wall float64 }

// stopwatch times one pass. It locks the goroutine to its thread for the
// duration, so that the thread's CPU time is the pass's.
type stopwatch struct {
	wall  time.Time
	cpu   time.Duration
	cpuOK bool
}

func startWatch() stopwatch {
	runtime.LockOSThread()
	cpu, ok := threadCPU()
	return stopwatch{wall: time.Now(), cpu: cpu, cpuOK: ok}
}

// stop ends the pass, which ran the operation runs times, and returns
// the cost of one run. Without a thread clock both fields hold the wall
// time.
func (s stopwatch) stop(runs int) sample {
	wall := time.Since(s.wall)
	cpu, ok := threadCPU()
	runtime.UnlockOSThread()
	if !s.cpuOK || !ok {
		cpu = wall + s.cpu
	}
	per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(runs) }
	return sample{cpu: per(cpu - s.cpu), wall: per(wall)}
}
