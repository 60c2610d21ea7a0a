package report_test

import (
	"os"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/internal/report"
	"github.com/bloomcast/bloomcast/scalable"
	"github.com/bloomcast/bloomcast/sim"
)

// Grow a scalable filter from 100 to 10^4 keys and print its rate and
// memory at each point.
func ExampleWriteGrowthText() {
	r, err := sim.ScalableGrowth(sim.GrowthConfig{
		Filter: scalable.Config{Capacity: 100, P: 0.01, Expansion: 2, Tightening: 0.5, Seed: 1},
		Keys:   10000, Probes: 10000,
	})
	if err != nil {
		panic(err)
	}
	if err := report.WriteGrowthText(os.Stdout, r); err != nil {
		panic(err)
	}
	// Output:
	// s = 2, r = 0.5, blocked layers, first for 100 keys, target 0.01000
	//       keys  layers     measured    predicted  bytes/key   presized
	//        100       1     0.003600     0.003133      1.920      1.280
	//        178       2     0.003700     0.003176      3.236      1.438
	//        316       3     0.005500     0.005133      4.253      1.418
	//        562       3     0.005500     0.005260      2.391      1.253
	//       1000       4     0.006400     0.006361      3.072      1.280
	//       1778       5     0.007100     0.006935      3.852      1.260
	//       3162       6     0.007400     0.007246      4.817      1.255
	//       5623       6     0.007500     0.007273      2.709      1.241
	//      10000       7     0.007800     0.007395      3.354      1.242
}

func TestLayoutTrialReportText(t *testing.T) {
	cfg := sim.LayoutTrialConfig{Keys: 2000, P: 0.01, Seed: 1}
	res, err := sim.LayoutTrial(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := report.NewLayoutTrialReport(cfg, res)
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 1+len(r.Results) || !strings.HasPrefix(lines[0], "layout ") || !strings.HasSuffix(lines[0], "encoded") {
		t.Errorf("table:\n%s", b.String())
	}
	if g := r.LargestGap(); !(g >= 0 && g < 10) {
		t.Errorf("largest gap %g standard errors", g)
	}
	if c, ok := r.BlockedCost(); !ok || !(c > -0.5 && c < 1) {
		t.Errorf("blocked cost %g %v", c, ok)
	}
	if r.LargestEncoding() <= 0 {
		t.Error("no encoding size")
	}
	var empty report.LayoutTrialReport
	if _, ok := empty.BlockedCost(); ok || empty.LargestGap() != 0 || empty.LargestEncoding() != 0 {
		t.Error("an empty report has figures")
	}
	if r.WriteText(failWriter{}) == nil {
		t.Error("a failed write returned no error")
	}
}

func TestWriteCompressText(t *testing.T) {
	r, err := sim.CompressionTrial(sim.CompressConfig{N: 1000, BitsPerKey: 16, K: 4, Trials: 2, Queries: 1000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := report.WriteCompressText(&b, []report.CompressRow{report.CompressRowOf(r)}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	if !strings.HasPrefix(lines[0], "m/n  k     n") || !strings.HasPrefix(lines[1], "16   4  1000") || lines[3] != "sizes in bytes, whole digests (header, parameters, payload, CRC-32C)" {
		t.Errorf("text:\n%s", b.String())
	}
	if report.WriteCompressText(failWriter{}, nil) == nil {
		t.Error("a failed write returned no error")
	}
}
