package sim_test

import (
	"fmt"
	"math"

	"github.com/bloomcast/bloomcast/sim"
)

// Trace 500 attack packets through a 200-router power-law graph whose
// routers keep digests sized for a 1% false-positive rate, and compare the
// false branches of the reconstructed attack graphs with the expectation
// from the digests' rates.
func ExampleTraceback() {
	rs, err := sim.Traceback(sim.TracebackConfig{
		Topologies: []*sim.Topology{mustGenerate(sim.TopologyPowerLaw, 200)},
		Rates:      []float64{0.01},
		Attacks:    500,
		Traffic:    5000, // packets per second, network-wide
		Seed:       1,
	})
	if err != nil {
		panic(err)
	}
	r := rs[0]
	gap := math.Abs(float64(r.FalseBranches)-r.ExpectedFalseBranches) / r.StdError()
	fmt.Printf("%s: %.0f bits of digest per packet\n", r.Topology, r.BitsPerPacket)
	fmt.Println("false branches within 4 standard errors of expected:", gap < 4)
	fmt.Println("most attacks traced to their source alone:", r.SuccessRate() > 0.5)
	// Output:
	// powerlaw: 10 bits of digest per packet
	// false branches within 4 standard errors of expected: true
	// most attacks traced to their source alone: true
}

func mustGenerate(kind string, routers int) *sim.Topology {
	g, err := sim.NewTopology(sim.TopologyConfig{Kind: kind, Routers: routers, Seed: 1})
	if err != nil {
		panic(err)
	}
	return g
}
