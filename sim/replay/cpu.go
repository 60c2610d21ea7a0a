package replay

import (
	"runtime/metrics"
	"time"
)

// runtimeCPU is the Go runtime's own estimate of the CPU time spent
// running Go code and the garbage collector (runtime/metrics), where
// getrusage is not available.
func runtimeCPU() time.Duration {
	s := []metrics.Sample{{Name: "/cpu/classes/user:cpu-seconds"}, {Name: "/cpu/classes/gc/total:cpu-seconds"}}
	metrics.Read(s)
	var sec float64
	for _, x := range s {
		if x.Value.Kind() == metrics.KindFloat64 {
			sec += x.Value.Float64()
		}
	}
	return time.Duration(sec * float64(time.Second))
}
