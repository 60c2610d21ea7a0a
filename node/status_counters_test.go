package node

import "testing"

// TestStatusCountersPeerAllocs: counting a request to a peer already
// counted allocates nothing (it runs on every peer hit).
func TestStatusCountersPeerAllocs(t *testing.T) {
	var c statusCounters
	name := string([]byte("peer-b")) // not a constant: as a peer's name is
	c.peer(name, peerOutcomeHit)
	allocs := testing.AllocsPerRun(100, func() { c.peer(name, peerOutcomeFalseHit) })
	if allocs != 0 {
		t.Errorf("%v allocations per counted request", allocs)
	}
	if hits, falseHits, errs := c.peerAsks(name); hits != 1 || falseHits != 101 || errs != 0 {
		t.Errorf("counted %d hits, %d false hits, %d errors", hits, falseHits, errs)
	}
}
