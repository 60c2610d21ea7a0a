package bloom

import (
	"fmt"

	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/internal/xxh3asm"
	"github.com/bloomcast/bloomcast/params"
)

// Geometry is where a filter's probes fall: its shape and its hashing
// (scheme and seed). A Filter has one; a structure that indexes its own
// array by a Bloom filter's positions without keeping the bits (a
// counting filter without a bit view) holds one alone, so that both place
// every key identically.
//
// Geometry, [NewGeometry], [Geometry.Positions], [Geometry.ProbeRange] and
// [Geometry.Inline] are stable API, not internal hooks: they are how a
// structure of its own (counters, fingerprints, a sketch per bit) places
// keys exactly where a Bloom filter of the same shape and seed does, so
// that the two can be compared, projected or published as one digest.
// The positions they give are part of the wire format (docs/FORMAT.md):
// they change only with a new format version.
//
// The zero Geometry is not usable: its hashing methods panic with
// "bloom: zero Geometry; use NewGeometry or New". A Geometry holds no
// mutable state, so copies of one share nothing that can change.
type Geometry struct {
	layout    Layout
	m         uint64
	k         int
	blockBits uint64 // Blocked and Paged: bits per block
	span      uint64 // Classic: m; Partitioned: bits per slice; Blocked, Paged: number of blocks
	seed      uint64
	scheme    hashing.Scheme
	// fast: the scheme's probes and blocks are hashing.Default's, which
	// run inline (schemes XXH3 and XXH3x64); hash64: its key hash is
	// hashing.Sum64Seed (XXH3x64), else hashing.SumSeed.
	fast, hash64 bool
	// blockedInline is fast && layout == Blocked: the path the key methods
	// take without a call through Hash or ContainsHash.
	blockedInline bool
	// keyed, when not nil, is the seed-keyed secret with which the key
	// methods hash a key of 17 to 128 bytes in assembly, on the path
	// keyPath names (see Filter.Contains).
	keyed   *xxh3asm.Keyed
	keyPath keyPath
}

// keyPath is the assembly routine a filter's key methods run for a key of
// 17 to 128 bytes.
type keyPath uint8

const (
	keyGo        keyPath = iota // none: hash, then the Go or hash-taking query
	keyBlocked                  // blockAllSetKey and blockSetKey (AVX-512, BMI2)
	keyBlocked64                // blockAllSetKey64 and blockSetKey64: keyBlocked under XXH3x64
	keyRange                    // rangeHasKey: classic and partitioned queries
)

// geometry lets Filter embed a Geometry under an unexported name: its
// methods are promoted, but callers cannot replace a filter's geometry.
type geometry = Geometry

// errZeroGeometry is the panic of a hashing method called on a zero
// Geometry or Filter: there is no scheme to hash with.
const errZeroGeometry = "bloom: zero Geometry or Filter; use NewGeometry or New"

// NewGeometry returns the geometry of s with the given seed and scheme
// (nil means hashing.Default). It fails with ErrConfig if s is not valid
// (params.Shape.Validate) or exceeds MaxBits.
func NewGeometry(s params.Shape, seed uint64, scheme hashing.Scheme) (Geometry, error) {
	if err := s.Validate(); err != nil {
		return Geometry{}, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if err := checkMax(s); err != nil {
		return Geometry{}, err
	}
	return newGeometry(s, seed, scheme), nil
}

// newGeometry is NewGeometry for a validated shape.
func newGeometry(s params.Shape, seed uint64, scheme hashing.Scheme) Geometry {
	if scheme == nil {
		scheme = hashing.Default
	}
	g := Geometry{
		layout:    s.Layout,
		m:         s.M,
		k:         s.K,
		blockBits: s.BlockBits,
		seed:      seed,
		scheme:    scheme,
		fast:      hashing.InlineProbes(scheme.ID()),
		hash64:    scheme.ID() == hashing.XXH3x64,
	}
	g.blockedInline = g.fast && g.layout == Blocked
	switch {
	case g.hash64 && g.blockedInline && hasAVX512:
		g.keyPath = keyBlocked64
	case g.hash64:
		// Classic and partitioned: the Go hash, then the query.
	case g.blockedInline && hasAVX512:
		g.keyPath = keyBlocked
	case g.fast && hasKeyAsm && (g.layout == Classic || g.layout == Partitioned):
		g.keyPath = keyRange
	}
	if g.keyPath != keyGo {
		t := xxh3asm.NewKeyed(seed)
		g.keyed = &t
	}
	switch g.layout {
	case Classic:
		g.span = g.m
	case Partitioned:
		g.span = g.m / uint64(g.k)
	default:
		g.span = g.m / g.blockBits
	}
	return g
}

// Shape returns the geometry's shape.
func (g *Geometry) Shape() params.Shape {
	return params.Shape{Layout: g.layout, M: g.m, K: g.k, BlockBits: g.blockBits}
}

// M returns the number of bits.
func (g *Geometry) M() uint64 { return g.m }

// K returns the number of probes per key.
func (g *Geometry) K() int { return g.k }

// Layout returns the layout.
func (g *Geometry) Layout() Layout { return g.layout }

// BlockBits returns the block size of the Blocked and Paged layouts, 0 for
// the others.
func (g *Geometry) BlockBits() uint64 { return g.blockBits }

// Seed returns the hashing seed.
func (g *Geometry) Seed() uint64 { return g.seed }

// Scheme returns the hashing scheme.
func (g *Geometry) Scheme() hashing.Scheme { return g.scheme }

// Inline reports whether the scheme is the default one, whose key hash
// is hashing.SumSeed and whose probes ProbeRange and hashing.Probes
// compute inline.
func (g *Geometry) Inline() bool { return g.fast && !g.hash64 }

// Hash returns key's hash under the scheme and seed, for the ...Hash
// methods of this and every compatible filter.
func (g *Geometry) Hash(key []byte) hashing.Hash128 {
	if g.fast && !g.hash64 {
		return hashing.SumSeed(key, g.seed)
	}
	return g.schemeSum(key)
}

// schemeSum and schemeSumString hash under the other schemes, out of
// line, so that Hash and HashString stay small enough to inline:
// XXH3x64 by a direct call, the others through the Scheme interface.
// A zero Geometry has no scheme and takes this path too: the check costs
// nothing on the default scheme's.
func (g *Geometry) schemeSum(key []byte) hashing.Hash128 {
	if g.hash64 {
		return hashing.Sum64Seed(key, g.seed)
	}
	g.mustHaveScheme()
	return g.scheme.Sum(key, g.seed)
}

func (g *Geometry) schemeSumString(key string) hashing.Hash128 {
	if g.hash64 {
		return hashing.SumString64Seed(key, g.seed)
	}
	g.mustHaveScheme()
	return g.scheme.SumString(key, g.seed)
}

// mustHaveScheme panics, naming the fix, on a zero Geometry.
func (g *Geometry) mustHaveScheme() {
	if g.scheme == nil {
		panic(errZeroGeometry)
	}
}

// HashString is Hash for a string key.
func (g *Geometry) HashString(key string) hashing.Hash128 {
	if g.fast && !g.hash64 {
		return hashing.SumStringSeed(key, g.seed)
	}
	return g.schemeSumString(key)
}

// ProbeRange returns where h's probes fall under the default scheme
// (Inline): probe i (from 0) is base + i·step + Reduce(v_i, r), v_i the
// i-th value of hashing.NewProbes(h). Classic: all of [0, m); Partitioned:
// slice i; Blocked and Paged: the key's block. Hot loops that run the
// probes themselves start from it.
func (g *Geometry) ProbeRange(h hashing.Hash128) (base, step, r uint64) {
	switch g.layout {
	case Classic:
		return 0, 0, g.m
	case Partitioned:
		return 0, g.span, g.span
	}
	return hashing.Block(h, g.span) * g.blockBits, 0, g.blockBits
}

// ownKeyed gives g a keyed table of its own, so that a copy of a
// geometry (Clone, Snapshot) shares no memory with the original.
func (g *Geometry) ownKeyed() {
	if g.keyed != nil {
		t := *g.keyed
		g.keyed = &t
	}
}

// rangeStep is ProbeRange's step in the classic (0) and partitioned (the
// slice) layouts, whose range r is span in both.
func (g *Geometry) rangeStep() uint64 {
	if g.layout == Partitioned {
		return g.span
	}
	return 0
}

// Positions writes the k bit positions of h into buf and returns them:
// exactly the bits AddHash sets and ContainsHash tests. Structures built on
// a filter's layout (counting filters, say) index their own arrays with
// them. The default scheme runs inline, others through the Scheme
// interface. buf must not be nil.
func (g *Geometry) Positions(h hashing.Hash128, buf *[params.MaxK]uint64) []uint64 {
	if buf == nil {
		panic("bloom: Positions with a nil buffer; pass a *[params.MaxK]uint64")
	}
	if !g.fast {
		return g.locate(h, buf)
	}
	pos := buf[:g.k]
	g.inlinePositions(h, pos)
	return pos
}

// inlinePositions writes h's first len(dst) positions under the default
// scheme into dst.
func (g *Geometry) inlinePositions(h hashing.Hash128, dst []uint64) {
	base, step, r := g.ProbeRange(h)
	p := hashing.NewProbes(h)
	var v uint64
	for i := range dst {
		v, p = p.Advance()
		dst[i] = base + hashing.Reduce(v, r)
		base += step
	}
}

// locate writes h's k bit positions into buf through the Scheme interface.
// It is the reference the inline paths are tested against, and the path for
// schemes other than the default.
func (g *Geometry) locate(h hashing.Hash128, buf *[params.MaxK]uint64) []uint64 {
	g.mustHaveScheme()
	s := g.scheme
	pos := buf[:g.k]
	switch g.layout {
	case Classic:
		for i := range pos {
			pos[i] = s.Probe(h, i, g.m)
		}
	case Partitioned:
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
