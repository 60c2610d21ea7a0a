package replay

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	bcdigest "github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/params"
)

// staticSeed is the hashing seed of the static modes' filters.
const staticSeed = 0x5eed

// staticDigests carries a static mode's digests (Mode.Static): each
// node's digest.StaticPublisher, and each node's digest.StaticView of
// every other node, which its Directory answers through
// (nodeaccess.SetLookup). A publication's frame is applied to the
// peers' views as it is made, as the other modes' peers fetch at once.
type staticDigests struct {
	pubs  []*bcdigest.StaticPublisher
	views [][]atomic.Pointer[bcdigest.StaticView] // views[i][j]: node i's view of node j
	lim   envelope.Limits

	mu sync.Mutex
	// published[j] is node j's set at its last publication, to tell a
	// digest's false positive from a stale view's.
	published []map[hashing.Hash128]struct{}
	counts    staticCounts
	// last[j] is node j's Bloom digest's sequence at its last static
	// publication (propagate's, which alone touches it).
	last []uint64
}

// staticCounts is what the static digests counted, summed over the
// nodes: frames applied by a peer and their bytes, and the lookups of
// keys absent from the peer's published set.
type staticCounts struct {
	fullFrames, deltaFrames uint64
	fullBytes, deltaBytes   uint64
	absent, falsePositives  uint64
	predicted               float64
}

// staticRate is the static digests' false-positive rate in mode m at
// capacity n: the raw digest's, as the compressed modes' target.
func staticRate(m Mode, n uint64) float64 {
	bits := uint64(math.Ceil(m.BitsPerEntry * float64(n)))
	k := params.BestK(params.Shape{Layout: params.Classic, M: bits}, n)
	return params.ApproxFalsePositive(bits, n, k)
}

// newStaticDigests returns the publishers and empty views of n nodes
// publishing at rate in form.
func newStaticDigests(n int, rate float64, form bcdigest.StaticForm) (*staticDigests, error) {
	s := &staticDigests{pubs: make([]*bcdigest.StaticPublisher, n), views: make([][]atomic.Pointer[bcdigest.StaticView], n),
		published: make([]map[hashing.Hash128]struct{}, n), last: make([]uint64, n), lim: envelope.Limits{MaxPayload: 64 << 20}}
	for i := range n {
		var err error
		if s.pubs[i], err = bcdigest.NewStaticPublisher(bcdigest.StaticConfig{Rate: rate, Seed: staticSeed, Codec: bcdigest.Fast, Form: form}); err != nil {
			return nil, err
		}
		s.views[i] = make([]atomic.Pointer[bcdigest.StaticView], n)
	}
	return s, nil
}

// lookup returns what node i's directory asks for peer j: whether j's
// static digest, as i holds it, may hold key.
func (s *staticDigests) lookup(i, j int) func(key string) bool {
	return func(key string) bool {
		v := s.views[i][j].Load()
		h := hashing.SumStringSeed(key, staticSeed)
		maybe := v.ContainsHash(h)
		s.mu.Lock()
		if _, in := s.published[j][h]; !in && v != nil {
			s.counts.absent++
			s.counts.predicted += v.FalsePositiveRate()
			if maybe {
				s.counts.falsePositives++
			}
		}
		s.mu.Unlock()
		return maybe
	}
}

// publish makes node i's publication seq of keys (its cache's keys),
// held to bloomBytes, what its compressed Bloom digest's publication of
// the same change takes (digest.StaticPublisher.PublishWithin), and
// applies the frame to every other node's view of it.
func (s *staticDigests) publish(i int, seq uint64, keys []string, bloomBytes int) error {
	hs := make([]hashing.Hash128, len(keys))
	set := make(map[hashing.Hash128]struct{}, len(keys))
	for x, k := range keys {
		hs[x] = hashing.SumStringSeed(k, staticSeed)
		set[hs[x]] = struct{}{}
	}
	frame, full, err := s.pubs[i].PublishWithin(seq, hs, bloomBytes)
	if err != nil {
		return fmt.Errorf("node%d: static digest %d: %w", i, seq, err)
	}
	for j := range s.views {
		if j == i {
			continue
		}
		v, err := s.views[j][i].Load().Apply(frame, s.lim)
		if err != nil {
			return fmt.Errorf("node%d: static digest %d of node%d: %w", j, seq, i, err)
		}
		s.views[j][i].Store(v)
		s.mu.Lock()
		if full {
			s.counts.fullFrames++
			s.counts.fullBytes += uint64(len(frame))
		} else {
			s.counts.deltaFrames++
			s.counts.deltaBytes += uint64(len(frame))
		}
		s.mu.Unlock()
	}
	s.mu.Lock()
	s.published[i] = set
	s.mu.Unlock()
	return nil
}

// collect adds the static digests' counts to r: the frames as the
// fetches and bytes of the other modes' digests (a frame applied by a
// peer is one fetch, its length the body and the bytes sent, with no
// HTTP header around it), and the publishers' whole frames and the
// views' predicted rates at the end as the digest's size and rate.
func (s *staticDigests) collect(r *ClusterResult) error {
	s.mu.Lock()
	c := s.counts
	s.mu.Unlock()
	r.FullFetches += c.fullFrames
	r.DeltaFetches += c.deltaFrames
	r.FullDigestBodyBytes += c.fullBytes
	r.DeltaBodyBytes += c.deltaBytes
	r.DigestBytes += c.fullBytes + c.deltaBytes
	r.AbsentLookups, r.DigestFalsePositives, r.PredictedFalsePositives = c.absent, c.falsePositives, c.predicted
	var whole, keys, rate float64
	views := 0
	for i, p := range s.pubs {
		b, err := p.Whole()
		if err != nil {
			return err
		}
		whole += float64(len(b))
		for j := range s.views[i] {
			if v := s.views[i][j].Load(); v != nil {
				rk, _ := v.Sizes()
				keys += float64(rk)
				rate += v.FalsePositiveRate()
				views++
			}
		}
	}
	k := float64(len(s.pubs))
	r.FullDigestBytes, r.DigestK = whole/k, 0
	if views > 0 {
		r.DigestFalsePos = rate / float64(views)
		if keys > 0 {
			r.DigestBitsPerEntry = 8 * whole / k / (keys / float64(views))
		}
	}
	return nil
}
