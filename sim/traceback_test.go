package sim_test

import (
	"math"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/params"
	"github.com/bloomcast/bloomcast/sim"
)

// tracebackSizes returns routers, attacks, packets per window and windows
// for the statistical tests: smaller under the race detector, which slows
// the simulation tenfold.
func tracebackSizes() (routers, attacks, traffic, windows int) {
	if raceEnabled {
		return 60, 300, 2000, 4
	}
	return 200, 1500, 10_000, 8
}

func TestTracebackMatchesTheory(t *testing.T) {
	routers, attacks, traffic, windows := tracebackSizes()
	rates := []float64{0.005, 0.05}
	rs, err := sim.Traceback(sim.TracebackConfig{Routers: routers, Attacks: attacks, Traffic: traffic,
		Windows: windows, Rates: rates, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 3*len(rates) {
		t.Fatalf("%d results, want %d", len(rs), 3*len(rates))
	}
	for i, r := range rs {
		if kind := sim.DefaultTopologyKinds()[i/len(rates)]; r.Topology != kind || r.P != rates[i%len(rates)] {
			t.Errorf("result %d: %s at %g, want %s at %g", i, r.Topology, r.P, kind, rates[i%len(rates)])
		}
		checkTraceback(t, r)
	}
}

// checkTraceback checks one result against the model: the false branches
// are a sum of Bernoulli trials with the queried digests' rates, and a
// reconstruction is exact when none of the path's neighbours answers
// falsely.
func checkTraceback(t *testing.T, r sim.TracebackResult) {
	t.Helper()
	if d := math.Abs(float64(r.FalseBranches) - r.ExpectedFalseBranches); d > 4*r.StdError()+1 {
		t.Errorf("%s p=%g: %d false branches, expected %.1f ± %.1f", r.Topology, r.P, r.FalseBranches, r.ExpectedFalseBranches, r.StdError())
	}
	if d := math.Abs(float64(r.Successes) - r.ExpectedSuccesses); d > 4*math.Sqrt(r.SuccessVariance)+1 {
		t.Errorf("%s p=%g: %d successes, expected %.1f ± %.1f", r.Topology, r.P, r.Successes, r.ExpectedSuccesses, math.Sqrt(r.SuccessVariance))
	}
	// Each digest is sized for its router's mean load, so the rate its
	// bits give, averaged over the queries, is close to the target; and
	// params' prediction from the count agrees with the bits.
	if realized := r.ExpectedFalseBranches / float64(r.NegativeQueries); math.Abs(realized-r.P) > 0.25*r.P {
		t.Errorf("%s p=%g: queried digests' mean rate %g", r.Topology, r.P, realized)
	}
	if math.Abs(r.ModelFalseBranches-r.ExpectedFalseBranches) > 0.05*r.ExpectedFalseBranches {
		t.Errorf("%s p=%g: model %.1f, from the bits %.1f", r.Topology, r.P, r.ModelFalseBranches, r.ExpectedFalseBranches)
	}
	// A Bloom filter needs about log2(e)·log2(1/p) bits per packet.
	if ideal := params.ClassicBits(1_000_000, r.P) / 1e6; math.Abs(r.BitsPerPacket-ideal) > 0.1*ideal {
		t.Errorf("%s p=%g: %.2f bits per packet, ideal %.2f", r.Topology, r.P, r.BitsPerPacket, ideal)
	}
	if r.PathRouters < 2 || r.Queries < r.PathRouters-1 || r.NegativeQueries == 0 ||
		r.BytesPerRouterSecond <= 0 || float64(r.MaxBytesPerRouterSecond) < r.BytesPerRouterSecond {
		t.Errorf("implausible result %+v", r)
	}
	if r.Successes > r.Attacks || (r.FalseBranches == 0) != (r.Successes == r.Attacks) {
		t.Errorf("%s p=%g: %d successes of %d attacks with %d false branches", r.Topology, r.P, r.Successes, r.Attacks, r.FalseBranches)
	}
}

func TestTracebackDeterministic(t *testing.T) {
	cfg := sim.TracebackConfig{Routers: 40, Attacks: 100, Traffic: 1000, Windows: 3, Rates: []float64{0.02}, Seed: 4}
	a, err := sim.Traceback(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := sim.Traceback(cfg)
	for i := range a {
		if a[i] != b[i] {
			t.Errorf("first replay %+v\nsecond %+v", a[i], b[i])
		}
	}
	cfg.Seed = 5
	c, _ := sim.Traceback(cfg)
	if a[0] == c[0] {
		t.Error("seeds 4 and 5 give the same result")
	}
}

// TestTracebackMemory checks that a digest grows with the traffic it
// covers, and that headroom buys fewer false positives.
func TestTracebackMemory(t *testing.T) {
	tree := mustTopology(t, sim.TopologyConfig{Kind: sim.TopologyTree, Routers: 60, Seed: 1})
	run := func(traffic int, headroom float64) sim.TracebackResult {
		rs, err := sim.Traceback(sim.TracebackConfig{Topologies: []*sim.Topology{tree}, Attacks: 200,
			Traffic: traffic, Windows: 2, Ring: 2, Headroom: headroom, Rates: []float64{0.01}, Seed: 2})
		if err != nil {
			t.Fatal(err)
		}
		return rs[0]
	}
	one, two, roomy := run(5000, 0), run(10_000, 0), run(5000, 2)
	if ratio := two.BytesPerRouterSecond / one.BytesPerRouterSecond; ratio < 1.9 || ratio > 2.1 {
		t.Errorf("doubling the traffic multiplies the digests by %.3f", ratio)
	}
	if roomy.ExpectedFalseBranches/float64(roomy.NegativeQueries) > 0.2*0.01 {
		t.Errorf("digests sized for twice their load: mean rate %g, want far below 0.01",
			roomy.ExpectedFalseBranches/float64(roomy.NegativeQueries))
	}
}

// On a single link the only router a victim can ask is the attacker's, and
// the attacker's router has no other neighbour: every trace is exact.
func TestTracebackSingleLink(t *testing.T) {
	g, err := sim.ReadEdgeList(strings.NewReader("a b\n"), "link")
	if err != nil {
		t.Fatal(err)
	}
	rs, err := sim.Traceback(sim.TracebackConfig{Topologies: []*sim.Topology{g}, Attacks: 50, Traffic: 100, Rates: []float64{0.5}})
	if err != nil {
		t.Fatal(err)
	}
	r := rs[0]
	if r.PathRouters != 2 || r.Queries != 1 || r.NegativeQueries != 0 || r.FalseBranches != 0 || r.Successes != 50 || r.ExpectedSuccesses != 50 {
		t.Errorf("%+v", r)
	}
}

func TestTracebackErrors(t *testing.T) {
	split, _ := sim.ReadEdgeList(strings.NewReader("a b\nc d\n"), "split")
	big := mustTopology(t, sim.TopologyConfig{Kind: sim.TopologyTree, Routers: sim.MaxTracebackRouters + 1})
	for _, cfg := range []sim.TracebackConfig{
		{Rates: []float64{0}},
		{Rates: []float64{1}},
		{Rates: []float64{}},
		{Attacks: -1},
		{Traffic: sim.MaxTraffic + 1},
		{Headroom: -1},
		{Ring: -2},
		{Topologies: []*sim.Topology{split}},
		{Topologies: []*sim.Topology{big}},
		{Topologies: []*sim.Topology{nil}},
		{Routers: 1},
	} {
		if _, err := sim.Traceback(cfg); err == nil || !strings.HasPrefix(err.Error(), "sim: ") {
			t.Errorf("Traceback(%+v) = %v, want an error starting with \"sim: \"", cfg, err)
		}
	}
}

// TestTracebackTinyRate: a rate so small that the digests would take
// tens of GiB is refused before any is made.
func TestTracebackTinyRate(t *testing.T) {
	tree := mustTopology(t, sim.TopologyConfig{Kind: sim.TopologyTree, Routers: 5, Seed: 1})
	_, err := sim.Traceback(sim.TracebackConfig{Topologies: []*sim.Topology{tree}, Attacks: 5, Rates: []float64{1e-300}})
	if err == nil || !strings.HasPrefix(err.Error(), "sim: ") || !strings.Contains(err.Error(), "GiB") {
		t.Fatalf("Traceback at rate 1e-300 = %v, want an error about the digests' size", err)
	}
}

func TestTracebackChart(t *testing.T) {
	rs := []sim.TracebackResult{
		{Topology: "tree", P: 0.01, Attacks: 10, FalseBranches: 2, ExpectedFalseBranches: 2.5},
		{Topology: "tree", P: 0.1, Attacks: 10, FalseBranches: 0, ExpectedFalseBranches: 0.5},
		{Topology: "random", P: 0.01, Attacks: 10, FalseBranches: 1, ExpectedFalseBranches: 1.5},
	}
	c := sim.TracebackChart(rs)
	if !c.LogX || !c.LogY || len(c.Series) != 4 {
		t.Fatalf("%+v", c)
	}
	tree := c.Series[0]
	if tree.Name != "tree measured" || len(tree.X) != 2 || tree.Y[0] != 0.2 || c.Series[1].Y[1] != 0.05 || c.Series[2].Name != "random measured" {
		t.Errorf("%+v", c.Series)
	}
}
