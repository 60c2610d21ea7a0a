//go:build !linux

package coders

import "time"

// threadCPU is not available here: passes fall back to wall-clock time.
func threadCPU() (time.Duration, bool) { return 0, false }
