package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/digest"
)

func TestCalcBudget(t *testing.T) {
	var r digest.BudgetReport
	if err := json.Unmarshal([]byte(ok(t, "", "calc", "-n", "10000", "--budget", "20065", "--json")), &r); err != nil {
		t.Fatal(err)
	}
	b := r.Best
	if b.Layout != "classic" || b.K != 3 || b.Codec != "arith" || b.BoundBytes > 20065 || r.Raw == nil || r.Raw.Codec != "raw" {
		t.Fatalf("calc --budget 20065: %+v", r)
	}
	if !r.CapBinds || r.Uncapped == nil || r.RateGainRaw > 0.5 || len(r.PerLayout) != 4 {
		t.Errorf("cap %v %+v, ratio to raw %g, %d layouts", r.CapBinds, r.Uncapped, r.RateGainRaw, len(r.PerLayout))
	}
	r = digest.BudgetReport{}
	if err := json.Unmarshal([]byte(ok(t, "", "calc", "-n", "10000", "--budget", "20000", "--packet", "1472", "--layout", "blocked", "--max-bpk", "30", "--json")), &r); err != nil {
		t.Fatal(err)
	}
	if r.Effective != 13*1472 || r.Packets != 13 || r.Best.Layout != "blocked" || r.Best.BoundBytes > 13*1472 || r.Best.BitsPerKey > 30 || r.CapBits != 300000 {
		t.Errorf("calc --budget --packet --layout blocked --max-bpk 30: %+v", r)
	}
	text := ok(t, "", "calc", "-n", "10000", "--budget", "10065")
	for _, want := range []string{"n = 10000 keys, budget 10065 bytes (frame 65 bytes)", "raw, same bytes", "the memory cap binds: m ≤ 320000 bits"} {
		if !strings.Contains(text, want) {
			t.Errorf("calc --budget text lacks %q:\n%s", want, text)
		}
	}
	if out := ok(t, "", "calc", "--budget", "1", "-h"); !strings.HasPrefix(out, "usage: bloomcast calc -n N --budget BYTES") {
		t.Errorf("calc --budget -h: %.50q", out)
	}
	failsWith(t, "calc: --budget needs -n N", "calc", "--budget", "1000")
	failsWith(t, "calc: --budget 70 leaves no room", "calc", "-n", "5", "--budget", "70")
	failsWith(t, "build: --budget 70 leaves no room", "build", "--budget", "70", "-o", filepath.Join(t.TempDir(), "f.bf"))
	failsWith(t, "calc: -p means nothing with --budget", "calc", "-n", "5", "--budget", "700", "-p", "0.1")
	failsWith(t, "calc: --packet needs --budget BYTES", "calc", "-n", "5", "-p", "0.1", "--packet", "100")
}

// TestBuildBudget: build --budget writes a coded filter whose file fits the
// budget, for several budgets, layouts and packet sizes, and the filter
// answers for every key.
func TestBuildBudget(t *testing.T) {
	dir := t.TempDir()
	keys, lines := keyLines("budget", 5000)
	in := writeFile(t, filepath.Join(dir, "keys"), lines)
	for _, c := range []struct {
		args  []string
		limit int64
	}{
		{[]string{"--budget", "6000"}, 6000},
		{[]string{"--budget", "10065", "--max-bpk", "200"}, 10065},
		{[]string{"--budget", "3000", "--layout", "blocked"}, 3000},
		{[]string{"--budget", "9000", "--packet", "1400", "-n", "5000"}, 8400},
		{[]string{"--budget", "700", "--layout", "partitioned", "--max-k", "4"}, 700},
	} {
		out := filepath.Join(dir, "f.bf")
		ok(t, "", append(append([]string{"build", "-q", "-o", out}, c.args...), in)...)
		fi, err := os.Stat(out)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() > c.limit || fi.Size() < c.limit*8/10 {
			t.Errorf("build %v: %d bytes, budget %d", c.args, fi.Size(), c.limit)
		}
		r := inspectJSON(t, out)
		if c.args[len(c.args)-2] == "--layout" && r.Layout != c.args[len(c.args)-1] {
			t.Errorf("build %v: layout %s", c.args, r.Layout)
		}
		if answers, code := queryAll(t, out, keys[:200]); code != 0 || len(answers) != 200 {
			t.Errorf("build %v: a key is missing (exit %d)", c.args, code)
		}
	}
	failsWith(t, "build: -p means nothing with --budget", "build", "--budget", "900", "-p", "0.1", "-o", filepath.Join(dir, "x"), in)
	failsWith(t, "build: --max-bpk needs --budget BYTES", "build", "--max-bpk", "9", "-o", filepath.Join(dir, "x"), in)
}
