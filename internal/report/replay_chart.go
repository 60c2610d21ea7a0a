package report

import (
	"github.com/bloomcast/bloomcast/node"
	"github.com/bloomcast/bloomcast/sim"
	"github.com/bloomcast/bloomcast/sim/replay"
)

// ClusterChart draws the replay's cost: for each cooperative mode, the
// inter-node query messages per request (x) against the inter-node
// control bytes per request (y), both on log scales, one series for ICP
// and one for each kind of summary-cache update (codec × full or delta),
// whose points are its thresholds and digest sizes (rings for full
// updates, dots for deltas). Modes without
// cooperation have no cost to draw.
func ClusterChart(results []replay.ClusterResult) sim.Chart {
	c := sim.Chart{Title: "Summary cache against ICP: what finding objects costs",
		XLabel: "inter-node query messages per request", YLabel: "inter-node control bytes per request",
		LogX: true, LogY: true}
	index := map[string]int{}
	for _, r := range results {
		if r.Mode.Route == node.RouteNone || r.Requests == 0 {
			continue
		}
		name := "ICP"
		if r.Mode.Route == node.RouteDigest {
			name = "summary raw"
			if r.Mode.Compressed {
				name = "summary comp."
			}
			switch {
			case r.Mode.Static:
				name = "summary static"
			case r.Mode.Deltas:
				name += " deltas"
			default:
				name += " full"
			}
		}
		i, ok := index[name]
		if !ok {
			i = len(c.Series)
			index[name] = i
			// Full-digest series are rings: with raw digests a delta
			// costs as much as a full digest, and the points coincide.
			c.Series = append(c.Series, sim.Series{Name: name, Markers: true,
				Hollow: r.Mode.Route == node.RouteDigest && !r.Mode.Deltas && !r.Mode.Static})
		}
		n := float64(r.Requests)
		c.Series[i].X = append(c.Series[i].X, float64(r.QueryMessages())/n)
		c.Series[i].Y = append(c.Series[i].Y, float64(r.ControlBytes())/n)
	}
	return c
}
