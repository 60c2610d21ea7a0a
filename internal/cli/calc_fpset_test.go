package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/internal/report"
)

func TestCalcFPSet(t *testing.T) {
	out := ok(t, "", "calc", "--fpset", "-n", "1000000", "-p", "0.01")
	for _, want := range []string{
		"fingerprint set of n = 1000000 keys: 27-bit fingerprints, predicted p = 0.007423",
		"fpset sorted                    27.000",
		"fpset Rice-coded (k = 7)         8.623",
		"classic Bloom filter (k = 7)    10.206",
		"in memory, sorted fingerprints are never smaller than a Bloom filter",
		"sent, Rice-coded fingerprints are smaller than a Bloom filter from 23 bits on",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("calc --fpset output lacks %q:\n%s", want, out)
		}
	}

	var r report.FingerprintReport
	if err := json.Unmarshal([]byte(ok(t, "", "calc", "-n", "1000", "--fpset", "-c", "3", "--json")), &r); err != nil {
		t.Fatal(err)
	}
	if r.Bits != 30 || r.MemoryCrossoverBits != 33 || r.TransmitCrossoverBits != 13 || r.FalsePositiveRate > 1e-6 {
		t.Errorf("calc --fpset -c 3 --json: %+v", r)
	}
	if err := json.Unmarshal([]byte(ok(t, "", "calc", "--fpset", "-n", "1e6", "--bits", "28", "--count-bits", "4", "--json")), &r); err != nil {
		t.Fatal(err)
	}
	if r.Bits != 28 || r.SortedBitsPerKey != 32 || r.TableBitsPerKey != 40 || r.BloomK != 8 {
		t.Errorf("calc --fpset --bits 28 --count-bits 4: %+v", r)
	}
	if out := ok(t, "", "calc", "--fpset", "-h"); !strings.HasPrefix(out, "usage: bloomcast calc --fpset") {
		t.Errorf("calc --fpset -h: %q", out)
	}
	if out := ok(t, "", "calc", "-h"); !strings.Contains(out, "--fpset") {
		t.Error("calc -h does not mention --fpset")
	}
	for args, msg := range map[string]string{
		"--fpset -p 0.1":                "calc: --fpset needs -n N",
		"--fpset -n 10 -p 0.1 --bits 8": "calc: give one of -p, --bits and -c",
		"--fpset -n 10 --count-bits 40": "calc: --count-bits 40 above 32",
	} {
		r := bc(t, "", append([]string{"calc"}, strings.Fields(args)...)...)
		if r.code != 2 || !strings.HasPrefix(r.stderr, "bloomcast: "+msg) {
			t.Errorf("calc %s: exit %d, %q; want %q", args, r.code, r.stderr, msg)
		}
	}
	failsWith(t, "p = 1e-30 is below", "calc", "--fpset", "-n", "1000000", "-p", "1e-30")
}

// TestSizingErrorsEndWithTheDetail: a sizing error prints its detail,
// without the sentinel's words after it.
func TestSizingErrorsEndWithTheDetail(t *testing.T) {
	const detail = "p = 1e-30 is below 1.0842021724855044e-19, the rate of 64-bit fingerprints for n = 2\n"
	if got := failsWith(t, "", "calc", "--fpset", "-n", "2", "-p", "1e-30"); !strings.HasSuffix(got, detail) {
		t.Errorf("calc --fpset: %q", got)
	}
	r := bc(t, "a\nb\n", "build", "--fpset", "-p", "1e-30", "-o", filepath.Join(t.TempDir(), "x.fp"))
	if r.code != 2 || !strings.HasSuffix(r.stderr, detail) || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("build --fpset: exit %d, stderr %q", r.code, r.stderr)
	}
}
