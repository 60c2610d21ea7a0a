package report_test

import (
	"fmt"
	"testing"

	"github.com/bloomcast/bloomcast/internal/report"
	"github.com/bloomcast/bloomcast/sim"
)

func TestNewLoopReport(t *testing.T) {
	res, err := sim.LoopDetection(sim.LoopConfig{Bits: 64, Hops: 8, LoopFraction: sim.NoLoops, Packets: 2000, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	r := report.NewLoopReport(3, sim.NoLoops, []sim.LoopResult{res})
	x := r.Results[0]
	if r.LoopFraction != 0 || x.FalseAlarmRate != res.FalseAlarmRate() || x.StdError != res.StdError() ||
		len(x.Checks) != len(res.Checks) || x.Checks[2].Model != res.Checks[2].Model || x.Looped != 0 {
		t.Errorf("%+v from %+v", r, res)
	}
}

func TestParseCompressShape(t *testing.T) {
	if b, k, err := report.ParseCompressShape("14.5:2"); b != 14.5 || k != 2 || err != nil {
		t.Errorf("14.5:2: %g, %d, %v", b, k, err)
	}
	for _, bad := range []string{"48", "48:", ":3", "x:3", "48:3.5"} {
		if _, _, err := report.ParseCompressShape(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// The paper's trial at a small size: the digests' mean size against
// m·H(p) plus the frame, as one JSON row.
func ExampleCompressRowOf() {
	res, err := sim.CompressionTrial(sim.CompressConfig{N: 2000, BitsPerKey: 14, K: 2, Trials: 3, Queries: 1000, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	row := report.CompressRowOf(res)
	fmt.Printf("m = %d, p0 = %.4f, ideal %.0f bytes + %d frame\n", row.M, row.P0, row.IdealBytes, row.FrameBytes)
	fmt.Println(row.MeanOverIdeal > 0.99 && row.MeanOverIdeal < 1.05)
	// Output:
	// m = 28000, p0 = 0.8669, ideal 1981 bytes + 64 frame
	// true
}
