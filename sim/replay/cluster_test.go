package replay_test

import (
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/internal/report"
	"github.com/bloomcast/bloomcast/node"
	"github.com/bloomcast/bloomcast/sim/replay"
)

func TestParseMode(t *testing.T) {
	modes := replay.DefaultModes()
	if len(modes) != 26 {
		t.Fatalf("%d default modes", len(modes))
	}
	seen := map[string]bool{}
	for _, m := range modes {
		got, err := replay.ParseMode(m.String())
		if err != nil || got != m || seen[m.String()] {
			t.Errorf("%s: %+v, %v", m, got, err)
		}
		seen[m.String()] = true
	}
	if m, err := replay.ParseMode("sc-0.1%-8b-comp-delta"); err != nil || m.Threshold != 0.001 || m.BitsPerEntry != 8 || !m.Compressed || !m.Deltas {
		t.Errorf("sc-0.1%%-8b-comp-delta: %+v, %v", m, err)
	}
	if m, err := replay.ParseMode("sc-10%-16b-static"); err != nil || m.Threshold != 0.1 || m.BitsPerEntry != 16 || !m.Static || m.Compressed || m.Deltas || m.String() != "sc-10%-16b-static" {
		t.Errorf("sc-10%%-16b-static: %+v, %v", m, err)
	}
	if m, err := replay.ParseMode("sc-1%-8b-static-xor"); err != nil || m.Threshold != 0.01 || m.BitsPerEntry != 8 || !m.Static || !m.StaticXOR || m.String() != "sc-1%-8b-static-xor" {
		t.Errorf("sc-1%%-8b-static-xor: %+v, %v", m, err)
	}
	for _, bad := range []string{"", "ICP", "sc", "sc-1-16b-raw-full", "sc-1%-16-raw-full", "sc-0%-16b-raw-full", "sc-1%-16b-zip-full", "sc-1%-16b-raw-some",
		"sc-1%-16b-static-delta", "sc-1%-16b-static-xor-xor", "sc-1%-16b-raw-xor", "sc-1%-static", "sc-1%-16b-comp", "sc-0%-16b-static"} {
		if _, err := replay.ParseMode(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func mustMode(t *testing.T, s string) replay.Mode {
	t.Helper()
	m, err := replay.ParseMode(s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestReplayCluster replays a small synthetic trace through three real
// nodes in each kind of mode and checks the counts against each other.
func TestReplayCluster(t *testing.T) {
	const n = 1500
	tr, err := replay.SyntheticTrace(replay.SyntheticConfig{Proxies: 3, Requests: n, Objects: 400, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	modes := []replay.Mode{mustMode(t, "none"), mustMode(t, "icp"), mustMode(t, "sc-10%-16b-comp-delta"),
		mustMode(t, "sc-10%-16b-comp-delta"), mustMode(t, "sc-10%-2b-raw-full")}
	progress := 0
	rs, err := replay.ReplayCluster(replay.ClusterConfig{Trace: tr, Modes: modes, ProgressEvery: 100,
		Progress: func(replay.Mode, int, int) { progress++ }})
	if err != nil {
		t.Fatal(err)
	}
	none, icp, sc, again, loose := rs[0], rs[1], rs[2], rs[3], rs[4]
	for _, r := range rs {
		if r.Requests != n || r.LocalHits+r.RemoteHits+r.Misses+r.Failed != uint64(n) || r.Failed != 0 || r.PeerErrors != 0 {
			t.Errorf("%s: requests do not add up: %+v", r.Mode, r)
		}
		if r.CacheObjects <= 0 || float64(r.Capacity) > float64(tr.Objects)/5 {
			t.Errorf("%s: caches of %v objects, capacity %d for %d objects: no evictions", r.Mode, r.CacheObjects, r.Capacity, tr.Objects)
		}
	}
	if progress < len(modes)*(n/100) {
		t.Errorf("progress called %d times", progress)
	}
	if none.RemoteHits != 0 || none.Messages() != 0 || none.Bytes() != 0 {
		t.Errorf("none: %+v", none)
	}
	// ICP: every local miss queries both peers, and both reply.
	misses := uint64(n) - icp.LocalHits
	if icp.ICPQueries != 2*misses || icp.ICPReplies != icp.ICPQueries || icp.ICPBytes == 0 || icp.RemoteHits == 0 {
		t.Errorf("icp: %d local misses, %d queries, %d replies, %d remote hits", misses, icp.ICPQueries, icp.ICPReplies, icp.RemoteHits)
	}
	if icp.HitRatio() <= none.HitRatio() {
		t.Errorf("icp hit ratio %.3f, none %.3f", icp.HitRatio(), none.HitRatio())
	}
	// The summary cache: nearly ICP's hits for far fewer query messages.
	// Caches this small publish every few changes, so updates are most
	// of them; lookups that found nothing (false hits) are rare.
	if sc.QueryMessages()*2 > icp.QueryMessages() || 2*sc.FalseHits*50 > icp.QueryMessages() || sc.RemoteHits == 0 || sc.HitRatioLoss(icp) > 0.05 {
		t.Errorf("summary: %d query messages, %d false hits (icp %d), hit ratio %.3f (icp %.3f)", sc.QueryMessages(), sc.FalseHits, icp.QueryMessages(), sc.HitRatio(), icp.HitRatio())
	}
	if sc.DeltaFetches == 0 || sc.Publications == 0 || sc.FullFetches > 2*3 || sc.DigestBytes == 0 || sc.ICPQueries != 0 {
		t.Errorf("summary digests: %+v", sc)
	}
	if sc.DigestK >= 11 || sc.DigestBitsPerEntry <= 16 {
		t.Errorf("compressed shape: %.1f bits per entry, k %d", sc.DigestBitsPerEntry, sc.DigestK)
	}
	// Deterministic: the same mode again counts the same.
	if sc.CPU <= 0 || again.CPU <= 0 {
		t.Errorf("CPU time %v and %v, want positive", sc.CPU, again.CPU)
	}
	again.Elapsed, again.CPU = sc.Elapsed, sc.CPU
	if again != sc {
		t.Errorf("same mode, different results:\n%+v\n%+v", sc, again)
	}
	// Two bits per entry: false hits, counted, each a peer request.
	if loose.FalseHits == 0 || loose.PeerRequests < loose.FalseHits+loose.RemoteHits || loose.FullFetches == 0 || loose.DeltaFetches != 0 {
		t.Errorf("2 bits per entry: %+v", loose)
	}
	if loose.Mode.Route != node.RouteDigest || loose.QueryMessages() < 2*loose.FalseHits {
		t.Errorf("2 bits per entry: %d query messages for %d false hits", loose.QueryMessages(), loose.FalseHits)
	}
}

func TestReplayClusterErrors(t *testing.T) {
	if _, err := replay.ReplayCluster(replay.ClusterConfig{}); err == nil {
		t.Error("no trace accepted")
	}
	tr, _ := replay.SyntheticTrace(replay.SyntheticConfig{Proxies: 2, Requests: 10})
	if _, err := replay.ReplayCluster(replay.ClusterConfig{Trace: tr, CacheFraction: 2}); err == nil {
		t.Error("cache fraction 2 accepted")
	}
	if _, err := replay.ReplayCluster(replay.ClusterConfig{Trace: tr, Modes: []replay.Mode{{Route: "carrier-pigeon"}}}); err == nil {
		t.Error("bad mode accepted")
	}
}

func TestClusterChart(t *testing.T) {
	rs := []replay.ClusterResult{
		{Mode: mustMode(t, "none"), Requests: 100},
		{Mode: mustMode(t, "icp"), Requests: 100, ICPQueries: 300, ICPReplies: 300, ICPBytes: 60000},
		{Mode: mustMode(t, "sc-1%-16b-comp-delta"), Requests: 100, DeltaFetches: 6, DigestBytes: 3000},
		{Mode: mustMode(t, "sc-10%-16b-comp-delta"), Requests: 100, DeltaFetches: 3, DigestBytes: 2000},
		{Mode: mustMode(t, "sc-10%-16b-raw-full"), Requests: 100, FullFetches: 3, DigestBytes: 9000},
	}
	c := report.ClusterChart(rs)
	if len(c.Series) != 3 || c.Series[0].Name != "ICP" || c.Series[0].X[0] != 6 || c.Series[0].Y[0] != 600 ||
		len(c.Series[1].X) != 2 || c.Series[1].X[0] != 0.12 || c.Series[1].Hollow ||
		c.Series[2].Name != "summary raw full" || !c.Series[2].Hollow {
		t.Fatalf("chart: %+v", c.Series)
	}
	var b strings.Builder
	if err := c.WriteSVG(&b); err != nil || !strings.Contains(b.String(), "summary comp. deltas") {
		t.Fatalf("svg: %v", err)
	}
	// One ring in the plot and one in the legend for the full series.
	if n := strings.Count(b.String(), `r="5.5" fill="none"`); n != 2 {
		t.Errorf("%d rings, want 2", n)
	}
}
