package sim_test

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/cache"
	"github.com/bloomcast/bloomcast/sim"
)

func TestParseModes(t *testing.T) {
	ms, err := sim.ParseModes("none, icp,summary")
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2+len(sim.SummaryModes()) || ms[0].Route != cache.RouteNone || ms[1].Route != cache.RouteICP {
		t.Fatalf("%d modes: %v", len(ms), ms)
	}
	all, err := sim.ParseModes("all")
	if err != nil || len(all) != len(sim.DefaultModes()) {
		t.Fatalf("all: %d modes, %v", len(all), err)
	}
	if _, err := sim.ParseModes("icp,carrier-pigeon"); err == nil || !strings.Contains(err.Error(), `"carrier-pigeon"`) {
		t.Errorf("a bad mode: %v", err)
	}
}

// TestNewClusterReport: the ratios to ICP are each mode's counts over
// ICP's, and every derived figure is the result's own method.
func TestNewClusterReport(t *testing.T) {
	sc, err := sim.ParseMode("sc-1%-16b-comp-delta")
	if err != nil {
		t.Fatal(err)
	}
	trace := &sim.Trace{Requests: make([]sim.Request, 1000), Proxies: 3, Clients: 9, Objects: 400, UniqueBytes: 1 << 20, Malformed: 2}
	icp := sim.ClusterResult{Mode: sim.Mode{Route: cache.RouteICP}, Requests: 1000, LocalHits: 300, RemoteHits: 200,
		ICPQueries: 1400, ICPReplies: 1400, ICPBytes: 100000, PeerRequests: 200, CacheBytes: 4096, CPU: 2 * time.Second}
	sum := sim.ClusterResult{Mode: sc, Requests: 1000, LocalHits: 300, RemoteHits: 190, FalseHits: 5,
		FullFetches: 6, DeltaFetches: 30, DigestBytes: 20000, PeerRequests: 195, CacheBytes: 4096, CPU: time.Second}
	r := sim.NewClusterReport(sim.ClusterConfig{Trace: trace, CacheFraction: 0.1}, []sim.ClusterResult{sum, icp})
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
	r = sim.NewClusterReport(sim.ClusterConfig{Trace: trace}, []sim.ClusterResult{sum})
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

func TestNewLoopReport(t *testing.T) {
	res, err := sim.LoopDetection(sim.LoopConfig{Bits: 64, Hops: 8, LoopFraction: sim.NoLoops, Packets: 2000, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	r := sim.NewLoopReport(3, sim.NoLoops, []sim.LoopResult{res})
	x := r.Results[0]
	if r.LoopFraction != 0 || x.FalseAlarmRate != res.FalseAlarmRate() || x.StdError != res.StdError() ||
		len(x.Checks) != len(res.Checks) || x.Checks[2].Model != res.Checks[2].Model || x.Looped != 0 {
		t.Errorf("%+v from %+v", r, res)
	}
}

func TestParseCompressShape(t *testing.T) {
	if b, k, err := sim.ParseCompressShape("14.5:2"); b != 14.5 || k != 2 || err != nil {
		t.Errorf("14.5:2: %g, %d, %v", b, k, err)
	}
	for _, bad := range []string{"48", "48:", ":3", "x:3", "48:3.5"} {
		if _, _, err := sim.ParseCompressShape(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// The paper's trial at a small size: the digests' mean size against
// m·H(p) plus the frame, as one JSON row.
func ExampleCompressResult_Row() {
	res, err := sim.CompressionTrial(sim.CompressConfig{N: 2000, BitsPerKey: 14, K: 2, Trials: 3, Queries: 1000, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	row := res.Row()
	fmt.Printf("m = %d, p0 = %.4f, ideal %.0f bytes + %d frame\n", row.M, row.P0, row.IdealBytes, row.FrameBytes)
	fmt.Println(row.MeanOverIdeal > 0.99 && row.MeanOverIdeal < 1.05)
	// Output:
	// m = 28000, p0 = 0.8669, ideal 1981 bytes + 64 frame
	// true
}
