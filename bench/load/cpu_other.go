//go:build !unix

package load

import "time"

// processCPU is not available here: CPU per request reads 0.
func processCPU() time.Duration { return 0 }
