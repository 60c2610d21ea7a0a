package sim_test

import (
	"fmt"
	"strings"

	"github.com/bloomcast/bloomcast/sim"
)

// Generate one router graph of each kind. The link counts follow from the
// construction; the power-law graph's hubs show in its largest degree.
func ExampleNewTopology() {
	for _, kind := range sim.DefaultTopologyKinds() {
		g, err := sim.NewTopology(sim.TopologyConfig{Kind: kind, Routers: 1000, Seed: 1})
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-8s %d routers, %d links, connected: %v, hub above 30 links: %v\n",
			g.Name, g.Routers(), g.Links(), g.Connected(), g.MaxDegree() > 30)
	}
	// Output:
	// tree     1000 routers, 999 links, connected: true, hub above 30 links: false
	// random   1000 routers, 2000 links, connected: true, hub above 30 links: false
	// powerlaw 1000 routers, 1997 links, connected: true, hub above 30 links: true
}

// Read a router graph from an edge list: one link per line, "#" comments.
func ExampleReadEdgeList() {
	g, err := sim.ReadEdgeList(strings.NewReader(`
# a campus: two buildings behind a core router
core   gw       # the provider link
core   build-a
core   build-b
build-a build-b
`), "campus.txt")
	if err != nil {
		panic(err)
	}
	fmt.Println(g.Name, g.Routers(), "routers,", g.Links(), "links")
	for _, r := range g.Neighbors(0) {
		fmt.Println(g.RouterName(0), "–", g.RouterName(r))
	}
	// Output:
	// campus.txt 4 routers, 4 links
	// core – gw
	// core – build-a
	// core – build-b
}
