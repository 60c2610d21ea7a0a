package replay_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/internal/report"
	"github.com/bloomcast/bloomcast/node"
	"github.com/bloomcast/bloomcast/sim/replay"
)

func TestParseModes(t *testing.T) {
	ms, err := replay.ParseModes("none, icp,summary")
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2+len(replay.SummaryModes()) || ms[0].Route != node.RouteNone || ms[1].Route != node.RouteICP {
		t.Fatalf("%d modes: %v", len(ms), ms)
	}
	all, err := replay.ParseModes("all")
	if err != nil || len(all) != len(replay.DefaultModes()) {
		t.Fatalf("all: %d modes, %v", len(all), err)
	}
	if _, err := replay.ParseModes("icp,carrier-pigeon"); err == nil || !strings.Contains(err.Error(), `"carrier-pigeon"`) {
		t.Errorf("a bad mode: %v", err)
	}
}

// TestNewClusterReport: the ratios to ICP are each mode's counts over
// ICP's, and every derived figure is the result's own method.
func TestNewClusterReport(t *testing.T) {
	sc, err := replay.ParseMode("sc-1%-16b-comp-delta")
	if err != nil {
		t.Fatal(err)
	}
	trace := &replay.Trace{Requests: make([]replay.Request, 1000), Proxies: 3, Clients: 9, Objects: 400, UniqueBytes: 1 << 20, Malformed: 2}
	icp := replay.ClusterResult{Mode: replay.Mode{Route: node.RouteICP}, Requests: 1000, LocalHits: 300, RemoteHits: 200,
		ICPQueries: 1400, ICPReplies: 1400, ICPBytes: 100000, PeerRequests: 200, CacheBytes: 4096, CPU: 2 * time.Second}
	sum := replay.ClusterResult{Mode: sc, Requests: 1000, LocalHits: 300, RemoteHits: 190, FalseHits: 5,
		FullFetches: 6, DeltaFetches: 30, DigestBytes: 20000, PeerRequests: 195, CacheBytes: 4096, CPU: time.Second}
	r := report.NewClusterReport(replay.ClusterConfig{Trace: trace, CacheFraction: 0.1}, []replay.ClusterResult{sum, icp})
	if r.Nodes != 3 || r.Trace.Requests != 1000 || r.Trace.Malformed != 2 || r.CacheBytes != 4096 || len(r.Results) != 2 {
		t.Fatalf("%+v", r)
	}
	s, i := r.Results[0], r.Results[1]
	if s.Mode != "sc-1%-16b-comp-delta" || s.HitRatio != sum.HitRatio() || s.QueryMessages != sum.QueryMessages() ||
		s.DigestFetches != 36 || s.ControlBytes != 20000 {
		t.Errorf("summary row %+v", s)
	}
	if want := float64(2*36+2*5) / 2800; math.Abs(s.QueryMsgsVsICP-want) > 1e-15 {
		t.Errorf("query messages vs ICP %g, want %g", s.QueryMsgsVsICP, want)
	}
	if s.ControlBytesVsICP != 0.2 || s.CPUVsICP != 0.5 || s.HitRatioLossVsICP != sum.HitRatioLoss(icp) || !(s.HitRatioLossVsICP > 0) {
		t.Errorf("summary row against ICP: %+v", s)
	}
	if i.QueryMsgsVsICP != 1 || i.HitRatioLossVsICP != 0 || i.ICPMessages != 2800 {
		t.Errorf("ICP row %+v", i)
	}
	// Without ICP, nothing is compared.
	r = report.NewClusterReport(replay.ClusterConfig{Trace: trace}, []replay.ClusterResult{sum})
	if x := r.Results[0]; x.QueryMsgsVsICP != 0 || x.CPUVsICP != 0 {
		t.Errorf("no ICP: %+v", x)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{`"hit_ratio_loss_vs_icp":0`, `"cache_bytes_per_node":4096`, `"trace":{"source":""`} {
		if !strings.Contains(string(b), field) {
			t.Errorf("JSON lacks %s: %s", field, b)
		}
	}
}

// TestNewClusterReportStatic: a static mode's row carries its views'
// false positives and their prediction; another mode's JSON has none.
func TestNewClusterReportStatic(t *testing.T) {
	st := replay.ClusterResult{Mode: mustMode(t, "sc-10%-16b-static"), Requests: 10, AbsentLookups: 900, DigestFalsePositives: 7, PredictedFalsePositives: 8.5}
	bl := replay.ClusterResult{Mode: mustMode(t, "sc-10%-16b-comp-delta"), Requests: 10}
	r := report.NewClusterReport(replay.ClusterConfig{}, []replay.ClusterResult{st, bl})
	if x := r.Results[0]; x.Mode != "sc-10%-16b-static" || x.AbsentLookups != 900 || x.DigestFalsePositives != 7 || x.PredictedFalsePositives != 8.5 {
		t.Errorf("static row %+v", x)
	}
	b, err := json.Marshal(r.Results)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(b); strings.Count(s, `"absent_lookups":900,"digest_false_positives":7,"predicted_false_positives":8.5`) != 1 || strings.Count(s, "absent_lookups") != 1 {
		t.Errorf("JSON: %s", s)
	}
}
