package report_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/internal/report"
	"github.com/bloomcast/bloomcast/params"
)

// Solve for m and k in the blocked layout and print the report's JSON.
func ExampleNewSolveReport() {
	q := params.Query{N: 1000, P: 0.01, Layout: params.Blocked}
	sol, err := params.Solve(q)
	if err != nil {
		fmt.Println(err)
		return
	}
	r := report.NewSolveReport(q, sol)
	s := r.Layouts[0]
	fmt.Println(r.Given, r.Derived, r.Query.Layout, s.M, s.K, s.MeetsP)
	// Output:
	// [n p] [m k] blocked 10240 5 true
}

func TestReports(t *testing.T) {
	sol, err := params.Solve(params.Query{N: 100, M: 1000})
	if err != nil {
		t.Fatal(err)
	}
	r := report.NewSolveReport(params.Query{N: 100, M: 1000}, sol)
	if r.Query.Layout != "all" || len(r.Layouts) != 4 || r.Derived == nil || r.Layouts[0].SizeBytes != (r.Layouts[0].M+7)/8 {
		t.Errorf("solve report %+v", r)
	}
	tq := params.TransmitQuery{N: 10000, BitsPerElement: 8, TransmitOptions: params.TransmitOptions{Churn: 0.1}}
	res, err := params.OptimizeTransmit(tq)
	if err != nil {
		t.Fatal(err)
	}
	tr := report.NewTransmitReport(tq, res)
	if tr.Question != "transmit" || tr.Budget != 8 || tr.Best.DeltaBits == nil || len(tr.PerK) == 0 || tr.Best.TransmitBitsPerKey > 8 {
		t.Errorf("transmit report %+v", tr)
	}
	gq := params.TargetQuery{N: 10000, P: 0.01}
	if res, err = params.OptimizeTarget(gq); err != nil {
		t.Fatal(err)
	}
	gr := report.NewTargetReport(gq, res)
	if b, _ := json.Marshal(gr); gr.Question != "target" || gr.Best.DeltaBits != nil || strings.Contains(string(b), "delta_bits") {
		t.Errorf("target report %s", b)
	}
	for _, q := range []report.FingerprintQuery{{N: 1000}, {N: 1000, P: 0.001}, {N: 1000, Bits: 20}, {N: 1000, C: 3}} {
		s, err := report.FingerprintSetOf(q)
		if err != nil {
			t.Fatal(q, err)
		}
		f, err := report.NewFingerprintReport(s, 4)
		if err != nil || f.Bits != s.Bits || f.CountBits != 4 || f.SortedBitsPerKey != s.SortedBitsPerKey+4 {
			t.Errorf("%+v: %+v, %v", q, f, err)
		}
	}
	if s, _ := report.FingerprintSetOf(report.FingerprintQuery{N: 1 << 10}); s.Bits != 20 {
		t.Errorf("c = 2 of 1024 keys: %d bits", s.Bits)
	}
	if _, err := report.FingerprintSetOf(report.FingerprintQuery{}); err == nil {
		t.Error("N 0 sized")
	}
}
