package compare

import (
	"runtime"
	"time"
)

// The clocks a report can use.
const (
	// ClockCPU charges a pass with the CPU time of the thread that ran it
	// (Linux; elsewhere it falls back to ClockWall). On a shared machine
	// it leaves out the stretches when another process had the core,
	// though not the slowdown from a neighbour's use of caches and memory.
	ClockCPU = "cpu"
	// ClockWall charges a pass with elapsed time.
	ClockWall = "wall"
)

// sample is one pass's cost per key on both clocks, in nanoseconds.
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

// stop ends the pass and returns its cost per key. Without a thread
// clock both fields hold the wall time.
func (s stopwatch) stop(keys int) sample {
	wall := time.Since(s.wall)
	cpu, ok := threadCPU()
	runtime.UnlockOSThread()
	if !s.cpuOK || !ok {
		cpu = wall + s.cpu
	}
	per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(keys) }
	return sample{cpu: per(cpu - s.cpu), wall: per(wall)}
}

// newTiming summarises a phase's samples on the chosen clock, keeping
// the wall-clock samples alongside.
func newTiming(samples []sample, clock string) Timing {
	cpu, wall := make([]float64, len(samples)), make([]float64, len(samples))
	for i, s := range samples {
		cpu[i], wall[i] = s.cpu, s.wall
	}
	t := Timing{Samples: cpu, WallMedian: median(wall), WallSamples: wall}
	if clock == ClockWall {
		t.Samples = wall
	}
	t.Median = median(t.Samples)
	return t
}
