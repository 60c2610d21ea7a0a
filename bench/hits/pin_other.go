//go:build !linux

package hits

import "errors"

// allowedCPUs reports that pinning needs Linux.
func allowedCPUs() ([]int, error) {
	return nil, errors.New("pinning needs Linux (sched_setaffinity, taskset)")
}
