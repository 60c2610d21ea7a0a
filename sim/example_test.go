package sim_test

import (
	"fmt"
	"math"

	"github.com/bloomcast/bloomcast/params"
	"github.com/bloomcast/bloomcast/sim"
)

func ExampleKeys() {
	keys := sim.Keys(1, 4)
	members, others := keys[:2], keys[2:]
	fmt.Println(members)
	fmt.Println(others)
	// Output:
	// [https://www.prairie.dev/cedar-carbon/granite-shadow/desert/legend-basket/0.js https://www.lantern.org/falcon/harbor/raven-glacier/1.svg]
	// [https://www.quartz.edu/timber/feather/meadow-beacon/2.css https://www.velvet.edu/pebble-river/beacon/silver/blossom-cedar/3.svg]
}

// Build a classic and a blocked filter for 20 000 keys at 1% and compare
// the false positives among 20 000 other keys with the model. The counts
// depend only on the seed; the timings in the results vary from run to
// run.
func ExampleLayoutTrial() {
	results, err := sim.LayoutTrial(sim.LayoutTrialConfig{
		Keys:    20_000,
		P:       0.01,
		Seed:    1,
		Layouts: []params.Layout{params.Classic, params.Blocked},
	})
	if err != nil {
		panic(err)
	}
	for _, r := range results {
		gap := math.Abs(r.Measured-r.Predicted) / r.StdError()
		fmt.Printf("%-8v k=%d %.2f bits/key, predicted %.4f, measured within 4 standard errors: %v\n",
			r.Shape.Layout, r.Shape.K, r.BitsPerKey, r.Predicted, gap < 4)
	}
	// Output:
	// classic  k=7 9.59 bits/key, predicted 0.0100, measured within 4 standard errors: true
	// blocked  k=6 9.93 bits/key, predicted 0.0099, measured within 4 standard errors: true
}
