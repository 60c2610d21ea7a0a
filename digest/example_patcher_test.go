package digest_test

import (
	"fmt"
	"sync"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/envelope"
)

// A receiver keeps a peer's digest and applies each delta in place:
// lookups take the read lock, Patch changes the words under the write
// lock, and a delta of a few keys costs those keys, not the filter.
func ExamplePatcher() {
	f, _ := bloom.New(bloom.Config{Layout: bloom.Blocked, M: 16 * 100000, K: 11, Seed: 1})
	for i := range 100000 {
		f.AddString(fmt.Sprint("key-", i))
	}
	v1 := &digest.Digest{Sequence: 1, Bloom: f}
	full, _ := digest.Encode(v1, digest.Auto)

	g := f.Clone()
	g.AddString("key-new")
	delta, _ := digest.Diff(v1, &digest.Digest{Sequence: 2, Bloom: g}, digest.Auto)

	held, _ := digest.Decode(full, envelope.Limits{})
	p, _ := digest.NewPatcher(held)
	var mu sync.RWMutex
	err := p.Patch(delta, envelope.Limits{}, &mu)

	mu.RLock()
	fmt.Println(err, p.Digest().Sequence, p.Digest().Bloom.ContainsString("key-new"), len(delta), "bytes")
	mu.RUnlock()
	fmt.Println(p.Patch(delta, envelope.Limits{}, &mu))
	// Output:
	// <nil> 2 true 93 bytes
	// digest: delta does not apply to this base: the delta is from sequence 1, the base is 2
}
