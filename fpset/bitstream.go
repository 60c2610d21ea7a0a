package fpset

import "math/bits"

// The Rice-coded form is a bit string stored in 64-bit words, bit i at bit
// i mod 64 of word i/64 (least significant bit first), as the packed
// arrays are.

// bitWriter appends bits to a word slice.
type bitWriter struct {
	words []uint64
	n     uint64 // bits written
}

// write appends the width (0..64) low bits of v; v must have no higher
// bits set.
func (w *bitWriter) write(v uint64, width uint) {
	if width == 0 {
		return
	}
	off := w.n & 63
	if off == 0 {
		w.words = append(w.words, 0)
	}
	w.words[len(w.words)-1] |= v << off
	if off+uint64(width) > 64 {
		w.words = append(w.words, v>>(64-off))
	}
	w.n += uint64(width)
}

// unary appends q zero bits and a one bit.
func (w *bitWriter) unary(q uint64) {
	for ; q >= 64; q -= 64 {
		w.write(0, 64)
	}
	w.write(1<<q, uint(q)+1)
}

// gamma appends Elias's gamma code of c ≥ 1 ("Universal codeword sets and
// representations of the integers", IEEE Trans. Inf. Theory 21(2), 1975):
// L = floor(log2 c) zeros, a one (c's leading bit), then c's L low bits.
func (w *bitWriter) gamma(c uint64) {
	l := uint(bits.Len64(c) - 1)
	w.unary(uint64(l))
	w.write(c&(1<<l-1), l)
}

// bitReader reads a bit string. Bits past the end read as zero; callers
// that decode untrusted input check pos against the length.
type bitReader struct {
	words []uint64
	pos   uint64
}

// peek returns the 64 bits from pos on.
func (r *bitReader) peek() uint64 {
	w, off := r.pos>>6, r.pos&63
	if w >= uint64(len(r.words)) {
		return 0
	}
	v := r.words[w] >> off
	if off != 0 && w+1 < uint64(len(r.words)) {
		v |= r.words[w+1] << (64 - off)
	}
	return v
}

// read returns the next width (0..64) bits.
func (r *bitReader) read(width uint) uint64 {
	if width == 0 {
		return 0
	}
	v := r.peek() & (^uint64(0) >> (64 - width))
	r.pos += uint64(width)
	return v
}

// unary reads zeros up to and including a one and returns the number of
// zeros. It reports false if no one bit follows pos.
func (r *bitReader) unary() (uint64, bool) {
	end := 64 * uint64(len(r.words))
	q := uint64(0)
	for r.pos < end {
		if v := r.peek(); v != 0 {
			z := uint64(bits.TrailingZeros64(v))
			r.pos += z + 1
			return q + z, true
		}
		step := min(64, end-r.pos)
		q += step
		r.pos += step
	}
	return 0, false
}

// gamma reads a gamma code whose value must be below 2^maxBits. It reports
// false for a code that is cut short or too long.
func (r *bitReader) gamma(maxBits uint) (uint64, bool) {
	l, ok := r.unary()
	if !ok || l >= uint64(maxBits) {
		return 0, false
	}
	return 1<<l | r.read(uint(l)), true
}
