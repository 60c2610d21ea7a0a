package report_test

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/internal/report"
	"github.com/bloomcast/bloomcast/sim"
)

func TestTracebackReportWriteText(t *testing.T) {
	topo, err := sim.NewTopology(sim.TopologyConfig{Kind: "tree", Routers: 30, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	cfg := sim.TracebackConfig{Topologies: []*sim.Topology{topo}, Rates: []float64{0.01, 0.1}, Attacks: 50, Traffic: 2000, Seed: 3}
	rs, err := sim.Traceback(cfg)
	if err != nil {
		t.Fatal(err)
	}
	out := checkText(t, report.NewTracebackReport(cfg, rs),
		"bloomcast sim traceback: 50 attacks per topology and rate, 2000 packets/s, ring of 4 one-second windows, seed 3\n",
		"topology  routers", "\ntree ", "Measured and expected agree within sampling noise",
		"hold 4 windows, so its memory is 4 times")
	if got := strings.Count(out, "\ntree "); got != 2 {
		t.Errorf("%d rows for tree, want 2:\n%s", got, out)
	}
}

func TestLoopReportWriteText(t *testing.T) {
	var b bytes.Buffer
	if err := (&report.LoopReport{}).WriteText(&b); err != nil || b.Len() != 0 {
		t.Errorf("empty report: %q, %v", b.String(), err)
	}
	var rs []sim.LoopResult
	for _, m := range []int{64, 128} {
		x, err := sim.LoopDetection(sim.LoopConfig{Bits: m, Hops: 8, Packets: 5000, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, x)
	}
	checkText(t, report.NewLoopReport(7, sim.DefaultLoopFraction, rs),
		"bloomcast sim loops: 5000 packets per filter size over 8 routers, 10.0% with a loop, seed 7\n",
		"routers passed", "64 bits", "128 bits", "every looped packet is caught")
}

// checkText writes r's text and checks that it holds each of wants, in
// the text as written or, for the wrapped notes, with its lines joined;
// and that WriteText returns a failing writer's error.
func checkText(t *testing.T, r interface{ WriteText(io.Writer) error }, wants ...string) string {
	t.Helper()
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	flat := strings.Join(strings.Fields(out), " ")
	for _, want := range wants {
		if !strings.Contains(out, want) && !strings.Contains(flat, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if err := r.WriteText(failWriter{}); err == nil || err.Error() != "disk full" {
		t.Errorf("WriteText to a failing writer: %v", err)
	}
	return out
}
