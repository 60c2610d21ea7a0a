package sim_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/sim"
)

func TestNewTopologyShapes(t *testing.T) {
	const n = 500
	want := map[string]int{ // links
		sim.TopologyTree:     n - 1,
		sim.TopologyRandom:   n * sim.DefaultDegree / 2,
		sim.TopologyPowerLaw: 3 + (n-3)*2, // a triangle, then two links per router
	}
	maxDeg := map[string]int{}
	for kind, links := range want {
		g, err := sim.NewTopology(sim.TopologyConfig{Kind: kind, Routers: n, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		if g.Name != kind || g.Routers() != n || g.Links() != links || !g.Connected() {
			t.Errorf("%s: name %q, %d routers, %d links (want %d), connected %v", kind, g.Name, g.Routers(), g.Links(), links, g.Connected())
		}
		checkSimple(t, g)
		maxDeg[kind] = g.MaxDegree()
	}
	// Preferential attachment grows hubs: the largest degree of a
	// Barabási–Albert graph grows as √n, a random graph's as log n.
	if maxDeg[sim.TopologyPowerLaw] < 2*maxDeg[sim.TopologyRandom] {
		t.Errorf("largest degrees: power-law %d, random %d; want a hub", maxDeg[sim.TopologyPowerLaw], maxDeg[sim.TopologyRandom])
	}
}

// checkSimple checks that g is undirected, without self-links or repeated
// links.
func checkSimple(t *testing.T, g *sim.Topology) {
	t.Helper()
	for r := range g.Routers() {
		nb := g.Neighbors(r)
		if len(nb) != g.Degree(r) {
			t.Fatalf("%s: router %d: %d neighbours, degree %d", g.Name, r, len(nb), g.Degree(r))
		}
		sorted := slices.Clone(nb)
		slices.Sort(sorted)
		if len(slices.Compact(sorted)) != len(nb) || slices.Contains(nb, r) {
			t.Fatalf("%s: router %d: neighbours %v", g.Name, r, nb)
		}
		for _, v := range nb {
			if !slices.Contains(g.Neighbors(v), r) {
				t.Fatalf("%s: link %d–%d is one-way", g.Name, r, v)
			}
		}
	}
}

func TestNewTopologyDeterministic(t *testing.T) {
	for _, kind := range sim.DefaultTopologyKinds() {
		a := mustTopology(t, sim.TopologyConfig{Kind: kind, Routers: 200, Seed: 5})
		b := mustTopology(t, sim.TopologyConfig{Kind: kind, Routers: 200, Seed: 5})
		c := mustTopology(t, sim.TopologyConfig{Kind: kind, Routers: 200, Seed: 6})
		if !sameGraph(a, b) {
			t.Errorf("%s: same seed, different graphs", kind)
		}
		if sameGraph(a, c) {
			t.Errorf("%s: seeds 5 and 6 give the same graph", kind)
		}
	}
	if g := mustTopology(t, sim.TopologyConfig{}); g.Name != sim.TopologyRandom || g.Routers() != sim.DefaultRouters {
		t.Errorf("zero config: %s with %d routers", g.Name, g.Routers())
	}
}

func mustTopology(t *testing.T, c sim.TopologyConfig) *sim.Topology {
	t.Helper()
	g, err := sim.NewTopology(c)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func sameGraph(a, b *sim.Topology) bool {
	if a.Routers() != b.Routers() {
		return false
	}
	for r := range a.Routers() {
		if !slices.Equal(a.Neighbors(r), b.Neighbors(r)) {
			return false
		}
	}
	return true
}

// TestNewTopologySmall: every kind takes every size from 2 routers, as
// TopologyConfig says; below DefaultDegree+1 routers the default degree
// links every pair (a tree stays a tree).
func TestNewTopologySmall(t *testing.T) {
	for _, kind := range []string{sim.TopologyTree, sim.TopologyRandom, sim.TopologyPowerLaw} {
		for n := 2; n <= sim.DefaultDegree+1; n++ {
			topo, err := sim.NewTopology(sim.TopologyConfig{Kind: kind, Routers: n, Seed: 1})
			if err != nil {
				t.Errorf("%s of %d routers: %v", kind, n, err)
				continue
			}
			if topo.Routers() != n || !topo.Connected() {
				t.Errorf("%s of %d routers: %d routers, connected %v", kind, n, topo.Routers(), topo.Connected())
			}
			if kind == sim.TopologyRandom && n <= sim.DefaultDegree && topo.Links() != n*(n-1)/2 {
				t.Errorf("random of %d routers: %d links, want every pair", n, topo.Links())
			}
		}
	}
}

func TestNewTopologyErrors(t *testing.T) {
	for _, c := range []sim.TopologyConfig{
		{Routers: 1},
		{Routers: sim.MaxRouters + 1},
		{Routers: -3},
		{Kind: "ring"},
		{Routers: 10, Degree: 10},
		{Degree: 1},
	} {
		if _, err := sim.NewTopology(c); err == nil || !strings.HasPrefix(err.Error(), "sim: ") {
			t.Errorf("NewTopology(%+v) = %v, want an error starting with \"sim: \"", c, err)
		}
	}
}

func TestReadEdgeList(t *testing.T) {
	in := `# a small network
core edge1
core edge2   # trailing comment
edge1 core
	edge2  edge3

core edge1
`
	g, err := sim.ReadEdgeList(strings.NewReader(in), "small.txt")
	if err != nil {
		t.Fatal(err)
	}
	if g.Name != "small.txt" || g.Routers() != 4 || g.Links() != 3 || !g.Connected() {
		t.Fatalf("%s: %d routers, %d links, connected %v", g.Name, g.Routers(), g.Links(), g.Connected())
	}
	var names []string
	for _, v := range g.Neighbors(0) {
		names = append(names, g.RouterName(v))
	}
	if g.RouterName(0) != "core" || !slices.Equal(names, []string{"edge1", "edge2"}) {
		t.Errorf("router 0 %q, neighbours %q", g.RouterName(0), names)
	}
	checkSimple(t, g)

	split, err := sim.ReadEdgeList(strings.NewReader("a b\nc d\n"), "split")
	if err != nil || split.Connected() {
		t.Errorf("two separate links: connected %v, err %v", split.Connected(), err)
	}
}

func TestReadEdgeListErrors(t *testing.T) {
	for in, want := range map[string]string{
		"a b c\n":        "sim: bad:1: want two router names, found 3 words",
		"a b\nb b\n":     `sim: bad:2: router "b" linked to itself`,
		"# nothing\n\n":  "sim: bad: no links",
		"a\n":            "sim: bad:1: want two router names, found 1 words",
		tooManyRouters(): fmt.Sprintf("more than %d routers", sim.MaxRouters),
	} {
		_, err := sim.ReadEdgeList(strings.NewReader(in), "bad")
		if err == nil || !strings.HasPrefix(err.Error(), "sim: bad") || !strings.Contains(err.Error(), want) {
			t.Errorf("input %.20q: error %v, want %q", in, err, want)
		}
	}
}

// tooManyRouters returns a star with one router more than MaxRouters.
func tooManyRouters() string {
	var b strings.Builder
	for i := range sim.MaxRouters {
		fmt.Fprintf(&b, "hub r%d\n", i)
	}
	return b.String()
}

// FuzzReadEdgeList: an edge list is a file a user names, so any bytes
// either fail with an error naming the file or give a simple graph (no
// loop, no link twice, every link both ways) of distinct router names,
// each a word without "#", within MaxRouters and MaxLinks, that the same
// list written back reads as again.
func FuzzReadEdgeList(f *testing.F) {
	f.Add("# a small network\ncore edge1\ncore edge2   # trailing\nedge1 core\n\tedge2  edge3\n")
	f.Add("a b\nc d\n")
	f.Add("a b\nb b\n")
	f.Add("a b c\n")
	f.Add("\xff\xfe b\r\na\u00a0b\n")
	f.Fuzz(func(t *testing.T, in string) {
		g, err := sim.ReadEdgeList(strings.NewReader(in), "fuzz")
		if err != nil {
			if g != nil || !strings.HasPrefix(err.Error(), "sim: fuzz") {
				t.Fatalf("error %q with topology %v", err, g)
			}
			return
		}
		if g.Routers() < 2 || g.Routers() > sim.MaxRouters || g.Links() < 1 || g.Links() > sim.MaxLinks {
			t.Fatalf("%d routers, %d links", g.Routers(), g.Links())
		}
		checkSimple(t, g)
		names := map[string]bool{}
		var back strings.Builder
		for r := range g.Routers() {
			name := g.RouterName(r)
			if names[name] || len(strings.Fields(name)) != 1 || strings.Contains(name, "#") {
				t.Fatalf("router %d named %q", r, name)
			}
			names[name] = true
			for _, v := range g.Neighbors(r) {
				if v > r {
					fmt.Fprintf(&back, "%s %s\n", name, g.RouterName(v))
				}
			}
		}
		again, err := sim.ReadEdgeList(strings.NewReader(back.String()), "again")
		if err != nil {
			t.Fatalf("written back: %v", err)
		}
		if again.Routers() != g.Routers() || again.Links() != g.Links() {
			t.Fatalf("written back: %d routers and %d links, want %d and %d", again.Routers(), again.Links(), g.Routers(), g.Links())
		}
	})
}
