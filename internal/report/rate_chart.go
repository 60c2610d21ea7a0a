package report

import (
	"fmt"
	"math"

	"github.com/bloomcast/bloomcast/params"
	"github.com/bloomcast/bloomcast/plot"
	"github.com/bloomcast/bloomcast/sim"
)

// Charts of the seeds' false-positive curves, computed with package
// params: what "bloomcast table --plot" and "calc --plot" draw.

// Figure4Chart is Figure 4 of Fan, Cao, Almeida and Broder, "Summary
// cache": the false-positive rate (1 − e^(−k·n/m))^k against m/n = 1..32,
// for k = 4 and for the optimal integral k, on a log scale.
func Figure4Chart() sim.Chart {
	var x, four, best []float64
	for bpk := 1; bpk <= 32; bpk++ {
		r := float64(bpk)
		rate := func(k int) float64 { return math.Pow(-math.Expm1(-float64(k)/r), float64(k)) }
		x = append(x, r)
		four = append(four, rate(4))
		opt := math.Inf(1)
		for k := 1; k <= params.MaxK; k++ {
			opt = math.Min(opt, rate(k))
		}
		best = append(best, opt)
	}
	return sim.Chart{
		Title:  "Probability of false positives (Fan et al., Figure 4)",
		XLabel: "bits per entry (m/n)", YLabel: "false-positive rate", LogY: true,
		Series: []sim.Series{
			{Name: "k = 4", X: x, Y: four, Line: true},
			{Name: "optimal k", X: x, Y: best, Line: true, Markers: true},
		},
	}
}

// RateByKChart draws the predicted false-positive rate of n keys in m
// bits (params.Shape.FalsePositive) against k, one line per layout:
// classic, partitioned, blocked (512-bit blocks) and paged (pages of
// blockBits; 0 means params.DefaultPageBits), m rounded up to a multiple
// of 64 bits, of 64·k, of the block and of the page. k runs from 1 to
// twice the classic optimum (at least 8, at most params.MaxK).
func RateByKChart(n, m, blockBits uint64) sim.Chart {
	if blockBits == 0 {
		blockBits = params.DefaultPageBits
	}
	top := min(params.MaxK, max(8, 2*params.OptimalK(m, n)))
	c := sim.Chart{
		Title:  fmt.Sprintf("False-positive rate against k: n = %d, m = %d (%.3g bits per key)", n, m, float64(m)/float64(n)),
		XLabel: "k (probes per key)", YLabel: "false-positive rate", LogY: true,
	}
	for _, l := range []params.Layout{params.Classic, params.Partitioned, params.Blocked, params.Paged} {
		s := sim.Series{Name: l.String(), Line: true, Markers: l == params.Classic, Dashed: l == params.Paged}
		for k := 1; k <= top; k++ {
			sh := params.Shape{Layout: l, M: m, K: k}
			switch l {
			case params.Partitioned:
				sh.M = (m + 64*uint64(k) - 1) / (64 * uint64(k)) * 64 * uint64(k)
			case params.Blocked:
				sh.BlockBits = params.BlockedBits
				sh.M = (m + params.BlockedBits - 1) / params.BlockedBits * params.BlockedBits
			case params.Paged:
				sh.BlockBits = blockBits
				sh.M = (m + blockBits - 1) / blockBits * blockBits
			default:
				sh.M = (m + 63) / 64 * 64
			}
			if f := sh.FalsePositive(n); f > 0 && !math.IsNaN(f) {
				s.X = append(s.X, float64(k))
				s.Y = append(s.Y, f)
			}
		}
		if len(s.X) > 0 {
			c.Series = append(c.Series, s)
		}
	}
	return c
}

// TransmitCharts draws the compressed-filter optimiser's answer for n
// keys (params.OptimizeTransmit or OptimizeTarget): the best shape of
// each k, its rate in one chart and its message and memory in bits per
// key in the other (Mitzenmacher, "Compressed Bloom filters"), with the
// standard filter's for reference. question says what the shapes were
// chosen for, such as "budget 8 bits per key"; it goes in the title.
func TransmitCharts(n uint64, question string, res params.TransmitResult) []sim.Chart {
	var k, rates, sizes, mem []float64
	for _, s := range res.PerK {
		k = append(k, float64(s.K))
		rates = append(rates, s.FalsePositive)
		sizes = append(sizes, s.TransmitPerElement)
		mem = append(mem, s.BitsPerElement)
	}
	rate := sim.Chart{
		Title:  fmt.Sprintf("Compressed filters, n = %d, %s: rate against k", n, question),
		XLabel: "k", YLabel: "false-positive rate", LogY: true,
		Series: []sim.Series{{Name: "best m for each k", X: k, Y: rates, Line: true, Markers: true}},
	}
	size := sim.Chart{
		Title:  "message and memory against k",
		XLabel: "k", YLabel: "bits per key", LogY: true,
		Series: []sim.Series{
			{Name: "sent (z/n)", X: k, Y: sizes, Line: true, Markers: true},
			{Name: "memory (m/n)", X: k, Y: mem, Dashed: true},
		},
	}
	if u := res.Uncompressed; u.M != 0 && len(k) > 0 {
		ends := []float64{k[0], k[len(k)-1]}
		rate.Series = append(rate.Series, sim.Series{Name: fmt.Sprintf("standard, k = %d", u.K), X: ends, Y: []float64{u.FalsePositive, u.FalsePositive}, Dashed: true})
		size.Series = append(size.Series, sim.Series{Name: "standard (m/n)", X: ends, Y: []float64{u.TransmitPerElement, u.TransmitPerElement}, Dashed: true, Color: plot.Palette(6)})
	}
	return []sim.Chart{rate, size}
}
