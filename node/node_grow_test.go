package node

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/cache"
	"github.com/bloomcast/bloomcast/counting"
	"github.com/bloomcast/bloomcast/formats/squid"
)

// TestNodeOutgrowsCapacity caches 10 times a node's --capacity (1000)
// and measures what its peers see: a Directory polling the node both as
// a bloomcast peer (digests and deltas) and as a Squid peer (its Squid
// digest), refreshed after every 1000 objects. The node grows its
// summaries at 2000, 4000, 8000 and 16000 objects' capacity; across every
// growth the peer's view follows (a full digest when its delta base is
// gone, deltas between), holds every cached object, and its false-hit
// rate, counted over lookups of absent objects through the Directory,
// stays within twice the configured target at every step. The rates are
// logged (go test -v -run TestNodeOutgrowsCapacity ./cache).
func TestNodeOutgrowsCapacity(t *testing.T) {
	const capacity, batch, batches = 1000, 1000, 10
	var logs syncBuffer
	ln := listen(t, "127.0.0.1:0")
	// Threshold 1: the publication loop publishes on its own at most
	// about once a batch, so the directory's view stays within the
	// delta history and only growths make it fetch a full digest.
	a := startNode(t, ln, nil, NodeConfig{Capacity: capacity, MemoryBytes: 256 << 20, Threshold: 1,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	dir, err := newDirectory(directoryConfig{Peers: []PeerConfig{
		{Name: "a", Proxy: a.url()},
		{Name: "a-squid", Proxy: a.url(), Protocol: Squid},
	}, PollInterval: time.Hour, MaxDigestBytes: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	target, squidTarget := a.Publisher().stats().TargetFalsePos, a.squid.Stats().TargetFalsePos
	t.Logf("configured rates at the capacity: bloomcast %.3g%%, squid %.3g%%", 100*target, 100*squidTarget)
	obj := func(i int) string { return "http://origin.test/obj/" + strconv.Itoa(i) }
	absent := func(i int) string { return "http://origin.test/absent/" + strconv.Itoa(i) }
	// falseHits counts the absent objects from..to-1 that the Directory
	// sends to each peer.
	falseHits := func(from, to int) map[string]int {
		out := map[string]int{}
		for i := from; i < to; i++ {
			for _, p := range dir.Candidates(absent(i)) {
				out[p.Name()]++
			}
		}
		return out
	}
	ctx := context.Background()
	worst, worstSquid := 0.0, 0.0
	for b := range batches {
		for i := b * batch; i < (b+1)*batch; i++ {
			if err := a.Store().Put(&cache.Entry{URL: obj(i), Status: http.StatusOK, Header: http.Header{}, Body: []byte("x")}); err != nil {
				t.Fatal(err)
			}
		}
		held := uint64(a.Store().Len())
		// The publication loop grows the summaries (a store past the
		// capacity wakes it), the bloomcast one first. Until the Squid
		// digest has grown too, it is overfull, and a Squid peer refuses
		// it (Squid's 65% fill rule) and keeps its older view.
		waitFor(t, 10*time.Second, "the summaries to grow", func() bool {
			return a.Publisher().stats().Capacity >= held && uint64(a.squid.Stats().Capacity) >= held
		})
		if err := a.Publisher().Publish(); err != nil {
			t.Fatal(err)
		}
		dir.Refresh(ctx)
		pub := a.Publisher().stats()
		for _, st := range dir.status() {
			if st.Name == "a" && st.Sequence != pub.Sequence {
				t.Fatalf("%d objects: the peer's view is at sequence %d, the node at %d (%+v)", held, st.Sequence, pub.Sequence, st)
			}
		}
		for i := 0; i < int(held); i += 7 {
			if got := candidateNames(dir.Candidates(obj(i))); len(got) != 2 {
				t.Fatalf("%d objects: object %d cached but the peer's views send it to %v", held, i, got)
			}
		}
		const lookups = 20000
		fh := falseHits(0, lookups)
		rate, squidRate := float64(fh["a"])/lookups, float64(fh["a-squid"])/lookups
		worst, worstSquid = max(worst, rate), max(worstSquid, squidRate)
		sq := a.squid.Stats()
		t.Logf("%5d objects: capacity %5d (squid %5d), predicted %.3g%% (squid %.3g%%), measured false hits %.3g%% (squid %.3g%%) of %d lookups",
			held, pub.Capacity, sq.Capacity, 100*pub.PredictedFalsePos, 100*sq.PredictedFalsePos, 100*rate, 100*squidRate, lookups)
	}
	// At 10 times the capacity, over more lookups.
	const lookups = 200000
	fh := falseHits(0, lookups)
	rate, squidRate := float64(fh["a"])/lookups, float64(fh["a-squid"])/lookups
	t.Logf("at %d objects: false hits %.4g%% (bloomcast peer), %.4g%% (squid peer) of %d lookups; worst after any step %.3g%%, %.3g%%",
		a.Store().Len(), 100*rate, 100*squidRate, lookups, 100*worst, 100*worstSquid)
	if worst := max(worst, rate); worst > 2*target {
		t.Errorf("the bloomcast peer's false-hit rate reached %.4g%%, over twice the target %.4g%%", 100*worst, 100*target)
	}
	if worstSquid := max(worstSquid, squidRate); worstSquid > 2*squidTarget {
		t.Errorf("the Squid peer's false-hit rate reached %.4g%%, over twice the target %.4g%%", 100*worstSquid, 100*squidTarget)
	}

	pub := a.Publisher().stats()
	if pub.Capacity != 16*capacity || pub.Resizes != 4 || a.squid.Stats().Capacity != 16*capacity {
		t.Errorf("after %d objects: capacity %d, %d resizes, squid capacity %d; want 16000, 4, 16000",
			a.Store().Len(), pub.Capacity, pub.Resizes, a.squid.Stats().Capacity)
	}
	for _, st := range dir.status() {
		// Each growth is a full digest for the bloomcast peer (its
		// delta base is gone); the other refreshes are deltas.
		if st.Name == "a" && (st.Full != 1+4 || st.Delta != batches-1-4) {
			t.Errorf("the bloomcast peer's fetches: %d full, %d deltas; want 5 and %d", st.Full, st.Delta, batches-1-4)
		}
	}
	if got := strings.Count(logs.String(), "summary grown past its capacity"); got != 4 {
		t.Errorf("%d growths logged, want 4:\n%s", got, logs.String())
	}
	for sample, want := range map[string]string{
		`bloomcast_summary_capacity_objects{summary="bloomcast"}`:              "16000",
		`bloomcast_summary_capacity_objects{summary="squid"}`:                  "16000",
		`bloomcast_summary_resizes_total{summary="bloomcast"}`:                 "4",
		`bloomcast_summary_predicted_false_positive_rate{summary="bloomcast"}`: fmt.Sprint(pub.PredictedFalsePos),
		`bloomcast_summary_target_false_positive_rate`:                         fmt.Sprint(pub.TargetFalsePos),
	} {
		if got := a.metric(t, sample); got != want {
			t.Errorf("%s = %q, want %q", sample, got, want)
		}
	}
}

// TestResizeJournal checks that a summary rebuilt while the cache changes
// holds exactly the cache's keys: keys stored and evicted while the
// snapshot is taken, before and after it, end up as the cache has them,
// and evicting every key the cache holds afterwards leaves both summaries
// empty, with no eviction of a key they did not hold.
func TestResizeJournal(t *testing.T) {
	pub, err := newPublisher(publisherConfig{Filter: counting.Config{N: 100, P: 0.01}, Inline: true})
	if err != nil {
		t.Fatal(err)
	}
	sd, err := newSquidDigest(squidDigestConfig{Capacity: 100})
	if err != nil {
		t.Fatal(err)
	}
	obs := observers{pub, sd}
	// Keys are canonical URLs, as a store's are.
	held := map[string]bool{}
	store := func(k string) { k = "http://origin.test/" + k; held[k] = true; obs.Stored(k) }
	evict := func(k string) { k = "http://origin.test/" + k; delete(held, k); obs.Evicted(k) }
	for i := range 150 {
		store("k" + strconv.Itoa(i))
	}
	// keys is the store's Keys, with changes on both sides of the moment
	// it copies the keys, as other goroutines may make them (other keys
	// at each call).
	calls := 0
	keys := func() []string {
		c := strconv.Itoa(calls)
		k := func(i int) string { return "k" + strconv.Itoa(10*calls+i) }
		calls++
		store("before" + c)
		evict(k(3))
		store(k(3)) // evicted and stored again
		evict(k(4))
		snapshot := slices.Collect(maps.Keys(held))
		store("after" + c)
		evict(k(5))
		evict("before" + c)
		store(k(4))
		return snapshot
	}
	if err := pub.resize(400, keys); err != nil {
		t.Fatal(err)
	}
	if err := sd.Resize(400, keys); err != nil {
		t.Fatal(err)
	}
	st, sst := pub.stats(), sd.Stats()
	if st.Capacity != 400 || st.Keys != uint64(len(held)) || sst.Capacity != 400 || sst.Keys != uint64(len(held)) {
		t.Fatalf("after the resize: %+v, %+v; want capacity 400 and %d keys", st, sst, len(held))
	}
	f, d := pub.Filter(), sd.Digest()
	for k := range held {
		if in, _ := d.Contains(squid.GET, k); !f.ContainsString(k) || !in {
			t.Errorf("%s held but not in the rebuilt summaries", k)
		}
	}
	for k := range held {
		delete(held, k)
		obs.Evicted(k)
	}
	if st := pub.stats(); st.Keys != 0 || st.Missing != 0 || sd.Stats().Keys != 0 {
		t.Errorf("after evicting every key: %+v, squid %+v", st, sd.Stats())
	}
}
