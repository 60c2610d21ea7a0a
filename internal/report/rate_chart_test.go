package report_test

import (
	"math"
	"slices"
	"testing"

	"github.com/bloomcast/bloomcast/internal/report"
	"github.com/bloomcast/bloomcast/params"
)

// TestFigure4Chart: the curves pass through the seed's figures: at 8 bits
// per entry, k = 4 gives (1 − e^(−1/2))^4 = 0.0240 and the optimum, k = 6,
// 0.0216 (Mitzenmacher's table, SEEDS.md).
func TestFigure4Chart(t *testing.T) {
	c := report.Figure4Chart()
	if len(c.Series) != 2 || !c.LogY {
		t.Fatalf("%+v", c)
	}
	four, best := c.Series[0], c.Series[1]
	if len(four.X) != 32 || four.X[7] != 8 {
		t.Fatalf("x: %v", four.X)
	}
	if math.Abs(four.Y[7]-0.02397) > 5e-5 || math.Abs(best.Y[7]-0.0216) > 5e-5 {
		t.Errorf("at m/n = 8: k = 4 %.5f, optimal %.5f", four.Y[7], best.Y[7])
	}
	for i := range best.Y {
		if best.Y[i] > four.Y[i] {
			t.Errorf("m/n = %g: the optimum %g above k = 4's %g", best.X[i], best.Y[i], four.Y[i])
		}
	}
}

func TestRateByKChart(t *testing.T) {
	const n, m = 10000, 100000
	c := report.RateByKChart(n, m, 0)
	var names []string
	for _, s := range c.Series {
		names = append(names, s.Name)
	}
	if !slices.Equal(names, []string{"classic", "partitioned", "blocked", "paged"}) {
		t.Fatalf("series %v", names)
	}
	classic := c.Series[0]
	if len(classic.X) != 2*params.OptimalK(m, n) {
		t.Errorf("k runs to %d", len(classic.X))
	}
	lowest := slices.Index(classic.Y, slices.Min(classic.Y))
	if int(classic.X[lowest]) != params.OptimalK(m, n) {
		t.Errorf("the classic curve's lowest point is at k = %g, want %d", classic.X[lowest], params.OptimalK(m, n))
	}
	want := params.Shape{Layout: params.Blocked, M: 100352, K: 3, BlockBits: params.BlockedBits}.FalsePositive(n)
	if got := c.Series[2].Y[2]; got != want {
		t.Errorf("blocked at k = 3: %g, want %g", got, want)
	}
}

func TestTransmitCharts(t *testing.T) {
	res, err := params.OptimizeTransmit(params.TransmitQuery{N: 10000, BitsPerElement: 8,
		TransmitOptions: params.TransmitOptions{MaxBitsPerElement: 100}})
	if err != nil {
		t.Fatal(err)
	}
	cs := report.TransmitCharts(10000, "budget 8 bits per key", res)
	if len(cs) != 2 || len(cs[0].Series) != 2 || len(cs[1].Series) != 3 {
		t.Fatalf("%+v", cs)
	}
	if s := cs[0].Series[1]; s.Name != "standard, k = 6" || s.Y[0] != res.Uncompressed.FalsePositive {
		t.Errorf("standard filter: %+v", s)
	}
	for i, s := range res.PerK {
		if cs[0].Series[0].Y[i] != s.FalsePositive || cs[1].Series[0].Y[i] != s.TransmitPerElement {
			t.Errorf("k = %d: %+v", s.K, s)
		}
	}
}
