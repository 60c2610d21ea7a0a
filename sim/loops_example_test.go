package sim_test

import (
	"fmt"
	"math"

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
