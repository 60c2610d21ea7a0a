package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/bloomcast/bloomcast/inplace"
	"github.com/bloomcast/bloomcast/plot"
)

// Charts, drawn by package plot: calc --plot, table --plot and the
// simulations' --plot.

// plotFlag registers --plot OUT.svg, the file writeCharts writes. What
// cannot be written is refused as the flags are read, not after a
// simulation of many minutes: "-" (standard output carries the command's
// report, which the SVG would be mixed into), a directory, a file in a
// directory that does not exist, a file that plotWritable finds the atomic
// write could not make (a directory of mode 0555).
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
		if err := plotWritable(s); err != nil {
			return err
		}
		*path = s
		return nil
	})
}

// errPlotProbe ends plotWritable's trial write before anything is written.
var errPlotProbe = errors.New("trial write")

// plotWritable refuses a --plot path that writeCharts could not write,
// by starting the same atomic write and stopping it before the first
// byte: the checks inplace makes (a directory of mode 0555 is refused
// even to root) and the temporary file in the directory, created and
// removed. A path that exists and is not a regular file (/dev/null, a
// FIFO) is written directly, needs no directory, and is not opened here:
// a FIFO would wait for a reader.
func plotWritable(path string) error {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return nil
	}
	err := inplace.WriteFile(path, 0o644, func(io.Writer) error { return errPlotProbe })
	if errors.Is(err, errPlotProbe) {
		return nil
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		// Name the directory rather than the temporary file's path.
		where := filepath.Dir(path)
		if errors.Is(err, inplace.ErrNotWritable) {
			where = pe.Path
		}
		return fmt.Errorf("%s: %w", where, pe.Err)
	}
	return err
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
