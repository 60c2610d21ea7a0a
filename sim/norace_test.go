//go:build !race

package sim_test

// raceEnabled is true under the race detector, which slows the trials
// down tenfold.
const raceEnabled = false
