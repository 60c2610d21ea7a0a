package ribbon

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/bloomcast/bloomcast/hashing"
)

// Build returns a filter of keys. A key given more than once is stored
// once.
func Build(c Config, keys [][]byte) (*Filter, error) {
	hs := make([]hashing.Hash128, len(keys))
	for i, k := range keys {
		hs[i] = hashing.SumSeed(k, c.Seed)
	}
	return BuildHashes(c, hs)
}

// BuildStrings is Build for string keys.
func BuildStrings(c Config, keys []string) (*Filter, error) {
	hs := make([]hashing.Hash128, len(keys))
	for i, k := range keys {
		hs[i] = hashing.SumStringSeed(k, c.Seed)
	}
	return BuildHashes(c, hs)
}

// BuildHashes is Build for keys already hashed with c.Seed
// (hashing.SumSeed). Keys with equal hashes are the same key. The filter
// is sized for len(hs) keys; its Len is the distinct keys among them. hs
// is not modified.
func BuildHashes(c Config, hs []hashing.Hash128) (*Filter, error) {
	if err := c.validate(); err != nil {
		return nil, err
	}
	if uint64(len(hs)) > MaxKeys {
		return nil, fmt.Errorf("%w: %d keys, more than %d", ErrConfig, len(hs), uint64(MaxKeys))
	}
	s, err := c.shape(uint64(len(hs)))
	if err != nil {
		return nil, err
	}
	return build(s, c, hs)
}

// build solves the system of hs for shape s, trying salts until one
// works.
func build(s Shape, c Config, hs []hashing.Hash128) (*Filter, error) {
	f := newFilter(s, c.Seed)
	if len(hs) == 0 {
		return f, nil
	}
	attempts := c.MaxAttempts
	if attempts == 0 {
		attempts = DefaultAttempts
	}
	main := newBand(s.Slots())
	var hi *band
	if s.HiBlocks > 0 {
		hi = newBand(64 * s.HiWords())
	}
	starts, hiStarts := s.Starts(), 64*s.HiBlocks
	var ar arranger
	for a := range attempts {
		f.salt = salt(c.Seed, a)
		sorted := ar.arrange(hs, f.salt, starts, s.Blocks)
		main.reset()
		ok := true
		for _, h := range sorted {
			k := rowOf(h, f.salt, starts)
			if !main.insert(k.start, k.lo, k.hi, k.fp&f.mask) {
				ok = false
				break
			}
		}
		if ok && hi != nil {
			hi.reset()
			for _, h := range sorted { // the keys in the first h blocks come first
				k := rowOf(h, f.salt, starts)
				if k.start >= hiStarts {
					break
				}
				if !hi.insert(k.start, k.lo, k.hi, k.fp>>f.r&1) {
					ok = false
					break
				}
			}
		}
		if !ok {
			continue
		}
		f.shape.Keys = main.rank
		main.solve(f.main, f.r)
		if hi != nil {
			hi.solve(f.hi, 1)
		}
		return f, nil
	}
	return nil, fmt.Errorf("%w: %d keys over %d slots had a dependent row with each of %d salts", ErrBuild, len(hs), s.Slots(), attempts)
}

// arranger orders the keys by start block, reused across attempts.
type arranger struct {
	block, next []uint32
	sorted      []hashing.Hash128
}

// arrange returns hs sorted by the block of their start under salt (a
// counting sort): elimination then walks through the band block by block
// with the slots and the hashes it reads in cache, instead of jumping
// anywhere, as Dillinger and Walzer (2021) do by sorting on start.
func (a *arranger) arrange(hs []hashing.Hash128, salt, starts, blocks uint64) []hashing.Hash128 {
	a.block = slices.Grow(a.block[:0], len(hs))[:len(hs)]
	a.sorted = slices.Grow(a.sorted[:0], len(hs))[:len(hs)]
	a.next = slices.Grow(a.next[:0], int(blocks)+1)[:blocks+1]
	clear(a.next)
	for i, h := range hs {
		b := uint32(startOf(h, salt, starts) >> 6)
		a.block[i] = b
		a.next[b+1]++
	}
	for b := 1; b < len(a.next); b++ {
		a.next[b] += a.next[b-1]
	}
	for i, b := range a.block {
		a.sorted[a.next[b]] = hs[i]
		a.next[b]++
	}
	return a.sorted
}

// salt returns the salt of construction attempt a: a fixed function of
// the seed, so that builds are reproducible.
func salt(seed uint64, a int) uint64 { return mix(seed + uint64(a+1)*golden) }

// band is the banded system during elimination: for each slot, the row
// whose first set bit is that slot (bit 0 of lo), or zeros when no row
// has been stored there yet, with its right-hand side.
type band struct {
	lo, hi []uint64
	res    []uint32
	rank   uint64 // rows stored
}

func newBand(slots uint64) *band {
	return &band{lo: make([]uint64, slots), hi: make([]uint64, slots), res: make([]uint32, slots)}
}

func (b *band) reset() {
	clear(b.lo)
	clear(b.hi)
	clear(b.res)
	b.rank = 0
}

// insert adds the row (lo, hi) at slot s with right-hand side res,
// reducing it against the rows stored until its first set bit lands on
// an empty slot. It reports false when the row reduces to zero with a
// non-zero right-hand side: no solution. A row that reduces to zero
// with zero (a key given twice) changes nothing. Every row is a
// combination of keys' rows, whose bits all lie inside the band, so s
// stays below the number of slots.
func (b *band) insert(s, lo, hi uint64, res uint32) bool {
	for {
		if lo == 0 {
			if hi == 0 {
				return res == 0
			}
			s, lo, hi = s+64, hi, 0
		}
		z := uint(bits.TrailingZeros64(lo))
		lo, hi = lo>>z|hi<<(64-z), hi>>z
		s += uint64(z)
		if b.lo[s] == 0 {
			b.lo[s], b.hi[s], b.res[s] = lo, hi, res
			b.rank++
			return true
		}
		lo, hi, res = lo^b.lo[s], hi^b.hi[s], res^b.res[s]
	}
}

// solve back-substitutes from the last slot to the first into words, r
// columns per block of 64 slots (block b's column j at b·r + j). Each
// column keeps the 128 slots after the current one in two words; slot
// i's bit is its right-hand side XOR the parity of its row ANDed with
// them, and a slot without a row (a free variable) gets 0.
func (b *band) solve(words []uint64, r uint) {
	var st [MaxBits][2]uint64 // per column: slots i..i+63, i+64..i+127
	cols := st[:r]
	for i := len(b.lo) - 1; i >= 0; i-- {
		lo, hi, res := b.lo[i], b.hi[i], b.res[i]
		for j := range cols {
			s0, s1 := cols[j][0]<<1, cols[j][1]<<1|cols[j][0]>>63
			s0 |= uint64(bits.OnesCount64(s0&lo^s1&hi)&1) ^ uint64(res>>j&1)
			cols[j] = [2]uint64{s0, s1}
		}
		if i&63 == 0 {
			base := uint64(i>>6) * uint64(r)
			for j := range cols {
				words[base+uint64(j)] = cols[j][0]
			}
		}
	}
}
