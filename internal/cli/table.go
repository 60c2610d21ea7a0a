package cli

import (
	"github.com/bloomcast/bloomcast/params"
	"github.com/bloomcast/bloomcast/sim"
)

var tableCommand = &command{
	name:    "table",
	summary: "print the false-positive table of Fan et al.",
	usage: `usage: bloomcast table [--markdown] [--plot OUT.svg]

Print the false-positive rate (1 − e^(−k/(m/n)))^k for m/n = 2..32 bits per
key and k = 1 up to just past the optimum ln2·m/n: Tables 3–5 of Fan, Cao,
Almeida and Broder, "Summary cache" (2000), recomputed.

flags:
  --markdown       print a GitHub Markdown table
  --plot OUT.svg   also draw the paper's Figure 4: the rate against m/n
                   = 1..32 for k = 4 and for the optimal k, log scale
`,
	run: runTable,
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
