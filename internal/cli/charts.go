package cli

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"

	"github.com/bloomcast/bloomcast/plot"
)

// Charts, drawn by package plot: calc --plot, table --plot and the
// simulations' --plot.

// plotFlag registers --plot OUT.svg, the file writeCharts writes. What
// cannot be written is refused as the flags are read, not after a
// simulation of many minutes: "-" (standard output carries the command's
// report, which the SVG would be mixed into), a directory, a file in a
// directory that does not exist.
func plotFlag(fs *flag.FlagSet, path *string) {
	fs.Func("plot", "", func(s string) error {
		if s == "-" {
			return errPlotStdout
		}
		if err := plotIsDir(s); err != nil {
			return err
		}
		if fi, err := os.Stat(filepath.Dir(s)); err != nil || !fi.IsDir() {
			return errors.New("no directory " + filepath.Dir(s) + " to write it in")
		}
		*path = s
		return nil
	})
}

// plotIsDir refuses a --plot path that is a directory, as the flags are
// read and again as the chart is written, naming the file to give.
func plotIsDir(path string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return errors.New("a directory: name the SVG file to write (such as " + filepath.Join(path, "chart.svg") + ")")
	}
	return nil
}

var errPlotStdout = errors.New("standard output carries the report; name an .svg file")

// writeCharts writes the charts stacked in one SVG file, as writeFile
// writes a filter: a regular file atomically, so that a write that fails
// leaves an existing chart as it was.
func (e *env) writeCharts(path string, charts ...plot.Chart) error {
	var b bytes.Buffer
	if err := plot.Stack(&b, charts...); err != nil {
		return err
	}
	if err := plotIsDir(path); err != nil {
		return fileErr(path, err)
	}
	e.force = true // text, which a terminal may show
	return e.writeFile(path, &b)
}
