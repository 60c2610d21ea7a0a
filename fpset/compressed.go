package fpset

import (
	"math/bits"

	"github.com/bloomcast/bloomcast/hashing"
)

// sampleStride is the spacing of the in-memory index of a Compressed set:
// a lookup decodes at most this many codes.
const sampleStride = 64

// sample locates a block of sampleStride codes in the bit string.
type sample struct {
	prev   uint64 // the fingerprint before the block's first (0 for block 0)
	offset uint64 // bit position of the block's first code
}

// Compressed is the compressed static form of a fingerprint set, for
// transmission: the sorted fingerprints as gaps g_i = f_i − f_(i−1) − 1
// (f_0 = 0), each Golomb–Rice coded with parameter k: g>>k in unary (that
// many zeros, then a one) followed by the k low bits of g. A multiset
// adds each count's Elias gamma code after its gap. With k chosen for the
// data (within one of log2(ln 2 · 2^Bits/Len), Gallager and van Voorhis
// 1975), a set takes about log2(2^Bits/Len) + 1.5 bits per key:
// log2(1/f) + 1.5 for false-positive rate f.
//
// Queries are answered from the code itself through an index of every
// 64th fingerprint (built in memory, not sent): a binary search of the
// index, then at most 64 codes decoded. A Compressed is safe for
// concurrent queries.
//
// The zero value holds nothing: every query answers absent (count 0), its
// encoders return an error wrapping ErrConfig and its Set panics; make one
// with Sorted.Compress, Set.Compress or DecodeCompressed.
type Compressed struct {
	shape
	n, total uint64
	k        uint     // Rice parameter, 0..Bits−1
	words    []uint64 // the codes
	nbits    uint64   // length of the codes in bits
	index    []sample
}

// Compress returns the Golomb–Rice coded form of t, with the Rice
// parameter that makes it smallest.
func (t *Sorted) Compress() *Compressed {
	k := t.riceParameter()
	c := &Compressed{shape: t.shape, n: t.n, total: t.total, k: k,
		index: make([]sample, 0, (t.n+sampleStride-1)/sampleStride)}
	w := bitWriter{words: make([]uint64, 0, (t.n*(uint64(k)+2)+63)/64)}
	prev, i := uint64(0), uint64(0)
	t.each(func(f, count uint64) {
		if i%sampleStride == 0 {
			c.index = append(c.index, sample{prev: prev, offset: w.n})
		}
		g := f - prev - 1
		w.unary(g >> k)
		w.write(g&(1<<k-1), k)
		if t.countBits > 0 {
			w.gamma(count)
		}
		prev = f
		i++
	})
	c.words, c.nbits = w.words, w.n
	return c
}

// riceParameter returns the k that codes t's gaps in the fewest bits,
// trying the model's best k ([BestRiceParameter]) and its
// neighbours on the actual gaps.
func (t *Sorted) riceParameter() uint {
	if t.n == 0 {
		return 0
	}
	k0, _ := BestRiceParameter(t.n, t.bits)
	lo, hi := max(k0-1, 0), min(k0+1, t.bits-1)
	var cost [3]uint64 // Σ g>>k for k = lo, lo+1, lo+2
	prev := uint64(0)
	t.each(func(f, _ uint64) {
		g := f - prev - 1
		for k := lo; k <= hi; k++ {
			cost[k-lo] += g >> uint(k)
		}
		prev = f
	})
	best := lo
	for k := lo; k <= hi; k++ {
		if cost[k-lo]+t.n*uint64(k) < cost[best-lo]+t.n*uint64(best) {
			best = k
		}
	}
	return uint(best)
}

// block returns the index of the last block whose preceding fingerprint
// is below f. The index's fingerprints are uniform too, so it is searched
// by interpolation.
func (c *Compressed) block(f uint64) int {
	pos, _ := interpolationSearch(uint64(len(c.index)), f, func(i uint64) uint64 { return c.index[i].prev })
	return int(pos) - 1
}

// gap decodes the next Rice code. Most codes fit in the 64 bits peek
// returns, and are decoded from them.
func (c *Compressed) gap(r *bitReader) uint64 {
	if v := r.peek(); v != 0 {
		z := uint(bits.TrailingZeros64(v))
		if z+1+c.k <= 64 {
			r.pos += uint64(z + 1 + c.k)
			return uint64(z)<<c.k | v>>(z+1)&(1<<c.k-1)
		}
	}
	q, _ := r.unary()
	return q<<c.k | r.read(c.k)
}

// search returns f's count and whether it is present.
func (c *Compressed) search(f uint64) (uint64, bool) {
	j := c.block(f)
	if j < 0 {
		return 0, false
	}
	s := c.index[j]
	r := bitReader{words: c.words, pos: s.offset}
	prev := s.prev
	for i := uint64(j) * sampleStride; i < c.n && i < uint64(j+1)*sampleStride; i++ {
		v := prev + 1 + c.gap(&r)
		count := uint64(1)
		if c.countBits > 0 {
			count, _ = r.gamma(uint(c.countBits))
		}
		if v >= f {
			return count, v == f
		}
		prev = v
	}
	return 0, false
}

// Contains reports whether key's fingerprint is in the set.
func (c *Compressed) Contains(key []byte) bool { return c.ContainsHash(c.Hash(key)) }

// ContainsString is Contains for a string key.
func (c *Compressed) ContainsString(key string) bool { return c.ContainsHash(c.HashString(key)) }

// ContainsHash is Contains for a hashed key. It allocates nothing.
func (c *Compressed) ContainsHash(h hashing.Hash128) bool {
	_, found := c.search(c.Fingerprint(h))
	return found
}

// Count returns key's count (see [Set.Count]).
func (c *Compressed) Count(key []byte) uint64 { return c.CountHash(c.Hash(key)) }

// CountString is Count for a string key.
func (c *Compressed) CountString(key string) uint64 { return c.CountHash(c.HashString(key)) }

// CountHash is Count for a hashed key. It allocates nothing.
func (c *Compressed) CountHash(h hashing.Hash128) uint64 {
	count, found := c.search(c.Fingerprint(h))
	if !found {
		return 0
	}
	return count
}

// Len returns the number of distinct fingerprints.
func (c *Compressed) Len() uint64 { return c.n }

// Total returns the sum of the counts (Len for a set).
func (c *Compressed) Total() uint64 { return c.total }

// RiceParameter returns k: each gap's k low bits are sent as they are.
func (c *Compressed) RiceParameter() int { return int(c.k) }

// SizeBits returns the length of the codes in bits: what the payload of
// the encoding carries, before padding to whole 64-bit words.
func (c *Compressed) SizeBits() uint64 { return c.nbits }

// BitsPerKey returns SizeBits/Len (0 for an empty set).
func (c *Compressed) BitsPerKey() float64 {
	if c.n == 0 {
		return 0
	}
	return float64(c.nbits) / float64(c.n)
}

// MemoryBits returns the memory the form takes: the codes' words and the
// index (128 bits per 64 fingerprints).
func (c *Compressed) MemoryBits() uint64 {
	return 64*uint64(len(c.words)) + 128*uint64(len(c.index))
}

// FalsePositiveRate returns the probability that an absent key is reported
// present: Len/(2^Bits − 1).
func (c *Compressed) FalsePositiveRate() float64 { return c.falsePositive(c.n) }

// Sorted decodes every fingerprint into the sorted form, which answers
// queries faster.
func (c *Compressed) Sorted() *Sorted {
	t := newSorted(c.shape, c.n)
	t.total = c.total
	r := bitReader{words: c.words}
	prev := uint64(0)
	for i := uint64(0); i < c.n; i++ {
		prev += 1 + c.gap(&r)
		count := uint64(1)
		if c.countBits > 0 {
			count, _ = r.gamma(uint(c.countBits))
		}
		t.put(i, prev, count)
	}
	return t
}

// Set decodes every fingerprint into a dynamic set.
func (c *Compressed) Set() *Set { return c.Sorted().Set() }
