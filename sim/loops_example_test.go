package sim_test

import (
	"fmt"
	"math"
	"os"

	"github.com/bloomcast/bloomcast/sim"
)

// Send 50 000 packets over 16 routers with a 128-bit filter in each
// header; one packet in ten meets a routing loop.
func ExampleLoopDetection() {
	r, err := sim.LoopDetection(sim.LoopConfig{Bits: 128, Hops: 16, Packets: 50_000, Seed: 1})
	if err != nil {
		panic(err)
	}
	gap := math.Abs(r.FalseAlarmRate()-r.PathFalseAlarm) / r.StdError()
	fmt.Printf("%d header bytes, k = %d, loops caught: %.0f%%\n", r.HeaderBytes, r.K, 100*r.DetectionRate())
	fmt.Printf("model: %.1f%% of loop-free packets dropped; measured within 4 standard errors: %v\n",
		100*r.PathFalseAlarm, gap < 4)
	// Output:
	// 16 header bytes, k = 7, loops caught: 100%
	// model: 5.4% of loop-free packets dropped; measured within 4 standard errors: true
}

// The exact false-alarm model for a 64-bit filter and masks of 4 bits:
// the chance of a false alarm at each router grows as the filter fills.
func ExampleNewLoopModel() {
	lm, err := sim.NewLoopModel(64, 4, 16)
	if err != nil {
		panic(err)
	}
	for _, h := range []int{1, 5, 10, 15} {
		fmt.Printf("%2d routers passed: %.2g\n", h, lm.PerCheck[h])
	}
	fmt.Printf("loop-free packets dropped over 16 routers: %.3f\n", lm.PathFalseAlarm(16))
	// Output:
	//  1 routers passed: 1.6e-06
	//  5 routers passed: 0.0046
	// 10 routers passed: 0.048
	// 15 routers passed: 0.15
	// loop-free packets dropped over 16 routers: 0.505
}

// The report "bloomcast sim loops --bits 64 --hops 4 --packets 2000"
// prints.
func ExampleLoopReport_WriteText() {
	x, err := sim.LoopDetection(sim.LoopConfig{Bits: 64, Hops: 4, Packets: 2000, Seed: 1})
	if err != nil {
		panic(err)
	}
	r := sim.NewLoopReport(1, sim.DefaultLoopFraction, []sim.LoopResult{x})
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
