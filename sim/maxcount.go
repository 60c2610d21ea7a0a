package sim

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/counting"
)

// MaxCountConfig describes a counter-sizing trial: Trials counting filters
// of M counters (classic layout, 16-bit counters, no bit view) each
// receive N distinct keys with K probes, every filter with its own hashing
// seed, and the largest count of each is recorded. It measures what Fan et
// al.'s asymptote (counting.ExpectedMaxCount) predicts.
//
// The zero MaxCountConfig is not valid: MaxCount reports an error, as M, N
// and K must be positive.
type MaxCountConfig struct {
	M      uint64
	N      uint64
	K      int
	Trials int // default 10
	Seed   uint64
}

// MaxCountResult is what a counter-sizing trial measured.
// The zero value is no result; MaxCount fills it.
type MaxCountResult struct {
	Config MaxCountConfig
	// Max holds each filter's largest count, Mean their mean.
	Max  []uint64
	Mean float64
}

// MaxCountLimit is the most insertions (N·K·Trials) and the most counters
// (M) a trial accepts: a few seconds of work on one core and 64 MiB of
// 16-bit counters.
const MaxCountLimit = 1 << 25

// ErrTrialTooLarge is returned by MaxCount for a trial beyond
// MaxCountLimit.
var ErrTrialTooLarge = errors.New("sim: trial too large")

// MaxCount runs a counter-sizing trial. The keys of filter t are the
// 8-byte little-endian numbers 0..N−1 hashed with seed Seed+t, so the
// trial is reproducible.
func MaxCount(c MaxCountConfig) (MaxCountResult, error) {
	if c.Trials == 0 {
		c.Trials = 10
	}
	if c.M == 0 || c.N == 0 || c.K < 1 || c.Trials < 0 {
		return MaxCountResult{}, fmt.Errorf("sim: a counter trial needs M, N, K and Trials above 0 (M = %d, N = %d, K = %d, Trials = %d)", c.M, c.N, c.K, c.Trials)
	}
	work := float64(c.N) * float64(c.K) * float64(c.Trials)
	if c.M > MaxCountLimit || work > MaxCountLimit {
		return MaxCountResult{}, fmt.Errorf("%w: M = %d and N·K·Trials = %.0f, the limit is %d each", ErrTrialTooLarge, c.M, work, MaxCountLimit)
	}
	r := MaxCountResult{Config: c, Max: make([]uint64, c.Trials)}
	var key [8]byte
	sum := 0.0
	for t := range c.Trials {
		f, err := counting.New(counting.Config{Layout: bloom.Classic, M: c.M, K: c.K, Width: 16, NoBitView: true, Seed: c.Seed + uint64(t)})
		if err != nil {
			return MaxCountResult{}, err
		}
		for i := range c.N {
			binary.LittleEndian.PutUint64(key[:], i)
			f.Add(key[:])
		}
		h := f.Histogram()
		for v := len(h) - 1; v >= 0; v-- {
			if h[v] != 0 {
				r.Max[t] = uint64(v)
				break
			}
		}
		sum += float64(r.Max[t])
	}
	r.Mean = sum / float64(c.Trials)
	return r, nil
}
