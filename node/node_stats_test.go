package node

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/cache"
)

// TestNodeStats checks the plain counters (stats, what the cluster
// replay reads) and the per-peer digest metrics against what a small
// exchange between two nodes must have counted, the NoDelta option
// (full digests only) and HashFunctions.
func TestNodeStats(t *testing.T) {
	origin := newTestOrigin(t)
	lnA, lnB := listen(t, "127.0.0.1:0"), listen(t, "127.0.0.1:0")
	b := startNode(t, lnB, nil, NodeConfig{HashFunctions: 3, Manual: true})
	a := startNode(t, lnA, nil, NodeConfig{NoDelta: true, Manual: true, Peers: []PeerConfig{{Name: "b", Proxy: b.url()}}})
	if k := b.Publisher().Filter().Shape().K; k != 3 {
		t.Fatalf("HashFunctions 3 gave k = %d", k)
	}
	ctx := context.Background()
	obj := func(i int) string { return origin.URL + "/obj/" + string(rune('a'+i)) }
	for i := range 5 {
		b.get(t, obj(i))
	}
	b.Publisher().Publish()
	a.Directory().Refresh(ctx)
	b.get(t, obj(5))
	b.Publisher().Publish()
	a.Directory().Refresh(ctx) // NoDelta: a full digest again
	a.Directory().Refresh(ctx) // unchanged: 304
	a.get(t, obj(2))           // peer hit
	key, _ := cache.Key(obj(3))
	b.Store().Delete(key)
	a.get(t, obj(3)) // false hit, then the origin
	a.get(t, obj(2)) // local hit

	sa, sb := a.stats(), b.stats()
	if sa.LocalHits != 1 || sa.PeerHits != 1 || sa.Misses != 1 || sa.PeerHitBytes == 0 || sa.LocalHitBytes == 0 {
		t.Errorf("a's requests: %+v", sa)
	}
	if sa.PeerAskHits != 1 || sa.PeerAskFalseHits != 1 || sa.PeerAskErrors != 0 {
		t.Errorf("a's peer requests: %+v", sa)
	}
	if sa.DigestFetchesFull != 2 || sa.DigestFetchesDelta != 0 || sa.DigestNotModified != 1 || sa.DigestInFullBytes == 0 {
		t.Errorf("a's digest fetches with NoDelta: %+v", sa)
	}
	if st := a.Directory().status()[0]; st.Full != 2 || st.Delta != 0 {
		t.Errorf("a's view of b: %+v", st)
	}
	_, text := getBody(t, a.url()+"/metrics")
	for result, want := range map[string]float64{"full": 2, "delta": 0, "not_modified": 1, "pushed": 0, "resync": 0, "refused": 0} {
		if got := metricValue(t, text, `bloomcast_peer_digests_total{peer="b",result="`+result+`"}`); got != want {
			t.Errorf("bloomcast_peer_digests_total %s: %v, want %v", result, got, want)
		}
	}
	if got := metricValue(t, text, `bloomcast_digests_pushed_total{kind="full"}`); got != 0 {
		t.Errorf("bloomcast_digests_pushed_total full: %v, want 0", got)
	}
	families, err := a.Metrics().Gather()
	if err != nil || len(families) == 0 {
		t.Errorf("Metrics().Gather(): %d families, %v", len(families), err)
	}
	if sb.Misses != 6 || sb.PeerHits != 0 || sb.LocalHits != 1 || sb.Other != 1 {
		// b: six objects from the origin, a's peer hit answered from
		// its cache, a's false hit answered 504 (other).
		t.Errorf("b's requests: %+v", sb)
	}
	if sb.DigestServedFull != 2 || sb.DigestOutFullBytes <= sa.DigestInFullBytes || sb.DigestServedDelta != 0 {
		// Served bytes count the response header too; fetched bytes
		// are the frames.
		t.Errorf("b's digests served %+v, a fetched %d bytes", sb, sa.DigestInFullBytes)
	}
}

// TestNodeDigestAgeMetric checks /metrics' age of the published digest
// and its pending changes against a clock the test moves.
func TestNodeDigestAgeMetric(t *testing.T) {
	origin := newTestOrigin(t)
	var mu sync.Mutex
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	n := startNode(t, listen(t, "127.0.0.1:0"), nil, NodeConfig{Manual: true, Now: clock})
	if got := n.metric(t, "bloomcast_digest_age_seconds"); got != "0" {
		t.Fatalf("age at start: %q, want 0", got)
	}
	advance(90 * time.Second)
	n.get(t, origin.URL+"/obj/1")
	if got := n.metric(t, "bloomcast_digest_age_seconds"); got != "90" {
		t.Errorf("age after 90 s: %q", got)
	}
	if got := n.metric(t, "bloomcast_digest_pending_changes"); got != "1" {
		t.Errorf("pending after one store: %q, want 1", got)
	}
	if err := n.Publisher().Publish(); err != nil {
		t.Fatal(err)
	}
	advance(2 * time.Second)
	if got := n.metric(t, "bloomcast_digest_age_seconds"); got != "2" {
		t.Errorf("age 2 s after a publication: %q", got)
	}
	if got := n.metric(t, "bloomcast_digest_pending_changes"); got != "0" {
		t.Errorf("pending after the publication: %q, want 0", got)
	}
}
