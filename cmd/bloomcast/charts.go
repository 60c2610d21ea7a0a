package main

import (
	"bytes"
	"fmt"
	"math"
	"os"

	"github.com/bloomcast/bloomcast/params"
	"github.com/bloomcast/bloomcast/plot"
)

// Charts, drawn by package plot: calc --plot, table --plot and the
// simulations' --plot.

// writeCharts writes the charts stacked in one SVG file.
func writeCharts(path string, charts ...plot.Chart) error {
	var b bytes.Buffer
	if err := plot.Stack(&b, charts...); err != nil {
		return err
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return fileErr(path, err)
	}
	return nil
}

// figure4 is Figure 4 of Fan et al., "Summary cache": the false-positive
// rate (1 − e^(−k·n/m))^k against m/n, for k = 4 and for the optimal
// integral k, on a log scale.
func figure4() plot.Chart {
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
	return plot.Chart{
		Title:  "Probability of false positives (Fan et al., Figure 4)",
		XLabel: "bits per entry (m/n)", YLabel: "false-positive rate", LogY: true,
		Series: []plot.Series{
			{Name: "k = 4", X: x, Y: four, Line: true},
			{Name: "optimal k", X: x, Y: best, Line: true, Markers: true},
		},
	}
}

// rateByK draws the predicted rate of n keys in m bits against k, one
// line per layout (blocked: 512-bit blocks; paged: pages of blockBits).
func rateByK(n, m, blockBits uint64) plot.Chart {
	if blockBits == 0 {
		blockBits = params.DefaultPageBits
	}
	top := min(params.MaxK, max(8, 2*params.OptimalK(m, n)))
	c := plot.Chart{
		Title:  fmt.Sprintf("False-positive rate against k: n = %d, m = %d (%.3g bits per key)", n, m, float64(m)/float64(n)),
		XLabel: "k (probes per key)", YLabel: "false-positive rate", LogY: true,
	}
	for _, l := range []params.Layout{params.Classic, params.Partitioned, params.Blocked, params.Paged} {
		s := plot.Series{Name: l.String(), Line: true, Markers: l == params.Classic, Dashed: l == params.Paged}
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

// transmitByK draws, for calc --transmit or --compressed, the best shape of
// each k: its rate and its message in bits per key (Mitzenmacher's
// figures), with the standard filter's for reference.
func transmitByK(r calcTransmitReport) []plot.Chart {
	var k, rates, sizes, mem []float64
	for _, s := range r.PerK {
		k = append(k, float64(s.K))
		rates = append(rates, s.FalsePositiveRate)
		sizes = append(sizes, s.TransmitBitsPerKey)
		mem = append(mem, s.BitsPerKey)
	}
	q := fmt.Sprintf("budget %g bits per key", r.Budget)
	if r.Question == "target" {
		q = fmt.Sprintf("target rate %g", r.TargetP)
	}
	rate := plot.Chart{
		Title:  fmt.Sprintf("Compressed filters, n = %d, %s: rate against k", r.N, q),
		XLabel: "k", YLabel: "false-positive rate", LogY: true,
		Series: []plot.Series{{Name: "best m for each k", X: k, Y: rates, Line: true, Markers: true}},
	}
	size := plot.Chart{
		Title:  "message and memory against k",
		XLabel: "k", YLabel: "bits per key", LogY: true,
		Series: []plot.Series{
			{Name: "sent (z/n)", X: k, Y: sizes, Line: true, Markers: true},
			{Name: "memory (m/n)", X: k, Y: mem, Dashed: true},
		},
	}
	if u := r.Uncompressed; u != nil && len(k) > 0 {
		ends := []float64{k[0], k[len(k)-1]}
		rate.Series = append(rate.Series, plot.Series{Name: fmt.Sprintf("standard, k = %d", u.K), X: ends, Y: []float64{u.FalsePositiveRate, u.FalsePositiveRate}, Dashed: true})
		size.Series = append(size.Series, plot.Series{Name: "standard (m/n)", X: ends, Y: []float64{u.TransmitBitsPerKey, u.TransmitBitsPerKey}, Dashed: true, Color: plot.Palette(6)})
	}
	return []plot.Chart{rate, size}
}
