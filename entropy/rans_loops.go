package entropy

import (
	"encoding/binary"
	"math/bits"
)

// The inner loops of the rANS engine, one per direction, symbol width and
// way of renormalising. Each writes the coding step (encSym.put, or
// ransDec.get and the renormalisation) out for every symbol of a word, so
// that the compiler keeps the four states in registers: it inlines neither
// get nor a loop over the symbols, and a call in the loop would spill
// every state. The decoders run while a word's worth of input remains and
// return the words done and the input position; ransDecodeSlow finishes.

// encodeBytes encodes the byte symbols of words, last word first, with
// encSym.put written out for each byte and its renormalisation without
// branches: the low word of the state is always stored below pos, and pos
// moves over it only when it is emitted. It stops early, returning the
// number of words left, if pos falls below guard at a word's start.
func encodeBytes(enc *encTable, words []uint64, buf []byte, pos, guard int, xs *[4]uint64) (uint64, int) {
	x0, x1, x2, x3 := xs[0], xs[1], xs[2], xs[3]
	w := len(words)
	for ; w > 0 && pos >= guard; w-- {
		v := words[w-1]
		{
			e := &enc.sym[uint8(v>>56)]
			r := (e.xmax - 1 - x3) >> 63 // 1 if x3 ≥ xmax: emit 32 bits
			binary.LittleEndian.PutUint32(buf[pos-4:pos], uint32(x3))
			pos -= int(r * 4)
			x3 = x3>>32&-r | x3&(r-1)
			q, _ := bits.Mul64(x3, e.rcp)
			x3 += e.bias + (q>>e.shift)*e.cmpl
		}
		{
			e := &enc.sym[uint8(v>>48)]
			r := (e.xmax - 1 - x2) >> 63 // 1 if x2 ≥ xmax: emit 32 bits
			binary.LittleEndian.PutUint32(buf[pos-4:pos], uint32(x2))
			pos -= int(r * 4)
			x2 = x2>>32&-r | x2&(r-1)
			q, _ := bits.Mul64(x2, e.rcp)
			x2 += e.bias + (q>>e.shift)*e.cmpl
		}
		{
			e := &enc.sym[uint8(v>>40)]
			r := (e.xmax - 1 - x1) >> 63 // 1 if x1 ≥ xmax: emit 32 bits
			binary.LittleEndian.PutUint32(buf[pos-4:pos], uint32(x1))
			pos -= int(r * 4)
			x1 = x1>>32&-r | x1&(r-1)
			q, _ := bits.Mul64(x1, e.rcp)
			x1 += e.bias + (q>>e.shift)*e.cmpl
		}
		{
			e := &enc.sym[uint8(v>>32)]
			r := (e.xmax - 1 - x0) >> 63 // 1 if x0 ≥ xmax: emit 32 bits
			binary.LittleEndian.PutUint32(buf[pos-4:pos], uint32(x0))
			pos -= int(r * 4)
			x0 = x0>>32&-r | x0&(r-1)
			q, _ := bits.Mul64(x0, e.rcp)
			x0 += e.bias + (q>>e.shift)*e.cmpl
		}
		{
			e := &enc.sym[uint8(v>>24)]
			r := (e.xmax - 1 - x3) >> 63 // 1 if x3 ≥ xmax: emit 32 bits
			binary.LittleEndian.PutUint32(buf[pos-4:pos], uint32(x3))
			pos -= int(r * 4)
			x3 = x3>>32&-r | x3&(r-1)
			q, _ := bits.Mul64(x3, e.rcp)
			x3 += e.bias + (q>>e.shift)*e.cmpl
		}
		{
			e := &enc.sym[uint8(v>>16)]
			r := (e.xmax - 1 - x2) >> 63 // 1 if x2 ≥ xmax: emit 32 bits
			binary.LittleEndian.PutUint32(buf[pos-4:pos], uint32(x2))
			pos -= int(r * 4)
			x2 = x2>>32&-r | x2&(r-1)
			q, _ := bits.Mul64(x2, e.rcp)
			x2 += e.bias + (q>>e.shift)*e.cmpl
		}
		{
			e := &enc.sym[uint8(v>>8)]
			r := (e.xmax - 1 - x1) >> 63 // 1 if x1 ≥ xmax: emit 32 bits
			binary.LittleEndian.PutUint32(buf[pos-4:pos], uint32(x1))
			pos -= int(r * 4)
			x1 = x1>>32&-r | x1&(r-1)
			q, _ := bits.Mul64(x1, e.rcp)
			x1 += e.bias + (q>>e.shift)*e.cmpl
		}
		{
			e := &enc.sym[uint8(v>>0)]
			r := (e.xmax - 1 - x0) >> 63 // 1 if x0 ≥ xmax: emit 32 bits
			binary.LittleEndian.PutUint32(buf[pos-4:pos], uint32(x0))
			pos -= int(r * 4)
			x0 = x0>>32&-r | x0&(r-1)
			q, _ := bits.Mul64(x0, e.rcp)
			x0 += e.bias + (q>>e.shift)*e.cmpl
		}
	}
	xs[0], xs[1], xs[2], xs[3] = x0, x1, x2, x3
	return uint64(w), pos
}

// encodeBytesBranchy is encodeBytes renormalising with a branch, for
// models of few bits per symbol, where emitting is rare.
func encodeBytesBranchy(enc *encTable, words []uint64, buf []byte, pos, guard int, xs *[4]uint64) (uint64, int) {
	x0, x1, x2, x3 := xs[0], xs[1], xs[2], xs[3]
	w := len(words)
	for ; w > 0 && pos >= guard; w-- {
		v := words[w-1]
		x3, pos = enc.sym[uint8(v>>56)].put(x3, buf, pos)
		x2, pos = enc.sym[uint8(v>>48)].put(x2, buf, pos)
		x1, pos = enc.sym[uint8(v>>40)].put(x1, buf, pos)
		x0, pos = enc.sym[uint8(v>>32)].put(x0, buf, pos)
		x3, pos = enc.sym[uint8(v>>24)].put(x3, buf, pos)
		x2, pos = enc.sym[uint8(v>>16)].put(x2, buf, pos)
		x1, pos = enc.sym[uint8(v>>8)].put(x1, buf, pos)
		x0, pos = enc.sym[uint8(v>>0)].put(x0, buf, pos)
	}
	xs[0], xs[1], xs[2], xs[3] = x0, x1, x2, x3
	return uint64(w), pos
}

// decodeBytesBranchless decodes byte symbols, renormalising without branches.
func decodeBytesBranchless(t *ransDec, dst []uint64, src []byte, pos int, xs *[4]uint64) (uint64, int) {
	x0, x1, x2, x3 := xs[0], xs[1], xs[2], xs[3]
	lim := len(src) - 32 // a word reads at most 32 bytes
	w := 0
	for ; w < len(dst) && pos <= lim; w++ {
		var v uint64
		{
			e := t.bucket[uint32(x0)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x0)&(ransM-1), e)
			}
			x0 = (e&field)*(x0>>ransScale) + x0&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 0
			r := (x0 - ransL) >> 63 // 1 if x0 < L
			y := x0<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
			x0 = y&-r | x0&(r-1)
			pos += int(r * 4)
		}
		{
			e := t.bucket[uint32(x1)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x1)&(ransM-1), e)
			}
			x1 = (e&field)*(x1>>ransScale) + x1&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 8
			r := (x1 - ransL) >> 63 // 1 if x1 < L
			y := x1<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
			x1 = y&-r | x1&(r-1)
			pos += int(r * 4)
		}
		{
			e := t.bucket[uint32(x2)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x2)&(ransM-1), e)
			}
			x2 = (e&field)*(x2>>ransScale) + x2&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 16
			r := (x2 - ransL) >> 63 // 1 if x2 < L
			y := x2<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
			x2 = y&-r | x2&(r-1)
			pos += int(r * 4)
		}
		{
			e := t.bucket[uint32(x3)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x3)&(ransM-1), e)
			}
			x3 = (e&field)*(x3>>ransScale) + x3&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 24
			r := (x3 - ransL) >> 63 // 1 if x3 < L
			y := x3<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
			x3 = y&-r | x3&(r-1)
			pos += int(r * 4)
		}
		{
			e := t.bucket[uint32(x0)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x0)&(ransM-1), e)
			}
			x0 = (e&field)*(x0>>ransScale) + x0&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 32
			r := (x0 - ransL) >> 63 // 1 if x0 < L
			y := x0<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
			x0 = y&-r | x0&(r-1)
			pos += int(r * 4)
		}
		{
			e := t.bucket[uint32(x1)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x1)&(ransM-1), e)
			}
			x1 = (e&field)*(x1>>ransScale) + x1&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 40
			r := (x1 - ransL) >> 63 // 1 if x1 < L
			y := x1<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
			x1 = y&-r | x1&(r-1)
			pos += int(r * 4)
		}
		{
			e := t.bucket[uint32(x2)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x2)&(ransM-1), e)
			}
			x2 = (e&field)*(x2>>ransScale) + x2&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 48
			r := (x2 - ransL) >> 63 // 1 if x2 < L
			y := x2<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
			x2 = y&-r | x2&(r-1)
			pos += int(r * 4)
		}
		{
			e := t.bucket[uint32(x3)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x3)&(ransM-1), e)
			}
			x3 = (e&field)*(x3>>ransScale) + x3&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 56
			r := (x3 - ransL) >> 63 // 1 if x3 < L
			y := x3<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
			x3 = y&-r | x3&(r-1)
			pos += int(r * 4)
		}
		dst[w] = v
	}
	xs[0], xs[1], xs[2], xs[3] = x0, x1, x2, x3
	return uint64(w), pos
}

// decodeBytesBranchy decodes byte symbols, renormalising with a branch.
func decodeBytesBranchy(t *ransDec, dst []uint64, src []byte, pos int, xs *[4]uint64) (uint64, int) {
	x0, x1, x2, x3 := xs[0], xs[1], xs[2], xs[3]
	lim := len(src) - 32 // a word reads at most 32 bytes
	w := 0
	for ; w < len(dst) && pos <= lim; w++ {
		var v uint64
		{
			e := t.bucket[uint32(x0)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x0)&(ransM-1), e)
			}
			x0 = (e&field)*(x0>>ransScale) + x0&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 0
			if x0 < ransL {
				x0 = x0<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
				pos += 4
			}
		}
		{
			e := t.bucket[uint32(x1)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x1)&(ransM-1), e)
			}
			x1 = (e&field)*(x1>>ransScale) + x1&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 8
			if x1 < ransL {
				x1 = x1<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
				pos += 4
			}
		}
		{
			e := t.bucket[uint32(x2)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x2)&(ransM-1), e)
			}
			x2 = (e&field)*(x2>>ransScale) + x2&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 16
			if x2 < ransL {
				x2 = x2<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
				pos += 4
			}
		}
		{
			e := t.bucket[uint32(x3)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x3)&(ransM-1), e)
			}
			x3 = (e&field)*(x3>>ransScale) + x3&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 24
			if x3 < ransL {
				x3 = x3<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
				pos += 4
			}
		}
		{
			e := t.bucket[uint32(x0)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x0)&(ransM-1), e)
			}
			x0 = (e&field)*(x0>>ransScale) + x0&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 32
			if x0 < ransL {
				x0 = x0<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
				pos += 4
			}
		}
		{
			e := t.bucket[uint32(x1)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x1)&(ransM-1), e)
			}
			x1 = (e&field)*(x1>>ransScale) + x1&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 40
			if x1 < ransL {
				x1 = x1<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
				pos += 4
			}
		}
		{
			e := t.bucket[uint32(x2)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x2)&(ransM-1), e)
			}
			x2 = (e&field)*(x2>>ransScale) + x2&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 48
			if x2 < ransL {
				x2 = x2<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
				pos += 4
			}
		}
		{
			e := t.bucket[uint32(x3)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x3)&(ransM-1), e)
			}
			x3 = (e&field)*(x3>>ransScale) + x3&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 56
			if x3 < ransL {
				x3 = x3<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
				pos += 4
			}
		}
		dst[w] = v
	}
	xs[0], xs[1], xs[2], xs[3] = x0, x1, x2, x3
	return uint64(w), pos
}

// decodeNibblesBranchless decodes 4-bit symbols, renormalising without branches.
func decodeNibblesBranchless(t *ransDec, dst []uint64, src []byte, pos int, xs *[4]uint64) (uint64, int) {
	x0, x1, x2, x3 := xs[0], xs[1], xs[2], xs[3]
	lim := len(src) - 64 // a word reads at most 64 bytes
	w := 0
	for ; w < len(dst) && pos <= lim; w++ {
		var v uint64
		{
			e := t.bucket[uint32(x0)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x0)&(ransM-1), e)
			}
			x0 = (e&field)*(x0>>ransScale) + x0&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 0
			r := (x0 - ransL) >> 63 // 1 if x0 < L
			y := x0<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
			x0 = y&-r | x0&(r-1)
			pos += int(r * 4)
		}
		{
			e := t.bucket[uint32(x1)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x1)&(ransM-1), e)
			}
			x1 = (e&field)*(x1>>ransScale) + x1&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 4
			r := (x1 - ransL) >> 63 // 1 if x1 < L
			y := x1<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
			x1 = y&-r | x1&(r-1)
			pos += int(r * 4)
		}
		{
			e := t.bucket[uint32(x2)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x2)&(ransM-1), e)
			}
			x2 = (e&field)*(x2>>ransScale) + x2&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 8
			r := (x2 - ransL) >> 63 // 1 if x2 < L
			y := x2<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
			x2 = y&-r | x2&(r-1)
			pos += int(r * 4)
		}
		{
			e := t.bucket[uint32(x3)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x3)&(ransM-1), e)
			}
			x3 = (e&field)*(x3>>ransScale) + x3&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 12
			r := (x3 - ransL) >> 63 // 1 if x3 < L
			y := x3<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
			x3 = y&-r | x3&(r-1)
			pos += int(r * 4)
		}
		{
			e := t.bucket[uint32(x0)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x0)&(ransM-1), e)
			}
			x0 = (e&field)*(x0>>ransScale) + x0&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 16
			r := (x0 - ransL) >> 63 // 1 if x0 < L
			y := x0<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
			x0 = y&-r | x0&(r-1)
			pos += int(r * 4)
		}
		{
			e := t.bucket[uint32(x1)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x1)&(ransM-1), e)
			}
			x1 = (e&field)*(x1>>ransScale) + x1&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 20
			r := (x1 - ransL) >> 63 // 1 if x1 < L
			y := x1<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
			x1 = y&-r | x1&(r-1)
			pos += int(r * 4)
		}
		{
			e := t.bucket[uint32(x2)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x2)&(ransM-1), e)
			}
			x2 = (e&field)*(x2>>ransScale) + x2&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 24
			r := (x2 - ransL) >> 63 // 1 if x2 < L
			y := x2<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
			x2 = y&-r | x2&(r-1)
			pos += int(r * 4)
		}
		{
			e := t.bucket[uint32(x3)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x3)&(ransM-1), e)
			}
			x3 = (e&field)*(x3>>ransScale) + x3&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 28
			r := (x3 - ransL) >> 63 // 1 if x3 < L
			y := x3<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
			x3 = y&-r | x3&(r-1)
			pos += int(r * 4)
		}
		{
			e := t.bucket[uint32(x0)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x0)&(ransM-1), e)
			}
			x0 = (e&field)*(x0>>ransScale) + x0&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 32
			r := (x0 - ransL) >> 63 // 1 if x0 < L
			y := x0<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
			x0 = y&-r | x0&(r-1)
			pos += int(r * 4)
		}
		{
			e := t.bucket[uint32(x1)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x1)&(ransM-1), e)
			}
			x1 = (e&field)*(x1>>ransScale) + x1&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 36
			r := (x1 - ransL) >> 63 // 1 if x1 < L
			y := x1<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
			x1 = y&-r | x1&(r-1)
			pos += int(r * 4)
		}
		{
			e := t.bucket[uint32(x2)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x2)&(ransM-1), e)
			}
			x2 = (e&field)*(x2>>ransScale) + x2&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 40
			r := (x2 - ransL) >> 63 // 1 if x2 < L
			y := x2<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
			x2 = y&-r | x2&(r-1)
			pos += int(r * 4)
		}
		{
			e := t.bucket[uint32(x3)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x3)&(ransM-1), e)
			}
			x3 = (e&field)*(x3>>ransScale) + x3&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 44
			r := (x3 - ransL) >> 63 // 1 if x3 < L
			y := x3<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
			x3 = y&-r | x3&(r-1)
			pos += int(r * 4)
		}
		{
			e := t.bucket[uint32(x0)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x0)&(ransM-1), e)
			}
			x0 = (e&field)*(x0>>ransScale) + x0&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 48
			r := (x0 - ransL) >> 63 // 1 if x0 < L
			y := x0<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
			x0 = y&-r | x0&(r-1)
			pos += int(r * 4)
		}
		{
			e := t.bucket[uint32(x1)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x1)&(ransM-1), e)
			}
			x1 = (e&field)*(x1>>ransScale) + x1&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 52
			r := (x1 - ransL) >> 63 // 1 if x1 < L
			y := x1<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
			x1 = y&-r | x1&(r-1)
			pos += int(r * 4)
		}
		{
			e := t.bucket[uint32(x2)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x2)&(ransM-1), e)
			}
			x2 = (e&field)*(x2>>ransScale) + x2&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 56
			r := (x2 - ransL) >> 63 // 1 if x2 < L
			y := x2<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
			x2 = y&-r | x2&(r-1)
			pos += int(r * 4)
		}
		{
			e := t.bucket[uint32(x3)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x3)&(ransM-1), e)
			}
			x3 = (e&field)*(x3>>ransScale) + x3&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 60
			r := (x3 - ransL) >> 63 // 1 if x3 < L
			y := x3<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
			x3 = y&-r | x3&(r-1)
			pos += int(r * 4)
		}
		dst[w] = v
	}
	xs[0], xs[1], xs[2], xs[3] = x0, x1, x2, x3
	return uint64(w), pos
}

// decodeNibblesBranchy decodes 4-bit symbols, renormalising with a branch.
func decodeNibblesBranchy(t *ransDec, dst []uint64, src []byte, pos int, xs *[4]uint64) (uint64, int) {
	x0, x1, x2, x3 := xs[0], xs[1], xs[2], xs[3]
	lim := len(src) - 64 // a word reads at most 64 bytes
	w := 0
	for ; w < len(dst) && pos <= lim; w++ {
		var v uint64
		{
			e := t.bucket[uint32(x0)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x0)&(ransM-1), e)
			}
			x0 = (e&field)*(x0>>ransScale) + x0&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 0
			if x0 < ransL {
				x0 = x0<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
				pos += 4
			}
		}
		{
			e := t.bucket[uint32(x1)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x1)&(ransM-1), e)
			}
			x1 = (e&field)*(x1>>ransScale) + x1&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 4
			if x1 < ransL {
				x1 = x1<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
				pos += 4
			}
		}
		{
			e := t.bucket[uint32(x2)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x2)&(ransM-1), e)
			}
			x2 = (e&field)*(x2>>ransScale) + x2&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 8
			if x2 < ransL {
				x2 = x2<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
				pos += 4
			}
		}
		{
			e := t.bucket[uint32(x3)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x3)&(ransM-1), e)
			}
			x3 = (e&field)*(x3>>ransScale) + x3&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 12
			if x3 < ransL {
				x3 = x3<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
				pos += 4
			}
		}
		{
			e := t.bucket[uint32(x0)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x0)&(ransM-1), e)
			}
			x0 = (e&field)*(x0>>ransScale) + x0&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 16
			if x0 < ransL {
				x0 = x0<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
				pos += 4
			}
		}
		{
			e := t.bucket[uint32(x1)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x1)&(ransM-1), e)
			}
			x1 = (e&field)*(x1>>ransScale) + x1&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 20
			if x1 < ransL {
				x1 = x1<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
				pos += 4
			}
		}
		{
			e := t.bucket[uint32(x2)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x2)&(ransM-1), e)
			}
			x2 = (e&field)*(x2>>ransScale) + x2&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 24
			if x2 < ransL {
				x2 = x2<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
				pos += 4
			}
		}
		{
			e := t.bucket[uint32(x3)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x3)&(ransM-1), e)
			}
			x3 = (e&field)*(x3>>ransScale) + x3&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 28
			if x3 < ransL {
				x3 = x3<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
				pos += 4
			}
		}
		{
			e := t.bucket[uint32(x0)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x0)&(ransM-1), e)
			}
			x0 = (e&field)*(x0>>ransScale) + x0&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 32
			if x0 < ransL {
				x0 = x0<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
				pos += 4
			}
		}
		{
			e := t.bucket[uint32(x1)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x1)&(ransM-1), e)
			}
			x1 = (e&field)*(x1>>ransScale) + x1&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 36
			if x1 < ransL {
				x1 = x1<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
				pos += 4
			}
		}
		{
			e := t.bucket[uint32(x2)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x2)&(ransM-1), e)
			}
			x2 = (e&field)*(x2>>ransScale) + x2&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 40
			if x2 < ransL {
				x2 = x2<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
				pos += 4
			}
		}
		{
			e := t.bucket[uint32(x3)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x3)&(ransM-1), e)
			}
			x3 = (e&field)*(x3>>ransScale) + x3&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 44
			if x3 < ransL {
				x3 = x3<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
				pos += 4
			}
		}
		{
			e := t.bucket[uint32(x0)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x0)&(ransM-1), e)
			}
			x0 = (e&field)*(x0>>ransScale) + x0&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 48
			if x0 < ransL {
				x0 = x0<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
				pos += 4
			}
		}
		{
			e := t.bucket[uint32(x1)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x1)&(ransM-1), e)
			}
			x1 = (e&field)*(x1>>ransScale) + x1&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 52
			if x1 < ransL {
				x1 = x1<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
				pos += 4
			}
		}
		{
			e := t.bucket[uint32(x2)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x2)&(ransM-1), e)
			}
			x2 = (e&field)*(x2>>ransScale) + x2&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 56
			if x2 < ransL {
				x2 = x2<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
				pos += 4
			}
		}
		{
			e := t.bucket[uint32(x3)&(ransM-1)>>bucketShift]
			if e >= impure {
				e = t.search(uint32(x3)&(ransM-1), e)
			}
			x3 = (e&field)*(x3>>ransScale) + x3&(ransM-1) - (e>>24)&field
			v |= (e >> 48) << 60
			if x3 < ransL {
				x3 = x3<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
				pos += 4
			}
		}
		dst[w] = v
	}
	xs[0], xs[1], xs[2], xs[3] = x0, x1, x2, x3
	return uint64(w), pos
}
