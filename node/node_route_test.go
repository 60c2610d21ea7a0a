package node

import (
	"errors"
	"testing"

	"github.com/bloomcast/bloomcast/cache"
)

// TestZeroRoutersRefuse: the routers and the peer fetcher, zero or given
// nil, return cache.ErrConfig rather than panic (internal/apitest checks
// the same of the exported types).
func TestZeroRoutersRefuse(t *testing.T) {
	if _, _, err := (&digestRouter{}).Route(nil); !errors.Is(err, cache.ErrConfig) {
		t.Errorf("zero digestRouter: %v", err)
	}
	if _, _, err := (&icpRouter{}).Route(nil); !errors.Is(err, cache.ErrConfig) {
		t.Errorf("zero icpRouter: %v", err)
	}
	if _, o, err := (&peerFetcher{}).Fetch(nil, nil); o != peerOutcomeError || !errors.Is(err, cache.ErrConfig) {
		t.Errorf("zero peerFetcher: %v, %v", o, err)
	}
	for o, want := range map[peerOutcome]string{peerOutcomeHit: "hit", peerOutcomeFalseHit: "false_hit", peerOutcomeError: "error"} {
		if got := o.String(); got != want {
			t.Errorf("%d: %q, want %q", o, got, want)
		}
	}
}
