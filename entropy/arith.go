package entropy

import (
	"encoding/binary"
	"math/bits"
)

// The reference coder: a binary arithmetic coder (Witten, Neal and Cleary,
// "Arithmetic coding for data compression", CACM 1987) in its range-coder
// form (Subbotin's and Schindler's range coders: a 32-bit range
// renormalised a byte at a time, with Schindler's carry propagation
// through a cached byte and a run of pending 0xFF bytes), driven by the
// adaptive model of Mitzenmacher's "Compressed Bloom filters": two counts
// starting at 1, bit i coded as 0 with probability c0/(c0+c1), the count
// of the bit's value incremented after it. The code length is
// −log2 Π(model probabilities) + O(1) = log2((m+1)·C(m, n1)) + O(1)
// ≤ m·H(n1/m) + log2(m+1) + O(1) bits.

// arithTop: the range is renormalised while below it.
const arithTop = 1 << 24

// arithSplit is the model's split of rng for c0 zeros among t bits seen
// (plus the two initial counts), given r = ⌊(2^64−1)/t⌋: the bound
// ⌊rng·c0·r/2^64⌋, at least 1, which is ⌊rng·c0/t⌋ or less by at most
// 1 + rng·c0/2^64 (one while c0 < 2^32: far below 2^−24 of rng). The
// reciprocal depends only on the bit's index, so its division runs ahead
// of the coder's dependency chain, which holds only multiplications.
func arithSplit(rng uint32, c0, r uint64) uint32 {
	hi, lo := bits.Mul64(uint64(rng), c0)
	q, _ := bits.Mul64(lo, r)
	return uint32(max(hi*r+q, 1)) // < rng because r ≤ 2^64/t and c0 < t
}

// arithOut is the byte output of the encoder with carry propagation.
type arithOut struct {
	out     []byte
	cache   byte
	cached  bool   // cache holds a byte not yet written
	pending uint64 // 0xFF bytes after cache, waiting for a possible carry
}

// shift moves the top byte of the 32-bit low (plus carry at bit 32) out.
func (o *arithOut) shift(low uint64) uint64 {
	if uint32(low) < 0xFF000000 || low >= 1<<32 {
		carry := byte(low >> 32)
		if o.cached {
			o.out = append(o.out, o.cache+carry)
		}
		for ; o.pending > 0; o.pending-- {
			o.out = append(o.out, 0xFF+carry)
		}
		o.cache = byte(low >> 24)
		o.cached = true
	} else {
		o.pending++
	}
	return (low << 8) & 0xFFFFFFFF
}

func arithEncode(dst []byte, words []uint64, m uint64) []byte {
	if m > 0 {
		// Room for the expected size, so that appending rarely grows.
		h := Entropy(float64(onesCount(words, m)) / float64(m))
		if need := int(float64(m)*h/8*1.001) + 64; cap(dst)-len(dst) < need {
			dst = append(make([]byte, 0, len(dst)+need), dst...)
		}
	}
	o := arithOut{out: append(dst, byte(Arith))}
	var low uint64
	rng := uint32(0xFFFFFFFF)
	c0, t := uint64(1), uint64(2)
	for i := uint64(0); i < m; i += 64 {
		v := words[i/64]
		n := min(m-i, 64)
		for j := uint64(0); j < n; j++ {
			b := arithSplit(rng, c0, ^uint64(0)/t)
			bit := uint32(v & 1)
			mask := -bit
			low += uint64(b & mask)
			rng = b ^ (b^(rng-b))&mask // b for a 0, rng−b for a 1
			c0 += uint64(1 - bit)
			t++
			v >>= 1
			for rng < arithTop {
				rng <<= 8
				low = o.shift(low)
			}
		}
	}
	// Flush: the four bytes of low, so that the decoder ends with its
	// code (the stream value minus low) exactly 0, a 32-bit check.
	for range 4 {
		low = o.shift(low)
	}
	if o.cached {
		o.out = append(o.out, o.cache)
	}
	for ; o.pending > 0; o.pending-- {
		o.out = append(o.out, 0xFF)
	}
	return o.out
}

// arithDecode decodes the stream after its codec byte.
func arithDecode(dst []uint64, src []byte, m uint64) error {
	var d arithDec
	if err := d.start(src); err != nil {
		return err
	}
	if err := d.words(dst, src, 0, m); err != nil {
		return err
	}
	return d.finish(src)
}

// arithDec is the decoder's state between runs of words.
type arithDec struct {
	code, rng uint32
	c0, t     uint64
	pos       int
}

// start reads the first four bytes of the stream after its codec byte.
func (d *arithDec) start(src []byte) error {
	if len(src) < 4 {
		return errTruncated("arithmetic code")
	}
	*d = arithDec{code: binary.BigEndian.Uint32(src), pos: 4, rng: 0xFFFFFFFF, c0: 1, t: 2}
	return nil
}

// words decodes into dst the bits from bit i (a multiple of 64) up to
// i + 64·len(dst) or m, whichever is first.
func (d *arithDec) words(dst []uint64, src []byte, i, m uint64) error {
	code, rng, c0, t, pos := d.code, d.rng, d.c0, d.t, d.pos
	for w := range dst {
		var v uint64
		n := min(m-i, 64)
		for j := uint64(0); j < n; j++ {
			b := arithSplit(rng, c0, ^uint64(0)/t)
			var bit uint32
			if code >= b {
				bit = 1
			}
			mask := -bit
			code -= b & mask
			rng = b ^ (b^(rng-b))&mask
			c0 += uint64(1 - bit)
			v |= uint64(bit) << j
			t++
			for rng < arithTop {
				if pos == len(src) {
					return errTruncated("arithmetic code")
				}
				code = code<<8 | uint32(src[pos])
				pos++
				rng <<= 8
			}
		}
		dst[w] = v
		i += 64
	}
	d.code, d.rng, d.c0, d.t, d.pos = code, rng, c0, t, pos
	return nil
}

// finish checks the end of the stream: the code at its final value and
// every byte read.
func (d *arithDec) finish(src []byte) error {
	if d.code != 0 {
		return errCorrupt("arithmetic code does not end at its final value")
	}
	if d.pos != len(src) {
		return errTrailing(len(src) - d.pos)
	}
	return nil
}
