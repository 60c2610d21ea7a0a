package report_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/internal/report"
	"github.com/bloomcast/bloomcast/params"
)

// Solve for m and k of 1000 keys at p = 1% in the blocked layout and
// print the report as "bloomcast calc" does.
func ExampleSolveReport_WriteText() {
	q := params.Query{N: 1000, P: 0.01, Layout: params.Blocked}
	sol, err := params.Solve(q)
	if err != nil {
		panic(err)
	}
	if err := report.NewSolveReport(q, sol).WriteText(os.Stdout); err != nil {
		panic(err)
	}
	// Output:
	// given n = 1000, p = 0.01; derived m, k
	//
	// layout      n      m  k  block  bits/key  predicted p     size
	// blocked  1000  10240  5    512    10.240     0.009575  1.2 KiB
}

// The fingerprint set of 10^6 keys at p = 10^-4 beside a Bloom filter.
func ExampleFingerprintReport_WriteText() {
	s, err := report.FingerprintSetOf(report.FingerprintQuery{N: 1000000, P: 1e-4})
	if err != nil {
		panic(err)
	}
	r, err := report.NewFingerprintReport(s, 0)
	if err != nil {
		panic(err)
	}
	if err := r.WriteText(os.Stdout); err != nil {
		panic(err)
	}
	// Output:
	// fingerprint set of n = 1000000 keys: 34-bit fingerprints, predicted p = 5.821e-05
	//
	// form                           bits/key     size
	// fpset table (load 0.8)           42.500  5.1 MiB
	// fpset sorted                     34.000  4.1 MiB
	// fpset Rice-coded (k = 14)        15.627  1.9 MiB
	// classic Bloom filter (k = 14)    20.297  2.4 MiB
	// entropy of the fingerprints      15.511  1.8 MiB
	// any filter, log2(1/p)            14.068  1.7 MiB
	//
	// in memory, sorted fingerprints are never smaller than a Bloom filter for this n (with at most 64 bits)
	// sent, Rice-coded fingerprints are smaller than a Bloom filter from 23 bits on (p ≤ 0.1124 for this n)
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestReportTextForms(t *testing.T) {
	q := params.Query{N: 1000, M: 9600, P: 0.01}
	sol, err := params.Solve(q)
	if err != nil {
		t.Fatal(err)
	}
	sr := report.NewSolveReport(q, sol)
	var b strings.Builder
	if err := sr.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if !strings.HasPrefix(lines[0], "given n = 1000, p = 0.01, m = 9600") || !strings.HasSuffix(lines[2], "meets p") || len(lines) != 3+len(sr.Layouts) {
		t.Errorf("solve report:\n%s", b.String())
	}

	tq := params.TransmitQuery{N: 10000, BitsPerElement: 8, TransmitOptions: params.TransmitOptions{MaxK: 4, Churn: 0.1}}
	res, err := params.OptimizeTransmit(tq)
	if err != nil {
		t.Fatal(err)
	}
	tr := report.NewTransmitReport(tq, res)
	b.Reset()
	if err := tr.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	lines = strings.Split(b.String(), "\n")
	if lines[0] != "n = 10000, budget 8 bits per key: the lowest rate" || !strings.HasSuffix(lines[2], "delta/n") || !strings.Contains(b.String(), "\nbest ") {
		t.Errorf("transmit report:\n%s", b.String())
	}

	s, err := report.FingerprintSetOf(report.FingerprintQuery{N: 1000, Bits: 20})
	if err != nil {
		t.Fatal(err)
	}
	fr, err := report.NewFingerprintReport(s, 4)
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := fr.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "+counts") || !strings.HasPrefix(b.String(), "fingerprint set of n = 1000 keys: 20-bit") {
		t.Errorf("fingerprint report:\n%s", b.String())
	}

	if sr.WriteText(failWriter{}) == nil || tr.WriteText(failWriter{}) == nil || fr.WriteText(failWriter{}) == nil {
		t.Error("a failed write returned no error")
	}
}
