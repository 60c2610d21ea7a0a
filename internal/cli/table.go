package cli

import (
	"github.com/bloomcast/bloomcast/internal/report"
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
	plotFlag(fs, &plotOut)
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if plotOut != "" {
		if err := e.writeCharts(plotOut, report.Figure4Chart()); err != nil {
			return err
		}
	}
	rows := report.SeedTable(2, 32)
	if markdown {
		return report.WriteTableMarkdown(e.stdout, rows)
	}
	return report.WriteTable(e.stdout, rows)
}
