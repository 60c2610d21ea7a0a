//go:build linux

package digest

import (
	"syscall"
	"time"
)

// processCPU is the CPU time of the process, every thread's
// (RUSAGE_SELF): a benchmark's own work and the garbage collector's.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
