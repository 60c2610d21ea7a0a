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

// Sample is one pass's cost per unit (a key, a run of an operation) on
// both clocks, in nanoseconds.
type Sample struct{ CPU, Wall float64 }

// Stopwatch times one pass. It locks the goroutine to its thread for the
// duration, so that the thread's CPU time is the pass's.
type Stopwatch struct {
	wall  time.Time
	cpu   time.Duration
	cpuOK bool
}

// StartWatch starts timing a pass on the calling goroutine.
func StartWatch() Stopwatch {
	runtime.LockOSThread()
	cpu, ok := threadCPU()
	return Stopwatch{wall: time.Now(), cpu: cpu, cpuOK: ok}
}

// Stop ends the pass, which did units of work, and returns its cost per
// unit. Without a thread clock both fields hold the wall time.
func (s Stopwatch) Stop(units int) Sample {
	wall := time.Since(s.wall)
	cpu, ok := threadCPU()
	runtime.UnlockOSThread()
	if !s.cpuOK || !ok {
		cpu = wall + s.cpu
	}
	per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(units) }
	return Sample{CPU: per(cpu - s.cpu), Wall: per(wall)}
}

// newTiming summarises a phase's samples on the chosen clock, keeping
// the wall-clock samples alongside.
func newTiming(samples []Sample, clock string) Timing {
	cpu, wall := make([]float64, len(samples)), make([]float64, len(samples))
	for i, s := range samples {
		cpu[i], wall[i] = s.CPU, s.Wall
	}
	t := Timing{Samples: cpu, WallMedian: Median(wall), WallSamples: wall}
	if clock == ClockWall {
		t.Samples = wall
	}
	t.Median = Median(t.Samples)
	return t
}
