package plot_test

import (
	"fmt"
	"strings"

	"github.com/bloomcast/bloomcast/plot"
)

// Draw a model as a line and measurements as dots, on a log y axis.
func ExampleChart_WriteSVG() {
	c := plot.Chart{
		Title: "False-positive rate", XLabel: "bits per key", YLabel: "rate",
		LogY: true,
		Series: []plot.Series{
			{Name: "model", X: []float64{4, 8, 12, 16}, Y: []float64{0.147, 0.0216, 0.00314, 0.000459}, Line: true},
			{Name: "measured", X: []float64{4, 8, 12, 16}, Y: []float64{0.151, 0.0209, 0.0033, 0}, Markers: true},
		},
	}
	var b strings.Builder
	if err := c.WriteSVG(&b); err != nil {
		panic(err)
	}
	svg := b.String()
	// The measured 0 cannot sit on a log axis, so three dots are drawn,
	// plus one in the legend.
	fmt.Println(strings.HasPrefix(svg, "<svg"), strings.Count(svg, "<circle"), strings.Count(svg, "<polyline"))
	// Output:
	// true 4 1
}
