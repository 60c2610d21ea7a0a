package bloomier

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"

	"github.com/bloomcast/bloomcast/hashing"
)

// Build returns a filter mapping keys[i] to values[i]. A key may appear
// more than once with the same value; with different values Build
// returns a *ConflictError. Every value must fit in c.ValueBits bits,
// or Build returns a *ValueError; with c.ValueBits 0 the values are as
// wide as the widest of them.
func Build(c Config, keys [][]byte, values []uint64) (*Filter, error) {
	hs := make([]hashing.Hash128, len(keys))
	for i, k := range keys {
		hs[i] = hashing.SumSeed(k, c.Seed)
	}
	return BuildHashes(c, hs, values)
}

// BuildStrings is Build for string keys.
func BuildStrings(c Config, keys []string, values []uint64) (*Filter, error) {
	hs := make([]hashing.Hash128, len(keys))
	for i, k := range keys {
		hs[i] = hashing.SumStringSeed(k, c.Seed)
	}
	return BuildHashes(c, hs, values)
}

// BuildHashes is Build for keys already hashed with c.Seed
// (hashing.SumSeed). Keys with equal hashes are the same key.
func BuildHashes(c Config, hs []hashing.Hash128, values []uint64) (*Filter, error) {
	widest := 0
	for i, v := range values {
		if v > values[widest] {
			widest = i
		}
	}
	width := 1
	if len(values) > 0 {
		width = max(1, bits.Len64(values[widest]))
	}
	switch {
	case c.ValueBits == 0:
		c.ValueBits = width
	case width > c.ValueBits && c.ValueBits > 0:
		return nil, &ValueError{Index: widest, Value: values[widest], Bits: width, ValueBits: c.ValueBits}
	}
	if err := c.validate(); err != nil {
		return nil, err
	}
	if len(hs) != len(values) {
		return nil, fmt.Errorf("%w: %d keys and %d values", ErrConfig, len(hs), len(values))
	}
	if uint64(len(hs)) > MaxKeys {
		return nil, fmt.Errorf("%w: %d keys, more than %d", ErrConfig, len(hs), uint64(MaxKeys))
	}
	segLen, segCount := layout(uint64(len(hs)))
	return build(c, hs, values, segLen, segCount)
}

// build constructs the filter over the given layout.
func build(c Config, hs []hashing.Hash128, values []uint64, segLen, segCount uint64) (*Filter, error) {
	f := newFilter(c, uint64(len(hs)), segLen, segCount)
	attempts := c.MaxAttempts
	if attempts == 0 {
		attempts = DefaultAttempts
	}
	b := newBuilder(f.Cells(), len(hs))
	for a := range attempts {
		f.salt = salt(c.Seed, a)
		ks, vs := b.arrange(f, hs, values)
		if b.peel(f, ks) {
			f.assign(b, ks, vs)
			return f, nil
		}
		if a == 0 { // equal hashes never peel: drop repeats once
			var err error
			if hs, values, err = dedupe(hs, values); err != nil {
				return nil, err
			}
			f.n = uint64(len(hs))
		}
	}
	return nil, fmt.Errorf("%w: %d keys over %d cells did not peel with any of %d salts", ErrBuild, f.n, f.Cells(), attempts)
}

// newFilter returns an empty filter for n keys with the given layout.
func newFilter(c Config, n, segLen, segCount uint64) *Filter {
	f := &Filter{r: c.ValueBits, c: c.CheckBits, updatable: c.Updatable, seed: c.Seed, n: n,
		segLen: segLen, segCount: segCount}
	if f.updatable {
		f.cells = newPacked(f.Cells(), f.c+2)
		f.vals = newPacked(f.Cells(), f.r)
	} else {
		f.cells = newPacked(f.Cells(), f.r+f.c)
	}
	return f
}

// salt returns the salt of construction attempt a: a fixed function of
// the seed, so that builds are reproducible.
func salt(seed uint64, a int) uint64 {
	return hashing.Finalize((seed + uint64(a) + 1) * hashing.StepMultiplier)
}

// peeled is a key in peeling order with its own cell (0, 1 or 2).
type peeled struct {
	key uint32
	own uint8
}

// builder holds the peeling state, reused across attempts. Each cell
// keeps, in one word, the number of remaining keys that use it (high 32
// bits) and the XOR of their indexes (low 32 bits): when the count is 1
// the XOR is the one key left.
type builder struct {
	state []uint64
	edges [][3]uint32 // each key's cells, so that peeling need not rehash
	stack []uint32    // cells whose count fell to 1
	order []peeled
	// The keys and values arranged by window (see arrange).
	hs     []hashing.Hash128
	values []uint64
	window []uint32
	start  []uint32
}

func newBuilder(cells uint64, n int) *builder {
	return &builder{state: make([]uint64, cells), order: make([]peeled, 0, n)}
}

// arrange returns the keys and their values sorted by window (a counting
// sort), as Graf and Lemire (2022) do for binary fuse filters: the passes
// over the keys then walk through the table segment by segment, with the
// cells they touch in cache, instead of jumping anywhere. With a single
// window (the xor layout) it returns hs and values as they are.
func (b *builder) arrange(f *Filter, hs []hashing.Hash128, values []uint64) ([]hashing.Hash128, []uint64) {
	if f.segCount == 1 {
		return hs, values
	}
	b.hs, b.values = slices.Grow(b.hs[:0], len(hs))[:len(hs)], slices.Grow(b.values[:0], len(hs))[:len(hs)]
	b.window = slices.Grow(b.window[:0], len(hs))[:len(hs)]
	b.start = slices.Grow(b.start[:0], int(f.segCount)+1)[:f.segCount+1]
	clear(b.start)
	for i, h := range hs {
		w := f.windowOf(h)
		b.window[i] = uint32(w)
		b.start[w+1]++
	}
	for w := 1; w < len(b.start); w++ {
		b.start[w] += b.start[w-1]
	}
	for i, w := range b.window {
		j := b.start[w]
		b.start[w]++
		b.hs[j], b.values[j] = hs[i], values[i]
	}
	return b.hs, b.values
}

// peel runs the peeling process for f's salt and reports whether every key
// was peeled; b.order then lists them in peeling order.
func (b *builder) peel(f *Filter, hs []hashing.Hash128) bool {
	clear(b.state)
	b.stack, b.order = b.stack[:0], b.order[:0]
	b.edges = slices.Grow(b.edges[:0], len(hs))[:len(hs)]
	for i, h := range hs {
		c0, c1, c2 := f.cellsOf(h)
		b.edges[i] = [3]uint32{uint32(c0), uint32(c1), uint32(c2)}
		for _, c := range [3]uint64{c0, c1, c2} {
			b.state[c] = (b.state[c] + 1<<32) ^ uint64(i)
		}
	}
	for c, s := range b.state {
		if s>>32 == 1 {
			b.stack = append(b.stack, uint32(c))
		}
	}
	for len(b.stack) > 0 {
		c := uint64(b.stack[len(b.stack)-1])
		b.stack = b.stack[:len(b.stack)-1]
		if b.state[c]>>32 != 1 {
			continue // its last key went with another cell
		}
		b.remove(uint32(b.state[c]), uint32(c))
	}
	return len(b.order) == len(hs)
}

// remove peels key i from the hypergraph, with cell c as its own.
func (b *builder) remove(i, c uint32) {
	own := uint8(0)
	for j, d := range b.edges[i] {
		if d == c {
			own = uint8(j)
		}
		b.state[d] = (b.state[d] - 1<<32) ^ uint64(i)
		if b.state[d]>>32 == 1 {
			b.stack = append(b.stack, d)
		}
	}
	b.order = append(b.order, peeled{key: i, own: own})
}

// assign fills the tables in reverse peeling order: when a key is reached,
// its two other cells already hold their final values (every key that
// sets them was peeled before it), so its own cell can be set to make the
// XOR right.
func (f *Filter) assign(b *builder, hs []hashing.Hash128, values []uint64) {
	for t := len(b.order) - 1; t >= 0; t-- {
		p := b.order[t]
		e := b.edges[p.key]
		own := uint64(e[p.own])
		check := f.check(f.fingerprint(hs[p.key]))
		target := check<<f.r | values[p.key]
		if f.updatable {
			target = check<<2 | uint64(p.own)
			f.vals.Set(own, values[p.key])
		}
		x := f.cells.Get(uint64(e[0])) ^ f.cells.Get(uint64(e[1])) ^ f.cells.Get(uint64(e[2])) ^ f.cells.Get(own)
		f.cells.Set(own, x^target)
	}
}

// dedupe drops repeated hashes with equal values (keeping the first) and
// reports a conflict for repeated hashes with different values.
func dedupe(hs []hashing.Hash128, values []uint64) ([]hashing.Hash128, []uint64, error) {
	idx := make([]int, len(hs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		if c := cmp.Compare(hs[a].Hi, hs[b].Hi); c != 0 {
			return c
		}
		if c := cmp.Compare(hs[a].Lo, hs[b].Lo); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	keepH, keepV := make([]hashing.Hash128, 0, len(hs)), make([]uint64, 0, len(hs))
	for j, i := range idx {
		if j > 0 && hs[idx[j-1]] == hs[i] {
			if first := idx[j-1]; values[first] != values[i] {
				return nil, nil, &ConflictError{First: first, Second: i}
			}
			idx[j] = idx[j-1] // later repeats compare with the first
			continue
		}
		keepH, keepV = append(keepH, hs[i]), append(keepV, values[i])
	}
	return keepH, keepV, nil
}
