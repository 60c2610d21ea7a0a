package mht_test

import (
	"os"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/mht"
)

// The calculated figures of a table of 1000 items in four sub-tables
// with two summaries, as "bloomcast mht calc" prints them.
func ExampleReport_WriteText() {
	p, err := mht.DefaultPlan(1000)
	if err != nil {
		panic(err)
	}
	p.Kinds = []mht.Kind{mht.KindInterp, mht.KindSong}
	c, err := p.Calculate()
	if err != nil {
		panic(err)
	}
	if err := mht.NewReport(p, c, nil).WriteText(os.Stdout); err != nil {
		panic(err)
	}
	// Output:
	// 1000 items, 5 sub-tables, 5.813 buckets per item
	//
	// sub-table  buckets  expected  std dev  heuristic
	// 1             3000    850.53     9.79     850.41
	// 2             1500    142.28     9.21     142.38
	// 3              750      7.16     2.66       7.18
	// 4              375      0.03     0.19       0.03
	// 5              188      0.00     0.00       0.00
	//
	// crisis probability  4.187e-13
	//
	// summary      bits/item  false pos.  type fail.  any fail.  touched (in)  touched (out)
	// probe all            0           -           -          -        1.1567         5.0000
	// interp           64.00   4.337e-16       0.000  2.166e-13        1.0000         0.0000
	// song (est.)      23.25     0.09415       0.000      1.000        1.0000         0.0941
	//
	// song's table  items read (in)  items read (out)  buckets with 2+ items
	// calculated             1.0267            0.0837                  13.35
}

func TestReportWriteTextMeasured(t *testing.T) {
	p, err := mht.DefaultPlan(200)
	if err != nil {
		t.Fatal(err)
	}
	p.Kinds = []mht.Kind{mht.KindSong, mht.KindMBF}
	c, err := p.Calculate()
	if err != nil {
		t.Fatal(err)
	}
	m, err := p.Simulate(3, 100, 1)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := mht.NewReport(p, c, &m).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"200 items, 5 sub-tables, 5.815 buckets per item; 3 trials, 100 absent queries each, seed 1\n",
		"sub-table  buckets  expected  measured  std err      z\n",
		" calculated, ", " of 3 trials (", "\nsong's table ", "\nmeasured  ", "\nmeasured \"any fail.\" is the fraction",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if mht.NewReport(p, c, &m).WriteText(failWriter{}) == nil {
		t.Error("a failed write returned no error")
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, os.ErrClosed }
