package entropy

//go:generate go run ./internal/ransgen -o rans_loops.go

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// The rANS engine shared by the fast bit-array coder and the counter coder.
//
// It is range-variant asymmetric numeral systems (Duda 2013, "Asymmetric
// numeral systems: entropy coding combining speed of Huffman coding with
// compression rate of arithmetic coding", arXiv:1311.2540) with a 64-bit
// state, 32-bit renormalisation and 24-bit probability precision:
//
//   - a symbol s has frequency f(s) ≥ 1 and cumulative start c(s), with the
//     frequencies of the model summing to M = 2^24;
//   - the state x lives in [L, 2^32·L) with L = 2^31;
//   - encoding s: if x ≥ f(s)·2^39 the low 32 bits of x are written out and
//     x >>= 32; then x ← ⌊x/f(s)⌋·M + (x mod f(s)) + c(s);
//   - decoding: slot = x mod M; s is the symbol with c(s) ≤ slot <
//     c(s)+f(s); x ← f(s)·⌊x/M⌋ + slot − c(s); if x < L, x ← x·2^32 + the
//     next 32-bit word.
//
// Four states are interleaved (symbol i uses state i mod 4) so that their
// dependency chains overlap in the processor. The division by f(s) in the
// encoder is a multiplication by a precomputed reciprocal (Granlund and
// Montgomery 1994, "Division by invariant integers using multiplication");
// the decoder finds a symbol with a table of 2^12 buckets of slots and,
// in the few buckets holding a boundary between symbols, a search over
// classes of equally likely symbols and a multiply-shift division inside
// the class, so no table of M entries is needed. Models of more than 3
// bits per symbol renormalise without branches (a word is read on most
// steps, and a mispredicted branch costs more than the arithmetic).

const (
	ransScale = 24
	ransM     = 1 << ransScale
	ransL     = 1 << 31
	// ransStates is the size of the four flushed states.
	ransStates = 4 * 8
)

// encSym is one symbol's encoding constants.
type encSym struct {
	xmax  uint64 // renormalise (emit 32 bits) when x ≥ xmax
	rcp   uint64 // reciprocal of the frequency
	bias  uint64
	cmpl  uint64 // M − f
	shift uint64
}

func newEncSym(cum, freq uint32) encSym {
	e := encSym{xmax: uint64(freq) << (63 - ransScale), cmpl: uint64(ransM - freq)}
	if freq < 2 {
		// ⌊x·(2^64−1)/2^64⌋ = x−1, so x + (M−1+c) + (x−1)(M−1) = x·M + c.
		e.rcp = ^uint64(0)
		e.bias = uint64(cum) + ransM - 1
		return e
	}
	// rcp = ⌈2^(63+l)/f⌉ with 2^(l−1) < f ≤ 2^l: exact quotients for all
	// x < 2^63 (Granlund–Montgomery, Theorem 4.2).
	l := uint(bits.Len32(freq - 1))
	e.rcp, _ = bits.Div64(1<<(l-1), uint64(freq)-1, uint64(freq))
	e.shift = uint64(l - 1)
	e.bias = uint64(cum)
	return e
}

// put encodes one symbol into state x, emitting at most one word below pos.
func (e *encSym) put(x uint64, buf []byte, pos int) (uint64, int) {
	if x >= e.xmax {
		pos -= 4
		binary.LittleEndian.PutUint32(buf[pos:pos+4], uint32(x))
		x >>= 32
	}
	q, _ := bits.Mul64(x, e.rcp)
	return x + e.bias + (q>>e.shift)*e.cmpl, pos
}

// decClass is a run of equally likely symbols laid out contiguously in
// [0, M): symbol order[base+i] owns [start+i·freq, start+(i+1)·freq).
type decClass struct {
	start, end, freq, base uint32
	mag                    uint64 // ⌈2^sh / freq⌉: exact ⌊d/freq⌋ for d < 2^24
	sh                     uint64
}

// branchlessBits is the model entropy (bits per symbol) above which the
// byte loops renormalise without branches: a word moves on most steps
// then, and a mispredicted branch costs more than the arithmetic.
const branchlessBits = 3.0

// A symbol's decoding entry packs its frequency (bits 0–23), its start
// (bits 24–47) and the symbol (bits 48–55); impure marks a bucket entry
// that holds a class instead (bits 0–7).
const (
	bucketBits  = 12
	bucketShift = ransScale - bucketBits
	impure      = 1 << 63
	field       = 1<<ransScale - 1
)

// ransDec holds the decoder's tables. A slot's top bucketBits bits pick a
// bucket; most buckets lie inside one symbol's range and hold its entry,
// the others (at most one per symbol boundary) send the decoder to a
// search of the classes. Only the first classes are used; the class
// search cannot leave them because the last one ends at M.
type ransDec struct {
	bucket [1 << bucketBits]uint64 // a symbol's entry, or impure | the class of the bucket's first slot
	sym    [256]uint64             // entries by layout position
	cls    [256]decClass
	// branchless renormalisation pays when most steps read a word.
	branchless bool
}

// encTable holds the encoder's constants, indexed by symbol.
type encTable struct {
	sym        [256]encSym
	branchless bool // as for ransDec
}

// class describes one class while a model is built.
type class struct {
	freq uint32 // frequency of each symbol of the class
	syms []uint8
}

// build fills the encoder table for classes that must be non-empty, have
// freq ≥ 1 and sum to M; at most 256 symbols in all.
func (e *encTable) build(cs []class) {
	var cum uint32
	for _, c := range cs {
		for _, s := range c.syms {
			e.sym[s] = newEncSym(cum, c.freq)
			cum += c.freq
		}
	}
	e.branchless = modelBits(cs) > branchlessBits
}

// modelBits is the entropy of a model in bits per symbol.
func modelBits(cs []class) float64 {
	var h float64
	for _, c := range cs {
		p := float64(c.freq) / ransM
		h -= float64(len(c.syms)) * p * math.Log2(p)
	}
	return h
}

// build fills the decoder tables for classes as for [encTable.build].
func (t *ransDec) build(cs []class) {
	var cum, n uint32
	var end [256]uint32 // by layout position
	var cls [256]uint8
	for i, c := range cs {
		k := &t.cls[i]
		k.start, k.freq, k.base = cum, c.freq, n
		l := uint64(bits.Len32(c.freq - 1))
		k.sh = ransScale + l
		k.mag = (uint64(1)<<k.sh + uint64(c.freq) - 1) / uint64(c.freq)
		for _, s := range c.syms {
			t.sym[n] = uint64(s)<<48 | uint64(cum)<<24 | uint64(c.freq)
			cum += c.freq
			end[n], cls[n] = cum, uint8(i)
			n++
		}
		k.end = cum
	}
	t.branchless = modelBits(cs) > branchlessBits
	j := 0
	for b := range t.bucket {
		lo := uint32(b) << bucketShift
		for end[j] <= lo {
			j++
		}
		if end[j] >= lo+1<<bucketShift {
			t.bucket[b] = t.sym[j]
		} else {
			t.bucket[b] = impure | uint64(cls[j])
		}
	}
}

// search returns the entry of the symbol of slot s in the impure bucket
// e: a search up the classes from the class of the bucket's first slot,
// then a division inside the class. It is inlined into the decoding loops
// so that the rare slow path costs no call (which would spill the states).
func (t *ransDec) search(s uint32, e uint64) uint64 {
	c := uint8(e)
	for s >= t.cls[c].end {
		c++
	}
	k := &t.cls[c]
	q := uint32((uint64(s-k.start) * k.mag) >> k.sh)
	return t.sym[uint8(k.base+q)]
}

// get decodes one symbol from x (before renormalisation).
func (t *ransDec) get(x uint64) (uint64, uint64) {
	s := uint32(x) & (ransM - 1)
	e := t.bucket[s>>bucketShift]
	if e >= impure {
		e = t.search(s, e)
	}
	return (e&field)*(x>>ransScale) + uint64(s) - (e>>24)&field, e >> 48
}

// ransEncode codes nsym ≥ 1 symbols of sw bits (4 or 8) taken from words
// (symbol i at bit i·sw); last is the final word ⌈nsym·sw/64⌉−1, masked by
// the caller. It writes the stream backwards ending at buf[end] and
// returns where it starts, or ok = false if it would start before lim. The
// stream is the four final states then the emitted words.
func ransEncode(buf []byte, lim, end int, words []uint64, last uint64, nsym uint64, sw uint, enc *encTable) (start int, ok bool) {
	per := uint64(64 / sw)
	nw := (nsym - 1) / per // full words before the last one
	tail := nsym - nw*per  // symbols in the last word, 1..per
	mask := uint64(1)<<sw - 1
	pos := end
	xs := [4]uint64{ransL, ransL, ransL, ransL}
	if tail > 0 {
		if pos-4*int(tail) < lim+ransStates {
			return 0, false
		}
		for j := tail; j > 0; j-- {
			i := j - 1
			xs[i&3], pos = enc.sym[uint8(last>>(i*uint64(sw))&mask)].put(xs[i&3], buf, pos)
		}
	}
	x0, x1, x2, x3 := xs[0], xs[1], xs[2], xs[3]
	guard := lim + ransStates + 4*int(per)
	if sw == 8 {
		var w uint64
		if enc.branchless {
			w, pos = encodeBytes(enc, words[:nw], buf, pos, guard, &xs)
		} else {
			w, pos = encodeBytesBranchy(enc, words[:nw], buf, pos, guard, &xs)
		}
		if w > 0 {
			return 0, false
		}
		x0, x1, x2, x3 = xs[0], xs[1], xs[2], xs[3]
	} else {
		for w := nw; w > 0; w-- {
			if pos < guard {
				return 0, false
			}
			v := words[w-1]
			for sh := 60; sh >= 0; sh -= 16 {
				x3, pos = enc.sym[uint8(v>>sh)&15].put(x3, buf, pos)
				x2, pos = enc.sym[uint8(v>>(sh-4))&15].put(x2, buf, pos)
				x1, pos = enc.sym[uint8(v>>(sh-8))&15].put(x1, buf, pos)
				x0, pos = enc.sym[uint8(v>>(sh-12))&15].put(x0, buf, pos)
			}
		}
	}
	pos -= ransStates
	binary.LittleEndian.PutUint64(buf[pos:], x0)
	binary.LittleEndian.PutUint64(buf[pos+8:], x1)
	binary.LittleEndian.PutUint64(buf[pos+16:], x2)
	binary.LittleEndian.PutUint64(buf[pos+24:], x3)
	return pos, true
}

// ransDecode is the inverse of ransEncode: it reads the stream src (all of
// it) and writes nsym symbols of sw bits into dst, which has exactly
// ⌈nsym·sw/64⌉ words; the unused bits of the last word are zero.
func ransDecode(dst []uint64, src []byte, nsym uint64, sw uint, t *ransDec) error {
	xs, err := ransStart(src)
	if err != nil {
		return err
	}
	pos, err := ransWords(dst, src, ransStates, nsym, sw, t, &xs)
	if err != nil {
		return err
	}
	return ransFinish(src, pos, xs)
}

// ransStart reads and checks the four initial states.
func ransStart(src []byte) ([4]uint64, error) {
	var xs [4]uint64
	if len(src) < ransStates {
		return xs, errTruncated("rANS states")
	}
	for i := range xs {
		xs[i] = binary.LittleEndian.Uint64(src[8*i:])
		if xs[i] < ransL || xs[i] >= ransL<<32 {
			return xs, errCorrupt("rANS state out of range")
		}
	}
	return xs, nil
}

// ransWords decodes the next nsym symbols of sw bits from src at pos into
// dst (⌈nsym·sw/64⌉ words), with the states xs, and returns where it
// stopped reading. Runs of whole words keep the state schedule i mod 4,
// since a word holds a multiple of 4 symbols.
func ransWords(dst []uint64, src []byte, pos int, nsym uint64, sw uint, t *ransDec, xs *[4]uint64) (int, error) {
	per := uint64(64 / sw)
	nw := nsym / per
	var w uint64
	switch {
	case sw == 8 && t.branchless:
		w, pos = decodeBytesBranchless(t, dst[:nw], src, pos, xs)
	case sw == 8:
		w, pos = decodeBytesBranchy(t, dst[:nw], src, pos, xs)
	case t.branchless:
		w, pos = decodeNibblesBranchless(t, dst[:nw], src, pos, xs)
	default:
		w, pos = decodeNibblesBranchy(t, dst[:nw], src, pos, xs)
	}
	return ransDecodeSlow(dst[w:], src, pos, nsym-w*per, sw, t, xs)
}

// ransDecodeSlow decodes the remaining nsym symbols one at a time with
// bounds checks on every read (near the end of the input, and the tail).
// Symbol counting restarts at a word boundary, which is a multiple of 4
// symbols, so the state schedule i mod 4 is unchanged.
func ransDecodeSlow(dst []uint64, src []byte, pos int, nsym uint64, sw uint, t *ransDec, xs *[4]uint64) (int, error) {
	per := uint64(64 / sw)
	var v uint64
	var s uint64
	for i := uint64(0); i < nsym; i++ {
		x := &xs[i&3]
		*x, s = t.get(*x)
		v |= s << ((i % per) * uint64(sw))
		if *x < ransL {
			if len(src)-pos < 4 {
				return pos, errTruncated("rANS words")
			}
			*x = *x<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
			pos += 4
		}
		if i%per == per-1 || i == nsym-1 {
			dst[i/per] = v
			v = 0
		}
	}
	return pos, nil
}

// ransFinish checks that decoding ended where encoding started: every state
// back at L and every byte consumed.
func ransFinish(src []byte, pos int, xs [4]uint64) error {
	if xs != [4]uint64{ransL, ransL, ransL, ransL} {
		return errCorrupt("rANS final state")
	}
	if pos != len(src) {
		return errTrailing(len(src) - pos)
	}
	return nil
}
