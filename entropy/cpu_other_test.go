//go:build !linux

package entropy

import "time"

func threadCPU() (time.Duration, bool) { return 0, false }
