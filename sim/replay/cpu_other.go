//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package replay

import "time"

// processCPU returns the CPU time the process has used so far, as the Go
// runtime accounts it (see runtimeCPU).
func processCPU() time.Duration { return runtimeCPU() }
