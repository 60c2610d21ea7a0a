package sim_test

import (
	"math"
	"testing"

	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/params"
	"github.com/bloomcast/bloomcast/sim"
)

// TestCompressionTrialPaper runs the paper's two shapes at n = 10^5: the
// arithmetic-coded digest's mean size sits within 0.5% of m·H(p) plus the
// frame, and the measured false-positive rate matches (1 − p)^k.
func TestCompressionTrialPaper(t *testing.T) {
	trials := 12
	if testing.Short() || raceEnabled {
		trials = 3
	}
	for _, s := range []struct {
		bpk float64
		k   int
	}{{48, 3}, {14, 2}} {
		r, err := sim.CompressionTrial(sim.CompressConfig{BitsPerKey: s.bpk, K: s.k, Trials: trials, Queries: 50000, Codec: digest.Arith, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if ratio := r.MeanOverIdeal(); math.Abs(ratio-1) > 0.005 {
			t.Errorf("(%g, %d): mean %.0f bytes, m·H(p) + frame %.0f: ratio %.4f", s.bpk, s.k, r.MeanBytes, r.IdealBytes+float64(r.FrameBytes), ratio)
		}
		if r.MaxBytes > r.MeanEntropyBytes*1.01 || r.MinBytes < r.IdealBytes*0.98 {
			t.Errorf("(%g, %d): sizes %.0f..%.0f", s.bpk, s.k, r.MinBytes, r.MaxBytes)
		}
		if d := math.Abs(r.MeasuredFP - r.PredictedFP); d > 4*r.FPStdErr {
			t.Errorf("(%g, %d): measured rate %.5f, predicted %.5f (± %.5f)", s.bpk, s.k, r.MeasuredFP, r.PredictedFP, r.FPStdErr)
		}
		if r.Codecs["arith"] != trials {
			t.Errorf("codecs %v", r.Codecs)
		}
	}
}

func TestCompressionTrialErrors(t *testing.T) {
	for _, c := range []sim.CompressConfig{{N: -1}, {K: 100}, {BitsPerKey: 0.5}, {Trials: -2}} {
		if _, err := sim.CompressionTrial(c); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
}

// TestCompressionSizeSD: the standard deviation of the coded digest's size
// over many filters is what params.CompressedSizeSD derives from
// occupancy, the margin calc --budget and build --budget keep.
func TestCompressionSizeSD(t *testing.T) {
	trials := 80
	if testing.Short() || raceEnabled {
		trials = 30
	}
	r, err := sim.CompressionTrial(sim.CompressConfig{N: 20000, BitsPerKey: 48, K: 3, Trials: trials, Queries: 1000, Codec: digest.Arith, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	want := params.CompressedSizeSD(params.Shape{Layout: params.Classic, M: r.M, K: 3}, 20000) / 8
	if tol := 3 / math.Sqrt(2*float64(trials)); math.Abs(r.StdBytes-want) > tol*want+0.5 {
		t.Errorf("σ of the digest's size %.2f bytes over %d filters, derived %.2f", r.StdBytes, trials, want)
	}
}
