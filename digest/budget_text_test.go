package digest_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/params"

	"github.com/bloomcast/bloomcast/digest"
)

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestBudgetReportWriteText(t *testing.T) {
	b := digest.Budget{N: 10000, Bytes: 12000, Packet: 1400, MaxBitsPerKey: 10}
	res, err := b.Solve()
	if err != nil {
		t.Fatal(err)
	}
	r := digest.NewBudgetReport(b, res)
	var sb strings.Builder
	if err := r.WriteText(&sb); err != nil {
		t.Fatal(err)
	}
	out := sb.String()
	for _, want := range []string{
		"n = 10000 keys, budget 12000 bytes in packets of 1400: 8 packets, 11200 bytes (frame ",
		"  layout     m/n   k", "\nbest ", "\nraw, same bytes ", "the best rate is ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if r.CapBinds != strings.Contains(out, "the memory cap binds") {
		t.Errorf("cap binds %v, text:\n%s", r.CapBinds, out)
	}
	if r.WriteText(failWriter{}) == nil {
		t.Error("a failed write returned no error")
	}
}

// The filter of 10^5 keys with the lowest rate whose digest fits 100 KB,
// as "bloomcast calc --budget" prints it.
func ExampleBudgetReport_WriteText() {
	b := digest.Budget{N: 100000, Bytes: 100000, Layout: params.Blocked}
	res, err := b.Solve()
	if err != nil {
		panic(err)
	}
	if err := digest.NewBudgetReport(b, res).WriteText(os.Stdout); err != nil {
		panic(err)
	}
	// Output:
	// n = 100000 keys, budget 100000 bytes (frame 65 bytes); fits with probability ≥ 99.9%
	//
	//                   layout    m/n  k        m   sent     rate  mean bytes  σ bytes  99.9% bytes
	// best             blocked  14.29  2  1428992  arith  0.01745       99884     36.3        99996
	//                  blocked  14.29  2  1428992  arith  0.01745       99884     36.3        99996
	// raw, same bytes  classic   7.99  6   799424    raw  0.02164       99993      0.0        99993
	// without the cap  blocked  96.23  1  9622528  arith  0.01034       99942     18.6       100000
	//
	// the best rate is 0.807× the raw filter's of the same bytes
	// the memory cap binds: m ≤ 3197920 bits (32.0 bits per key); without it the rate would be 0.01034 at m/n = 96.2 (raise it with --max-m or --max-bpk)
}
