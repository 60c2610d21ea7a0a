package cli

import "io"

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
		r, err = lf.DeltaReport(path)
	case lf.Parquet != nil:
		r, err = lf.ParquetReport(path)
		if msg := unfilteredColumns(lf, ""); msg != "" && err == nil {
			defer e.warnf("%s: %s", displayName(path), msg)
		}
	case lf.Foreign():
		r, err = lf.ForeignReport(path)
	case lf.other != nil:
		r, err = lf.StructureReport(path)
	case lf.Scalable != nil:
		r, err = lf.ScalableReport(path)
	default:
		r, err = lf.FilterReport(path)
	}
	if err != nil {
		return fileErr(args[0], err)
	}
	if asJSON {
		return writeJSON(e.stdout, r)
	}
	return r.WriteText(e.stdout)
}
