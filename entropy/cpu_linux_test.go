//go:build linux

package entropy

import (
	"syscall"
	"time"
)

// threadCPU is the CPU time of the calling thread (RUSAGE_THREAD).
func threadCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(1, &ru) != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
