package entropy

import (
	"encoding/binary"
	"fmt"
	"math/bits"
)

// The gap coder codes a sparse bit array as the positions of its ones, in
// time proportional to their number rather than to the array's length:
// the right coder for the XOR of two versions of a filter that differ by
// a few keys (Mitzenmacher, "Compressed Bloom filters", on delta compression: a delta
// is sparse, and its cost is about m·H(q) for a fraction q of bits
// changed).
//
// Each one is coded by its gap g ≥ 1 from the previous one (from −1 for
// the first): the gap's exponent e = ⌊log2 g⌋ (0..63) and its e low
// bits below the leading one, Elias's gamma code (Elias, "Universal
// codeword sets and representations of the integers", IEEE Trans. IT
// 1975) with the exponent coded by the range coder of [Arith] under an
// adaptive model instead of in unary. The exponent is sent as six binary
// decisions down a tree of 63 nodes (most significant bit first), each
// node with its own pair of counts starting at 1, so the model learns the
// exponents' distribution as an order-0 model of 64 symbols would; the
// low bits go through the same coder at probability 1/2, up to 16 at a
// time. The exponents of a blocked filter's delta have two peaks (the
// few-bit gaps inside a block a key touched, the long gaps between such
// blocks), which the adaptive model learns and a single Golomb–Rice
// parameter cannot: on the XOR of filters that differ by 100 keys at 16
// bits per key it is 35–40% smaller than [Arith] over the whole array,
// where Golomb–Rice is 2–3% larger.

// gapTree is the number of adaptive nodes that code an exponent.
const gapTree = 64

// gapModel holds the counts of the exponent tree: zeros seen and total
// seen (both starting at 1 and 2) for node i in 1..63.
type gapModel struct{ c0, t [2 * gapTree]uint64 }

func newGapModel() *gapModel {
	g := gapModelStart // one copy: a delta's decoder makes one per fetch
	return &g
}

// gapModelStart is a new model's counts.
var gapModelStart = func() (g gapModel) {
	for i := range g.c0 {
		g.c0[i], g.t[i] = 1, 2
	}
	return g
}()

// AppendGaps appends to dst the [Gaps] stream of a bit array of m bits
// whose ones are at the positions pos, strictly increasing and below m.
// It returns ErrLength for positions that are not.
//
// Stream: the codec byte, the number of ones as a varint, then the range
// coder's bytes (as [Arith]'s, four of them at least once any one is
// coded; none for no ones).
func AppendGaps(dst []byte, pos []uint64, m uint64) ([]byte, error) {
	for i, p := range pos {
		if p >= m || i > 0 && p <= pos[i-1] {
			return dst, errLengthPos(p, m)
		}
	}
	dst = append(dst, byte(Gaps))
	dst = binary.AppendUvarint(dst, uint64(len(pos)))
	if len(pos) == 0 {
		return dst, nil
	}
	o := arithOut{out: dst}
	var low uint64
	rng := uint32(0xFFFFFFFF)
	model := newGapModel()
	prev := ^uint64(0) // −1
	for _, p := range pos {
		g := p - prev
		prev = p
		e := uint64(bits.Len64(g) - 1)
		node := uint64(1)
		for level := 5; level >= 0; level-- {
			bit := uint32(e>>level) & 1
			b := arithSplit(rng, model.c0[node], ^uint64(0)/model.t[node])
			mask := -bit
			low += uint64(b & mask)
			rng = b ^ (b^(rng-b))&mask
			model.c0[node] += uint64(1 - bit)
			model.t[node]++
			node = 2*node + uint64(bit)
			for rng < arithTop {
				rng <<= 8
				low = o.shift(low)
			}
		}
		// The first low bit under its exponent's counts (a geometric
		// gap's is more often 0), the rest at most 16 at a time: rng ≥
		// 2^24 keeps 2^8 steps per value.
		if e > 0 {
			e--
			node := gapTree + e
			bit := uint32(g>>e) & 1
			b := arithSplit(rng, model.c0[node], ^uint64(0)/model.t[node])
			mask := -bit
			low += uint64(b & mask)
			rng = b ^ (b^(rng-b))&mask
			model.c0[node] += uint64(1 - bit)
			model.t[node]++
			for rng < arithTop {
				rng <<= 8
				low = o.shift(low)
			}
		}
		for e > 0 {
			c := min(e, 16)
			e -= c
			v := (g >> e) & (1<<c - 1)
			rng >>= c
			low += uint64(rng) * v
			for rng < arithTop {
				rng <<= 8
				low = o.shift(low)
			}
		}
	}
	for range 4 {
		low = o.shift(low)
	}
	if o.cached {
		o.out = append(o.out, o.cache)
	}
	for ; o.pending > 0; o.pending-- {
		o.out = append(o.out, 0xFF)
	}
	return o.out, nil
}

func errLengthPos(p, m uint64) error {
	return fmt.Errorf("%w: position %d not above the previous one or not below %d", ErrLength, p, m)
}

// XORGaps decodes a [Gaps] stream of an array of m bits and flips the
// bits it names in dst (which must hold m bits): on zeroed words it
// decodes the array, on a base's words it applies a delta. It returns the
// number of bits flipped. Its work is proportional to the number of ones
// the stream names, which is at most m; on an error dst holds some of
// the flips.
func XORGaps(dst []uint64, src []byte, m uint64) (uint64, error) {
	if uint64(len(dst)) != wordsFor(m) {
		return 0, fmt.Errorf("%w: %d words for %d bits", ErrLength, len(dst), m)
	}
	r, err := NewGapReader(src, m)
	if err != nil {
		return 0, err
	}
	if err := r.XOR(dst, 0); err != nil {
		return 0, err
	}
	return r.Ones(), r.Close()
}

// GapReader decodes a [Gaps] stream in order of position, a run of words
// at a time, without holding the positions: a delta applied piece by
// piece reads it so.
// The zero value is not usable: [NewGapReader] makes one.
type GapReader struct {
	src       []byte
	pos       int
	code, rng uint32
	model     *gapModel
	m, n      uint64 // bits, ones
	read      uint64 // ones decoded
	next      uint64 // the next one's position, valid while read > 0 and not consumed
	pending   bool   // next holds a decoded position not yet flipped
	prev      uint64 // the last position decoded (−1 before the first)
	word      uint64 // the first word the next XOR may touch
}

// NewGapReader returns a reader of the m-bit array coded in src, a
// [Gaps] stream (codec byte first).
func NewGapReader(src []byte, m uint64) (*GapReader, error) {
	if len(src) == 0 {
		return nil, errTruncated("gap stream")
	}
	if Codec(src[0]) != Gaps {
		return nil, fmt.Errorf("%w: a %v stream, want gaps", ErrCodec, Codec(src[0]))
	}
	n, k := binary.Uvarint(src[1:])
	if k <= 0 || k > 1 && src[k] == 0 { // one spelling: no padded varint
		return nil, errCorrupt("gap count")
	}
	if n > m {
		return nil, errCorrupt("more ones than bits")
	}
	r := &GapReader{src: src[1+k:], m: m, n: n, prev: ^uint64(0), rng: 0xFFFFFFFF}
	if n > 0 {
		if len(r.src) < 4 {
			return nil, errTruncated("gap code")
		}
		r.code, r.pos, r.model = binary.BigEndian.Uint32(r.src), 4, newGapModel()
	}
	return r, nil
}

// Ones returns the number of ones the stream codes.
func (r *GapReader) Ones() uint64 { return r.n }

// XOR flips in dst the coded ones among bits 64·w to 64·(w+len(dst)) − 1;
// each call must start at or after the words of the previous one.
func (r *GapReader) XOR(dst []uint64, w uint64) error {
	if w < r.word {
		return fmt.Errorf("%w: word %d before word %d already read", ErrLength, w, r.word)
	}
	end := (w + uint64(len(dst))) * 64
	for {
		if !r.pending {
			if r.read == r.n {
				break
			}
			if err := r.decode(); err != nil {
				return err
			}
		}
		if r.next >= end {
			break
		}
		if r.next < 64*w {
			return fmt.Errorf("%w: bit %d before word %d", ErrLength, r.next, w)
		}
		dst[r.next/64-w] ^= 1 << (r.next % 64)
		r.pending = false
	}
	r.word = w + uint64(len(dst))
	return nil
}

// Next returns the position of the next one, in increasing order, and
// false after the last (then Close checks the stream's end). A reader is
// read with Next or with XOR, not both: Next serves a caller that needs
// the positions, as an in-place patch that must not change its array
// until the whole delta has decoded.
func (r *GapReader) Next() (uint64, bool, error) {
	if !r.pending {
		if r.read == r.n {
			return 0, false, nil
		}
		if err := r.decode(); err != nil {
			return 0, false, err
		}
	}
	r.pending = false
	r.word = r.next / 64
	return r.next, true, nil
}

// Close checks the end of the stream: every one read, the code at its
// final value and no bytes left.
func (r *GapReader) Close() error {
	if r.pending || r.read != r.n {
		return fmt.Errorf("%w: %d of %d ones past the words read", ErrLength, r.n-r.read+b2u(r.pending), r.n)
	}
	if r.code != 0 {
		return errCorrupt("gap code does not end at its final value")
	}
	if r.pos != len(r.src) {
		return errTrailing(len(r.src) - r.pos)
	}
	return nil
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// decode decodes the next one's position into r.next.
func (r *GapReader) decode() error {
	src, code, rng, pos, model := r.src, r.code, r.rng, r.pos, r.model
	node := uint64(1)
	for range 6 {
		b := arithSplit(rng, model.c0[node], ^uint64(0)/model.t[node])
		var bit uint32
		if code >= b {
			bit = 1
		}
		mask := -bit
		code -= b & mask
		rng = b ^ (b^(rng-b))&mask
		model.c0[node] += uint64(1 - bit)
		model.t[node]++
		node = 2*node + uint64(bit)
		for rng < arithTop {
			if pos == len(src) {
				return errTruncated("gap code")
			}
			code = code<<8 | uint32(src[pos])
			pos++
			rng <<= 8
		}
	}
	e := node - gapTree
	g := uint64(1)
	if e > 0 {
		e--
		node := gapTree + e
		b := arithSplit(rng, model.c0[node], ^uint64(0)/model.t[node])
		var bit uint32
		if code >= b {
			bit = 1
		}
		mask := -bit
		code -= b & mask
		rng = b ^ (b^(rng-b))&mask
		model.c0[node] += uint64(1 - bit)
		model.t[node]++
		g = g<<1 | uint64(bit)
		for rng < arithTop {
			if pos == len(src) {
				return errTruncated("gap code")
			}
			code = code<<8 | uint32(src[pos])
			pos++
			rng <<= 8
		}
	}
	for e > 0 {
		c := min(e, 16)
		e -= c
		rng >>= c
		v := uint64(code / rng)
		if v >= 1<<c {
			return errCorrupt("gap code")
		}
		code -= uint32(v) * rng
		g = g<<c | v
		for rng < arithTop {
			if pos == len(src) {
				return errTruncated("gap code")
			}
			code = code<<8 | uint32(src[pos])
			pos++
			rng <<= 8
		}
	}
	p := r.prev + g
	if p >= r.m || r.prev != ^uint64(0) && p <= r.prev {
		return errCorrupt("a position past the array")
	}
	r.code, r.rng, r.pos = code, rng, pos
	r.prev, r.next, r.pending = p, p, true
	r.read++
	return nil
}
