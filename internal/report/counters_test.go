package report_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/bloomcast/bloomcast/internal/report"
	"github.com/bloomcast/bloomcast/sim"
)

// Size the counters of a counting filter and check the expected maximum
// count against real filters.
func ExampleNewCounterReport() {
	r, err := report.NewCounterReport(100000, 10000, 0, 2, 1, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("k =", r.K, "trials:", r.Trials, "smallest safe width:", r.SmallestWidth, "bits")
	// Output:
	// k = 7 trials: 2 smallest safe width: 4 bits
}

// The report "bloomcast sim loops --bits 64 --hops 4 --packets 2000"
// prints.
func ExampleLoopReport_WriteText() {
	x, err := sim.LoopDetection(sim.LoopConfig{Bits: 64, Hops: 4, Packets: 2000, Seed: 1})
	if err != nil {
		panic(err)
	}
	r := report.NewLoopReport(1, sim.DefaultLoopFraction, []sim.LoopResult{x})
	if err := r.WriteText(os.Stdout); err != nil {
		panic(err)
	}
	// Output:
	// bloomcast sim loops: 2000 packets per filter size over 4 routers, 10.0% with a loop, seed 1
	//
	// bits   k  header  false alarms      model    classic  loops caught  early  routers/loop
	// 64    12     8 B         0.000  3.184e-05  4.108e-05        100.0%      0           3.9
	//
	// routers passed  64 bits      model
	// 1                 0.000  3.045e-13
	// 2                 0.000  2.321e-07
	// 3                 0.000  3.161e-05
	//
	// "false alarms" is the share of loop-free packets dropped as looped; "model"
	// is the exact probability for masks of k distinct bits, "classic" the
	// textbook Bloom-filter estimate (1−e^(−kh/m))^k per router, which treats a
	// mask's k bits as independent throws and forgets that a packet still
	// travelling has passed its earlier checks. Measured and model agree within
	// sampling noise (largest gap 0.2 standard errors). A Bloom filter has no
	// false negatives, so every looped packet is caught, at the latest when it
	// returns to a router ("early" counts those stopped sooner by a false alarm);
	// a looped packet crossed 3.9 routers on average instead of the 64 its TTL
	// would allow. The filter costs the header bytes shown in every packet, where
	// recording the 4 routers' IPv4 addresses would take 16 bytes. The table above
	// gives the false-alarm rate at each new router, measured and modelled.
}

func TestCounterReport(t *testing.T) {
	r, err := report.NewCounterReport(10000, 1000, 0, 3, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.K != 7 || r.Trials != 3 || r.SimulatedMax == nil || len(r.SimulatedMaxima) != 3 || r.Seed != 1 {
		t.Errorf("report %+v", r)
	}
	if r, err = report.NewCounterReport(10000, 1000, 4, 10, 1, 8000); err != nil || r.Trials != 2 {
		t.Errorf("work 8000 at n·k = 4000: %d trials, %v", r.Trials, err)
	}
	if r, err = report.NewCounterReport(1<<26, 1000, 4, 10, 1, 0); err != nil || r.SimulatedMax != nil || r.SimulatedMaxima == nil {
		t.Errorf("beyond the limit: %+v, %v", r, err)
	}
}
