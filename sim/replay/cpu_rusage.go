//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package replay

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time (user and system) the process has used
// so far, from getrusage(RUSAGE_SELF): every goroutine's, the nodes',
// the origin's and the replay's.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return runtimeCPU()
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
