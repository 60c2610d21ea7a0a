package compare

import (
	"fmt"
	"math"
)

// Contender names the ratio checks refer to.
const (
	NameClassic       = "bloomcast classic"
	NameBlocked       = "bloomcast blocked"
	NameBlocked64     = "bloomcast blocked, xxh3-64"
	NameBitsAndBlooms = "bits-and-blooms/bloom/v3"
	NameHoliman       = "holiman/bloomfilter/v2"
	NameBlobloom      = "greatroar/blobloom"
	NameBlobloomEq    = "greatroar/blobloom, blocked's bits"
	NameRibbon        = "bloomcast ribbon"
)

// BloomcastNames returns the bloomcast rows' names, one per layout.
func BloomcastNames() []string {
	return []string{NameClassic, "bloomcast partitioned", NameBlocked, "bloomcast paged"}
}

// The member counts at which Checks sets speed targets: one filter that
// fits in the L2 cache, one far larger than any L2.
const (
	SmallN = 100_000
	LargeN = 20_000_000
)

// Check is one target ratio, computed from the measured medians.
type Check struct {
	What   string  `json:"what"`
	N      int     `json:"n"`
	P      float64 `json:"p"`
	Value  float64 `json:"value"`
	Unit   string  `json:"unit"` // "×" for speedups and size ratios, "" otherwise
	AtMost bool    `json:"at_most"`
	Target float64 `json:"target"` // zero: informational, no verdict
	// Paired is, for a speedup whose two timings come from the same
	// phase, the median over rounds of the per-round speedup; zero
	// otherwise. The verdict uses Value, the ratio of the medians.
	Paired float64 `json:"paired,omitempty"`
}

// Pass reports whether the value meets the target; informational checks
// always pass.
func (c Check) Pass() bool {
	switch {
	case c.Target == 0:
		return true
	case c.AtMost:
		return c.Value <= c.Target
	}
	return c.Value >= c.Target
}

// Verdict is "PASS", "FAIL", or "info" for a check without a target.
func (c Check) Verdict() string {
	switch {
	case c.Target == 0:
		return "info"
	case c.Pass():
		return "PASS"
	}
	return "FAIL"
}

// TargetString renders the target as "≥ 3×" or "≤ 1.1".
func (c Check) TargetString() string {
	if c.Target == 0 {
		return "—"
	}
	op := "≥"
	if c.AtMost {
		op = "≤"
	}
	return fmt.Sprintf("%s %g%s", op, c.Target, c.Unit)
}

// Checks computes the target ratios for every case of r: bloomcast's
// speed against the other libraries and each measured false-positive rate
// against its target (docs/BENCHMARKS.md states the results). A check
// whose rows are missing from the report is left out.
func Checks(r *Report) []Check {
	var out []Check
	for _, c := range r.Cases {
		out = append(out, speedChecks(r, c.N, c.P)...)
		out = append(out, holimanChecks(r, c.N, c.P)...)
		out = append(out, blobloomChecks(r, c.N, c.P)...)
		out = append(out, rateChecks(r, c.N, c.P)...)
	}
	return out
}

// speedCheck fills c with how many times faster a (bloomcast) is than b:
// b's median time over a's. When both timings come from the same phase,
// each round ran the two passes close together, so it also gives the
// median of the per-round ratios, which a slow stretch of a shared
// machine moves much less, as it slows both sides of a ratio alike.
func speedCheck(c Check, a, b Timing, sameRounds bool) Check {
	c.Value, c.Unit = b.Median/a.Median, "×"
	if sameRounds && len(a.Samples) == len(b.Samples) {
		ratios := make([]float64, len(a.Samples))
		for i := range ratios {
			ratios[i] = b.Samples[i] / a.Samples[i]
		}
		c.Paired = Median(ratios)
	}
	return c
}

func speedChecks(r *Report, n int, p float64) []Check {
	bl, ok1 := r.Find(NameBlocked, n, p)
	bb, ok2 := r.Find(NameBitsAndBlooms, n, p)
	if !ok1 || !ok2 {
		return nil
	}
	vs := "blocked vs bits-and-blooms: "
	mk := func(what string, a, b Timing, sameRounds bool, target float64) Check {
		return speedCheck(Check{What: vs + what, N: n, P: p, Target: target}, a, b, sameRounds)
	}
	switch n {
	case SmallN:
		return []Check{
			mk("hit speedup", bl.Hit, bb.Hit, true, 3),
			mk("miss speedup", bl.Miss, bb.Miss, true, 3),
			mk("add speedup", bl.Add, bb.Add, true, 3),
		}
	case LargeN:
		out := []Check{
			mk("single hit speedup", bl.Hit, bb.Hit, true, 2.5),
			mk("single miss speedup", bl.Miss, bb.Miss, true, 1.8),
		}
		if bl.BatchHit != nil && bl.BatchMiss != nil {
			out = append(out,
				mk("batch hit vs its single hit", *bl.BatchHit, bb.Hit, false, 4),
				mk("batch miss vs its single miss", *bl.BatchMiss, bb.Miss, false, 4))
		}
		return out
	}
	return nil
}

// blobloomChecks compares the blocked layout, under each hashing scheme
// measured, with blobloom, the other blocked Bloom filter in Go, at
// blobloom's own sizing and at the blocked layout's memory (target: at
// least as fast, at a rate no worse at equal memory).
func blobloomChecks(r *Report, n int, p float64) []Check {
	var out []Check
	for _, ours := range []struct{ name, label string }{{NameBlocked, "blocked"}, {NameBlocked64, "blocked, xxh3-64,"}} {
		bl, ok := r.Find(ours.name, n, p)
		if !ok {
			continue
		}
		for _, name := range []string{NameBlobloom, NameBlobloomEq} {
			bb, ok := r.Find(name, n, p)
			if !ok {
				continue
			}
			vs := ours.label + " vs " + name + ": "
			for _, c := range []struct {
				what string
				a, b Timing
			}{{"hit speedup", bl.Hit, bb.Hit}, {"miss speedup", bl.Miss, bb.Miss}, {"add speedup", bl.Add, bb.Add}} {
				out = append(out, speedCheck(Check{What: vs + c.what, N: n, P: p, Target: 1}, c.a, c.b, true))
			}
			out = append(out, Check{What: vs + "its bits/key", N: n, P: p, Value: bb.BitsPerKey})
			if name == NameBlobloomEq && bb.Rate > 0 {
				out = append(out, Check{What: vs + "blocked's rate / its rate", N: n, P: p, Value: bl.Rate / bb.Rate, Unit: "×", AtMost: true,
					Target: rateRatioBound(bl.FalsePositives, bb.FalsePositives)})
			}
		}
	}
	return out
}

// rateRatioBound is the largest ratio of two measured false-positive
// rates that still says "no worse": 1 plus three standard errors of the
// ratio. Each count of false positives is nearly Poisson (many queries,
// a small rate), so the ratio's relative standard error is
// sqrt(1/a + 1/b). Two filters with equal rates exceed the bound by chance
// once in about 740 comparisons; with 10^4 false positives on each side the
// bound is 1.042. Without counts
// (reports from before they were recorded) the bound is exactly 1.
func rateRatioBound(a, b int) float64 {
	if a <= 0 || b <= 0 {
		return 1
	}
	se := math.Sqrt(1/float64(a) + 1/float64(b))
	return math.Round((1+3*se)*1000) / 1000
}

func holimanChecks(r *Report, n int, p float64) []Check {
	cl, ok1 := r.Find(NameClassic, n, p)
	ho, ok2 := r.Find(NameHoliman, n, p)
	if !ok1 || !ok2 {
		return nil
	}
	vs := "classic vs holiman: "
	check := func(what string) Check { return Check{What: vs + what, N: n, P: p} }
	speed := func(what string, a, b Timing) Check {
		c := check(what)
		c.Target = 1
		return speedCheck(c, a, b, true)
	}
	size := func(what string, v float64) Check {
		c := check(what)
		c.Value = v
		return c
	}
	return []Check{
		speed("hit speedup", cl.Hit, ho.Hit),
		speed("miss speedup", cl.Miss, ho.Miss),
		speed("add speedup", cl.Add, ho.Add),
		size("classic bits/key", cl.BitsPerKey),
		size("holiman bits/key", ho.BitsPerKey),
	}
}

func rateChecks(r *Report, n int, p float64) []Check {
	var out []Check
	for _, name := range BloomcastNames() {
		if res, ok := r.Find(name, n, p); ok {
			out = append(out, Check{What: name + ": measured rate / target",
				N: n, P: p, Value: res.Rate / res.Target, AtMost: true, Target: 1.1})
		}
	}
	bl, ok1 := r.Find(NameBlocked, n, p)
	cl, ok2 := r.Find(NameClassic, n, p)
	if ok1 && ok2 {
		out = append(out, Check{What: "blocked bits/key ÷ classic bits/key",
			N: n, P: p, Value: bl.BitsPerKey / cl.BitsPerKey, Unit: "×", AtMost: true, Target: 1.15})
	}
	return out
}
