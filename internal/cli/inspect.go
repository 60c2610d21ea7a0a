package cli

import (
	"io"

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
	var r interface{ WriteText(io.Writer) error }
	switch path := args[0]; {
	case lf.Delta != nil:
		r, err = filereport.Delta(lf.File, path)
	case lf.Parquet != nil:
		r, err = filereport.Parquet(lf.File, path)
		if msg := unfilteredColumns(lf, ""); msg != "" && err == nil {
			defer e.warnf("%s: %s", displayName(path), msg)
		}
	case lf.Foreign():
		r, err = filereport.Foreign(lf.File, path)
	case lf.other != nil:
		r, err = filereport.Structure(lf.File, path)
	case lf.Scalable != nil:
		r, err = filereport.Scalable(lf.File, path)
	default:
		r, err = filereport.Filter(lf.File, path)
	}
	if err != nil {
		return fileErr(args[0], err)
	}
	if asJSON {
		return writeJSON(e.stdout, r)
	}
	return r.WriteText(e.stdout)
}
