package counting

import (
	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/params"
)

// geometry is where a key's counters are: the shape and the hashing of the
// filter. It computes exactly the positions bloom.Filter.Positions gives
// for the same shape, seed and scheme (TestPositionsMatchBloom checks it
// for every layout and both schemes), so that a filter without a bit view
// places its counters as one with a view does, and the bit view, when
// there is one, is a bloom.Filter of the same keys.
type geometry struct {
	layout    bloom.Layout
	m         uint64
	k         int
	blockBits uint64 // Blocked and Paged: counters per block
	span      uint64 // Classic: m; Partitioned: counters per slice; Blocked, Paged: number of blocks
	seed      uint64
	scheme    hashing.Scheme
	fast      bool // scheme is hashing.Default, whose probes run inline
}

// newGeometry returns the geometry of a validated shape.
func newGeometry(s params.Shape, seed uint64, scheme hashing.Scheme) geometry {
	if scheme == nil {
		scheme = hashing.Default
	}
	g := geometry{
		layout:    s.Layout,
		m:         s.M,
		k:         s.K,
		blockBits: s.BlockBits,
		seed:      seed,
		scheme:    scheme,
		fast:      scheme.ID() == hashing.XXH3,
	}
	switch g.layout {
	case bloom.Classic:
		g.span = g.m
	case bloom.Partitioned:
		g.span = g.m / uint64(g.k)
	default:
		g.span = g.m / g.blockBits
	}
	return g
}

// shape returns the geometry as a params.Shape.
func (g *geometry) shape() params.Shape {
	return params.Shape{Layout: g.layout, M: g.m, K: g.k, BlockBits: g.blockBits}
}

// hash returns key's hash under the scheme and seed.
func (g *geometry) hash(key []byte) hashing.Hash128 {
	if g.fast {
		return hashing.SumSeed(key, g.seed)
	}
	return g.scheme.Sum(key, g.seed)
}

// hashString is hash for a string key.
func (g *geometry) hashString(key string) hashing.Hash128 {
	if g.fast {
		return hashing.SumStringSeed(key, g.seed)
	}
	return g.scheme.SumString(key, g.seed)
}

// positions writes h's k counter positions into buf and returns them: the
// default scheme's probe sequence inline, other schemes through the
// Scheme interface, in the layout's ranges as bloom computes them.
func (g *geometry) positions(h hashing.Hash128, buf *[params.MaxK]uint64) []uint64 {
	pos := buf[:g.k]
	if !g.fast {
		s := g.scheme
		switch g.layout {
		case bloom.Classic:
			for i := range pos {
				pos[i] = s.Probe(h, i, g.m)
			}
		case bloom.Partitioned:
			for i := range pos {
				pos[i] = uint64(i)*g.span + s.Probe(h, i, g.span)
			}
		default:
			base := s.Block(h, g.span) * g.blockBits
			for i := range pos {
				pos[i] = base + s.Probe(h, i, g.blockBits)
			}
		}
		return pos
	}
	// The same ranges as the counters-only loops use, so that
	// TestPositionsMatchBloom checks theirs too.
	base, step, r := g.probeRange(h)
	p := hashing.NewProbes(h)
	for i := range pos {
		var v uint64
		v, p = p.Advance()
		pos[i] = base + hashing.Reduce(v, r)
		base += step
	}
	return pos
}
