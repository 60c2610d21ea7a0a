package cli

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/internal/report"
)

func TestSimTraceback(t *testing.T) {
	dir := t.TempDir()
	plot := filepath.Join(dir, "tb.svg")
	args := []string{"sim", "traceback", "--routers", "30", "--attacks", "100", "--traffic", "1000", "--fp", "0.01,0.05"}
	var r report.TracebackReport
	if err := json.Unmarshal([]byte(ok(t, "", append(args, "--json", "--plot", plot)...)), &r); err != nil {
		t.Fatal(err)
	}
	if r.Seed != 1 || r.Attacks != 100 || r.Traffic != 1000 || len(r.Results) != 6 {
		t.Fatalf("%+v", r)
	}
	for i, x := range r.Results {
		if want := []string{"tree", "random", "powerlaw"}[i/2]; x.Topology != want || x.Routers != 30 || x.P != []float64{0.01, 0.05}[i%2] {
			t.Errorf("result %d: %+v", i, x)
		}
		if math.Abs(float64(x.FalseBranches)-x.ExpectedFalseBranches) > 5*x.StdError+2 ||
			x.SuccessRate < 0 || x.SuccessRate > 1 || x.BytesPerRouterSecond <= 0 ||
			x.RingBytesPerRouter != 4*x.BytesPerRouterSecond {
			t.Errorf("result %d: %+v", i, x)
		}
	}
	svg, err := os.ReadFile(plot)
	if err != nil || !strings.HasPrefix(string(svg), "<svg") || !strings.Contains(string(svg), "powerlaw expected") {
		t.Errorf("plot: %v\n%.200s", err, svg)
	}

	text := ok(t, "", append(args, "--attacks", "20")...)
	for _, s := range []string{"topology", "false br.", "expected", "success", "digest/router/s", "bits/pkt", "tree", "powerlaw", "standard errors"} {
		if !strings.Contains(text, s) {
			t.Errorf("output lacks %q:\n%s", s, text)
		}
	}
}

func TestSimTracebackEdgeList(t *testing.T) {
	dir := t.TempDir()
	edges := writeFile(t, filepath.Join(dir, "ring.txt"), "# a ring with a tail\na b\nb c\nc d\nd a\nd e\n")
	var r report.TracebackReport
	out := ok(t, "", "sim", "traceback", "--topology", "tree,"+edges, "--routers", "20", "--attacks", "50", "--fp", "0.1", "--traffic", "500", "--json")
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Results) != 2 || r.Results[0].Routers != 20 || r.Results[1].Topology != "ring.txt" || r.Results[1].Routers != 5 || r.Results[1].Links != 5 {
		t.Errorf("%+v", r.Results)
	}
	split := writeFile(t, filepath.Join(dir, "split.txt"), "a b\nc d\n")
	failsWith(t, "topology split.txt is not connected", "sim", "traceback", "--topology", split)
	failsWith(t, filepath.Join(dir, "none.txt")+": no such file", "sim", "traceback", "--topology", filepath.Join(dir, "none.txt"))
	bad := writeFile(t, filepath.Join(dir, "bad.txt"), "a b c\n")
	failsWith(t, "bad.txt:1: want two router names", "sim", "traceback", "--topology", bad)
}

func TestSimLoops(t *testing.T) {
	dir := t.TempDir()
	plot := filepath.Join(dir, "loops.svg")
	args := []string{"sim", "loops", "--bits", "64,128", "--hops", "10", "--packets", "20000"}
	var r report.LoopReport
	if err := json.Unmarshal([]byte(ok(t, "", append(args, "--json", "--plot", plot)...)), &r); err != nil {
		t.Fatal(err)
	}
	if r.Seed != 1 || r.LoopFraction != 0.1 || len(r.Results) != 2 {
		t.Fatalf("%+v", r)
	}
	for i, x := range r.Results {
		if x.Bits != []int{64, 128}[i] || x.HeaderBytes != x.Bits/8 || x.Hops != 10 || len(x.Checks) != 9 ||
			x.DetectionRate != 1 || x.Missed != 0 || x.Packets != 20000 || x.RouteRecordBytes != 40 {
			t.Errorf("result %d: %+v", i, x)
		}
		if math.Abs(x.FalseAlarmRate-x.PathFalseAlarm) > 5*x.StdError+1e-4 {
			t.Errorf("bits %d: false alarms %g, model %g ± %g", x.Bits, x.FalseAlarmRate, x.PathFalseAlarm, x.StdError)
		}
	}
	if svg, err := os.ReadFile(plot); err != nil || !strings.Contains(string(svg), "64 bits, k=") {
		t.Errorf("plot: %v", err)
	}

	text := ok(t, "", args...)
	for _, s := range []string{"false alarms", "model", "classic", "loops caught", "routers passed", "64 bits", "128 bits", "header bytes"} {
		if !strings.Contains(text, s) {
			t.Errorf("output lacks %q:\n%s", s, text)
		}
	}

	if err := json.Unmarshal([]byte(ok(t, "", "sim", "loops", "--bits", "32", "--k", "2", "--loops", "0", "--packets", "1000", "--json")), &r); err != nil {
		t.Fatal(err)
	}
	if x := r.Results[0]; x.K != 2 || x.Looped != 0 || x.LoopFree != 1000 || r.LoopFraction != 0 {
		t.Errorf("--loops 0: %+v", x)
	}
	failsWith(t, "100 filter bits", "sim", "loops", "--bits", "100")
	failsWith(t, "40 bits per mask", "sim", "loops", "--bits", "64", "--k", "40")
}

func TestSimUsage(t *testing.T) {
	for sub, usage := range map[string]string{"traceback": tracebackUsage, "loops": loopsUsage} {
		for _, h := range []string{"-h", "--help"} {
			if got := ok(t, "", "sim", sub, h); got != usage {
				t.Errorf("sim %s %s: %q", sub, h, got)
			}
		}
		if !strings.Contains(simCommand.usage, strings.TrimPrefix(strings.SplitN(usage, "\n", 2)[0], "usage: ")) {
			t.Errorf("sim's usage lacks the %s section", sub)
		}
	}
	// -h documents every flag.
	for usage, flags := range map[string][]string{
		tracebackUsage: {"--topology", "--routers", "--attacks", "--fp", "--traffic", "--seed", "--json", "--plot"},
		loopsUsage:     {"--bits", "--k", "--hops", "--loops", "--packets", "--seed", "--json", "--plot"},
	} {
		for _, f := range flags {
			if !strings.Contains(usage, "["+f) || !strings.Contains(usage, "\n  "+f+" ") { // the synopsis and the flag list
				t.Errorf("usage does not document %s:\n%s", f, usage)
			}
		}
	}
	for _, args := range [][]string{
		{"sim"},
		{"sim", "frobnicate"},
		{"sim", "traceback", "--fp", "2"},
		{"sim", "traceback", "--fp", ","},
		{"sim", "traceback", "--routers", "1"},
		{"sim", "traceback", "extra"},
		{"sim", "loops", "--loops", "1.5"},
		{"sim", "loops", "--bits", "x"},
		{"sim", "loops", "--hops", "1"},
	} {
		if r := bc(t, "", args...); r.code != 2 || !strings.HasPrefix(r.stderr, "bloomcast: ") || !isUsageLine(r.stderr, "sim") {
			t.Errorf("%q: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
}
