package cli

import (
	"github.com/bloomcast/bloomcast/internal/filereport"
)

var inspectCommand = &command{
	name:    "inspect",
	summary: "describe a filter file",
	usage:   usageText("inspect"),
	run:     runInspect,
}

func runInspect(e *env, args []string) error {
	fs := newFlagSet("inspect")
	e.formatFlag(fs)
	var asJSON bool
	fs.BoolVar(&asJSON, "json", false, "")
	e.quietFlag(fs)
	args, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(args) != 1 {
		return usagef("want one FILE, got %d arguments", len(args))
	}
	lf, err := e.open(args[0])
	if err != nil {
		return err
	}
	r, err := filereport.Of(lf.File, args[0])
	if err != nil {
		return fileErr(args[0], err)
	}
	if _, ok := r.(*filereport.ParquetReport); ok {
		if msg := unfilteredColumns(lf, ""); msg != "" {
			defer e.warnf("%s: %s", displayName(args[0]), msg)
		}
	}
	if asJSON {
		return writeJSON(e.stdout, r)
	}
	return r.WriteText(e.stdout)
}
