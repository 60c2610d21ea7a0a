//go:build !linux

package digest

import "time"

func processCPU() (time.Duration, bool) { return 0, false }
