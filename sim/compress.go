package sim

import (
	"errors"
	"fmt"
	"math"

	"github.com/bloomcast/bloomcast/bloom"
	bcdigest "github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/entropy"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/params"
)

// CompressConfig describes a compressed-filter trial: Trials classic
// filters of N keys at M = BitsPerKey·N bits and K probes, each with its
// own hashing seed, sent as digests with Codec (Mitzenmacher, "Compressed
// Bloom filters", its simulations: the arithmetic coder's sizes over many
// filters).
// The zero value is the defaults shown, coded with digest.Auto.
type CompressConfig struct {
	N          int     // keys per filter; default 100000
	BitsPerKey float64 // m/n; default 48
	K          int     // probes per key; default 3
	Trials     int     // filters built; default 100
	Codec      bcdigest.Codec
	// Queries is the number of absent keys queried per filter to measure
	// the false-positive rate; default 100000.
	Queries int
	Seed    uint64
}

// CompressResult is what a compressed-filter trial measured, beside what
// params predicts.
// The zero value is no result; CompressionTrial fills it.
type CompressResult struct {
	Config CompressConfig
	M      uint64
	// P0 is the expected fraction of zero bits, (1 − 1/m)^(kn).
	P0 float64
	// IdealBytes is m·H(P0)/8, the paper's size; FrameBytes the frame's
	// header, parameters and checksum, which every digest adds.
	IdealBytes float64
	FrameBytes int
	// Sizes of the whole digest, in bytes, over the trials.
	MeanBytes, StdBytes, MinBytes, MaxBytes float64
	// MeanEntropyBytes is the mean of m·H(p̂)/8 + FrameBytes, p̂ each
	// filter's own fill: the yardstick for each array.
	MeanEntropyBytes float64
	// Codecs counts the codecs the encoder used.
	Codecs map[string]int
	// PredictedFP is (1 − P0)^k; MeasuredFP the fraction of absent keys
	// reported present over all trials, FPStdErr its binomial standard
	// error at PredictedFP.
	PredictedFP, MeasuredFP, FPStdErr float64
}

// MeanOverIdeal returns MeanBytes / (IdealBytes + FrameBytes).
func (r CompressResult) MeanOverIdeal() float64 {
	return r.MeanBytes / (r.IdealBytes + float64(r.FrameBytes))
}

// ErrCompressConfig reports an invalid CompressConfig.
var ErrCompressConfig = errors.New("sim: invalid compression trial")

func (c CompressConfig) resolve() (CompressConfig, error) {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.N, 100000)
	def(&c.K, 3)
	def(&c.Trials, 100)
	def(&c.Queries, 100000)
	if c.BitsPerKey == 0 {
		c.BitsPerKey = 48
	}
	switch {
	case c.N < 1 || c.N > 1<<26, c.Trials < 1 || c.Trials > 1<<20, c.Queries < 0 || c.Queries > 1<<26:
		return c, fmt.Errorf("%w: n %d, trials %d, queries %d", ErrCompressConfig, c.N, c.Trials, c.Queries)
	case !(c.BitsPerKey >= 1 && c.BitsPerKey <= 1<<16), c.K < 1 || c.K > params.MaxK:
		return c, fmt.Errorf("%w: m/n %g, k %d", ErrCompressConfig, c.BitsPerKey, c.K)
	}
	return c, nil
}

// CompressionTrial builds the filters, encodes each as a digest, checks
// that it decodes to the same filter, and measures sizes and false
// positives.
func CompressionTrial(cfg CompressConfig) (CompressResult, error) {
	cfg, err := cfg.resolve()
	if err != nil {
		return CompressResult{}, err
	}
	m := uint64(math.Round(cfg.BitsPerKey * float64(cfg.N)))
	r := CompressResult{Config: cfg, M: m, Codecs: map[string]int{}}
	r.P0 = math.Exp(float64(cfg.K*cfg.N) * math.Log1p(-1/float64(m)))
	r.IdealBytes = float64(m) * entropy.Entropy(r.P0) / 8
	r.PredictedFP = math.Pow(1-r.P0, float64(cfg.K))
	// Members and non-members: the two halves of one key list.
	keys := Keys(cfg.Seed, cfg.N+cfg.Queries)
	members, absent := keys[:cfg.N], keys[cfg.N:]
	sizes := make([]float64, cfg.Trials)
	var entropySum float64
	var falsePositives int
	for t := range cfg.Trials {
		f, err := bloom.New(bloom.Config{M: m, K: cfg.K, Seed: cfg.Seed*1_000_003 + uint64(t)})
		if err != nil {
			return r, err
		}
		for _, k := range members {
			f.AddString(k)
		}
		size, err := r.send(f, cfg.Codec)
		if err != nil {
			return r, fmt.Errorf("trial %d: %w", t, err)
		}
		sizes[t] = float64(size)
		entropySum += float64(m)*entropy.Entropy(f.FillRatio())/8 + float64(r.FrameBytes)
		for _, k := range absent {
			if f.ContainsString(k) {
				falsePositives++
			}
		}
	}
	r.MeanBytes, r.StdBytes, r.MinBytes, r.MaxBytes = summarize(sizes)
	r.MeanEntropyBytes = entropySum / float64(cfg.Trials)
	if q := float64(cfg.Queries * cfg.Trials); q > 0 {
		r.MeasuredFP = float64(falsePositives) / q
		r.FPStdErr = math.Sqrt(r.PredictedFP * (1 - r.PredictedFP) / q)
	}
	return r, nil
}

// send encodes f as a digest, decodes it back, checks the round trip and
// returns the digest's size.
func (r *CompressResult) send(f *bloom.Filter, codec bcdigest.Codec) (int, error) {
	b, err := bcdigest.Encode(&bcdigest.Digest{Bloom: f}, codec)
	if err != nil {
		return 0, err
	}
	d, err := bcdigest.Decode(b, envelope.Limits{})
	if err != nil {
		return 0, err
	}
	if !d.Bloom.Equal(f) {
		return 0, errors.New("the digest decodes to another filter")
	}
	r.Codecs[d.Codec.String()]++
	_, body, _ := envelope.Parse(b, envelope.Limits{})
	r.FrameBytes = len(b) - len(body)
	return len(b), nil
}

// summarize returns the mean, standard deviation, minimum and maximum.
func summarize(xs []float64) (mean, std, lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		mean += x
		lo, hi = min(lo, x), max(hi, x)
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		std += (x - mean) * (x - mean)
	}
	if len(xs) > 1 {
		std = math.Sqrt(std / float64(len(xs)-1))
	}
	return mean, std, lo, hi
}
