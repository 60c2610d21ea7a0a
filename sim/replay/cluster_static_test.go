package replay_test

import (
	"math"
	"testing"

	"github.com/bloomcast/bloomcast/sim/replay"
)

// TestReplayStatic replays a small synthetic trace with static digests,
// of two filters and of one, and with compressed Bloom deltas at the
// same threshold and bits per entry: the static modes' bytes are their
// frames', their digests' false positives follow the views' predicted
// rate, and the modes publish alike and find as many hits.
func TestReplayStatic(t *testing.T) {
	const n = 3000
	tr, err := replay.SyntheticTrace(replay.SyntheticConfig{Proxies: 3, Requests: n, Objects: 800, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := replay.ReplayCluster(replay.ClusterConfig{Trace: tr,
		Modes: []replay.Mode{mustMode(t, "sc-10%-8b-static"), mustMode(t, "sc-10%-8b-static-xor"), mustMode(t, "sc-10%-8b-comp-delta")}})
	if err != nil {
		t.Fatal(err)
	}
	bl := rs[2]
	for _, r := range rs {
		t.Logf("%s: hit ratio %.4f, false hits %d, publications %d, full %d (%d B), deltas %d (%d B), control %d B",
			r.Mode, r.HitRatio(), r.FalseHits, r.Publications, r.FullFetches, r.FullDigestBodyBytes, r.DeltaFetches, r.DeltaBodyBytes, r.ControlBytes())
		if r.LocalHits+r.RemoteHits+r.Misses+r.Failed != n || r.Failed != 0 || r.PeerErrors != 0 || r.RemoteHits == 0 {
			t.Errorf("%s: requests do not add up: %+v", r.Mode, r)
		}
	}
	for _, st := range rs[:2] {
		replayStaticChecks(t, st, bl)
	}
}

// replayStaticChecks checks a static mode's result st against the
// compressed Bloom deltas' bl.
func replayStaticChecks(t *testing.T, st, bl replay.ClusterResult) {
	t.Helper()
	// Every publication is one frame to each of the two peers, the first
	// of each node whole; the bytes are the frames' and nothing else.
	if st.FullFetches+st.DeltaFetches != 2*st.Publications || st.FullFetches < 6 || st.DeltaFetches == 0 ||
		st.DigestBytes != st.FullDigestBodyBytes+st.DeltaBodyBytes || st.ControlBytes() != st.DigestBytes || st.ICPQueries != 0 {
		t.Errorf("static frames: %+v", st)
	}
	if st.FullDigestBytes <= 0 || st.DigestK != 0 || !(st.DigestFalsePos > 0 && st.DigestFalsePos < 0.1) {
		t.Errorf("static digest at the end: %.0f B, k %d, rate %g", st.FullDigestBytes, st.DigestK, st.DigestFalsePos)
	}
	// The views' false positives against their prediction: the
	// prediction is the ribbon's rate plus the added filter's, an upper
	// bound that the removed filter (at most ε full) lowers by at most
	// a few percent (of one filter: the ribbon's plus the filter's,
	// less twice their product); the lookups are close to independent
	// trials.
	fp, pred := float64(st.DigestFalsePositives), st.PredictedFalsePositives
	t.Logf("static: %d absent lookups, %d false positives, %.1f predicted", st.AbsentLookups, st.DigestFalsePositives, pred)
	if st.AbsentLookups < 1000 || pred < 30 || fp > pred+4*math.Sqrt(pred) || fp < 0.95*pred-4*math.Sqrt(pred) {
		t.Errorf("static: %d false positives in %d absent lookups, %.1f predicted", st.DigestFalsePositives, st.AbsentLookups, pred)
	}
	if st.FalseHits == 0 || st.PeerRequests < st.FalseHits+st.RemoteHits {
		t.Errorf("static: %d false hits, %d remote hits, %d peer requests", st.FalseHits, st.RemoteHits, st.PeerRequests)
	}
	if bl.AbsentLookups != 0 || bl.DigestFalsePositives != 0 {
		t.Errorf("%s counts static lookups: %+v", bl.Mode, bl)
	}
	// Against compressed Bloom deltas: the same threshold on the same
	// caches publishes as often, and the hits are as many.
	if d := float64(st.Publications) - float64(bl.Publications); math.Abs(d) > 0.05*float64(bl.Publications) {
		t.Errorf("publications: static %d, Bloom %d", st.Publications, bl.Publications)
	}
	if math.Abs(st.HitRatio()-bl.HitRatio()) > 0.01 || st.HitRatio() < 0.2 {
		t.Errorf("hit ratio: static %.4f, Bloom %.4f", st.HitRatio(), bl.HitRatio())
	}
}

// TestReplayStaticRefused: a static mode travels at once only.
func TestReplayStaticRefused(t *testing.T) {
	tr, err := replay.SyntheticTrace(replay.SyntheticConfig{Proxies: 2, Requests: 10, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = replay.ReplayCluster(replay.ClusterConfig{Trace: tr, Modes: []replay.Mode{mustMode(t, "sc-1%-16b-static")}, PollInterval: 30e9})
	if err == nil {
		t.Error("static mode with polling accepted")
	}
}
