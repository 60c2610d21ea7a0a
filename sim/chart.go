package sim

import "github.com/bloomcast/bloomcast/plot"

// Chart is the simulations' line chart: package plot's, the one SVG writer
// of the project.
// The zero Chart has no series, and WriteSVG returns an error for it.
type Chart = plot.Chart

// Series is one named set of points of a Chart.
// The zero value is an unnamed series with no points.
type Series = plot.Series

// palette returns the i-th of plot's eight colours, for the charts' series.
func palette(i int) string { return plot.Palette(i) }
