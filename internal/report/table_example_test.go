package report_test

import (
	"fmt"
	"os"

	"github.com/bloomcast/bloomcast/internal/report"
)

// Rows m/n = 8..10 of Tables 3–4 of Fan et al. ("Summary cache", 2000).
func ExampleSeedTable() {
	if err := report.WriteTable(os.Stdout, report.SeedTable(8, 10)); err != nil {
		fmt.Println(err)
	}
	// Output:
	// m/n  ln2·m/n     k=1     k=2     k=3     k=4      k=5      k=6      k=7      k=8
	//   8     5.55   0.118  0.0489  0.0306   0.024   0.0217   0.0216   0.0229
	//   9     6.24   0.105  0.0397  0.0228  0.0166   0.0141   0.0133   0.0135   0.0145
	//  10     6.93  0.0952  0.0329  0.0174  0.0118  0.00943  0.00844  0.00819  0.00846
}

func ExampleWriteTableMarkdown() {
	if err := report.WriteTableMarkdown(os.Stdout, report.SeedTable(2, 4)); err != nil {
		fmt.Println(err)
	}
	// Output:
	// | m/n | ln2·m/n | k=1 | k=2 | k=3 | k=4 |
	// | ---: | ---: | ---: | ---: | ---: | ---: |
	// | 2 | 1.39 | 0.393 | 0.4 | | |
	// | 3 | 2.08 | 0.283 | 0.237 | 0.253 | |
	// | 4 | 2.77 | 0.221 | 0.155 | 0.147 | 0.16 |
}
