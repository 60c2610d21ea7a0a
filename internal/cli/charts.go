package cli

import (
	"bytes"
	"os"

	"github.com/bloomcast/bloomcast/plot"
)

// Charts, drawn by package plot: calc --plot, table --plot and the
// simulations' --plot.

// writeCharts writes the charts stacked in one SVG file.
func writeCharts(path string, charts ...plot.Chart) error {
	var b bytes.Buffer
	if err := plot.Stack(&b, charts...); err != nil {
		return err
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return fileErr(path, err)
	}
	return nil
}
