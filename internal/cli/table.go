package cli

import (
	"github.com/bloomcast/bloomcast/params"
	"github.com/bloomcast/bloomcast/sim"
)

var tableCommand = &command{
	name:    "table",
	summary: "print the false-positive table of Fan et al.",
	usage:   usageText("table"),
	run:     runTable,
}

func runTable(e *env, args []string) error {
	fs := newFlagSet("table")
	var markdown bool
	var plotOut string
	fs.BoolVar(&markdown, "markdown", false, "")
	fs.StringVar(&plotOut, "plot", "", "")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if plotOut != "" {
		if err := writeCharts(plotOut, sim.Figure4Chart()); err != nil {
			return err
		}
	}
	rows := params.SeedTable(2, 32)
	if markdown {
		return params.WriteTableMarkdown(e.stdout, rows)
	}
	return params.WriteTable(e.stdout, rows)
}
