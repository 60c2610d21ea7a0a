package entropy

import (
	"encoding/binary"
	"math/bits"
)

// BitsTable is the decoding table of the [RANS] bit-array streams of one
// density: built once, it decodes any number of streams of that density
// (a receiver of a digest coded in pieces keeps one per distinct density
// of its pieces, where [DecodeBits] builds a table for every call), and
// it reads one bit of a stream by decoding only the bytes up to it.
//
// It is small (under 500 bytes, where DecodeBits's table has 2^12
// buckets of 8 bytes) because the byte model has nine classes of equally
// likely symbols, the bytes with j ones: a slot's class is found from a
// table of 2^7 buckets and a short search up the classes, and the symbol
// inside its class by a multiply-shift division (Granlund and Montgomery
// 1994, "Division by invariant integers using multiplication"). A
// BitsTable is read-only once built and safe for concurrent use. The zero
// BitsTable decodes no RANS stream (each is refused with an error
// wrapping ErrCorrupt); [NewBitsTable] builds one.
type BitsTable struct {
	density uint32
	bucket  [1 << classBucketBits]uint8 // the class of the bucket's first slot
	cls     [9]decClass
}

const (
	classBucketBits  = 7
	classBucketShift = ransScale - classBucketBits
	// BitsTableBytes is the size of a BitsTable.
	BitsTableBytes = 8 + 1<<classBucketBits + 9*32
)

// byteLayout is the byte values in the order of the model's layout: by
// number of ones, ascending within a count (byPopcount flattened).
var byteLayout [256]uint8

func init() {
	n := 0
	for _, syms := range byPopcount {
		n += copy(byteLayout[n:], syms)
	}
}

// StreamDensity returns the density of a [RANS] stream written by
// [EncodeBits] (the model's parameter, which NewBitsTable takes), and
// false for a stream of another codec or too short to hold one.
func StreamDensity(src []byte) (uint32, bool) {
	if len(src) < ransHeader || Codec(src[0]) != RANS {
		return 0, false
	}
	return binary.LittleEndian.Uint32(src[1:]), true
}

// NewBitsTable builds the decoding table of the RANS streams of density
// (see StreamDensity).
func NewBitsTable(density uint32) *BitsTable {
	t := &BitsTable{density: density}
	cs := byteClasses(density)
	var cum, n uint32
	for j, c := range cs {
		k := &t.cls[j]
		k.start, k.freq, k.base = cum, c.freq, n
		k.sh = ransScale + uint64(bits.Len32(c.freq-1))
		k.mag = (uint64(1)<<k.sh + uint64(c.freq) - 1) / uint64(c.freq)
		cum += uint32(len(c.syms)) * c.freq
		n += uint32(len(c.syms))
		k.end = cum
	}
	c := 0
	for b := range t.bucket {
		for uint32(b)<<classBucketShift >= t.cls[c].end {
			c++
		}
		t.bucket[b] = uint8(c)
	}
	return t
}

// Density returns the density the table was built for.
func (t *BitsTable) Density() uint32 { return t.density }

// start checks that src is a RANS stream of t's density and returns its
// four states and the stream after its header.
func (t *BitsTable) start(src []byte) ([4]uint64, []byte, error) {
	if len(src) == 0 {
		return [4]uint64{}, nil, errTruncated("no codec byte")
	}
	if Codec(src[0]) != RANS {
		return [4]uint64{}, nil, ErrCodec
	}
	if len(src) < ransHeader {
		return [4]uint64{}, nil, errTruncated("RANS density")
	}
	if t.cls[len(t.cls)-1].end != ransM {
		return [4]uint64{}, nil, errCorrupt("the zero BitsTable decodes no stream: build one with NewBitsTable")
	}
	if binary.LittleEndian.Uint32(src[1:]) != t.density {
		return [4]uint64{}, nil, errCorrupt("density differs from the table's")
	}
	src = src[ransHeader:]
	xs, err := ransStart(src)
	return xs, src, err
}

// Decode decodes an m-bit array as [DecodeBits] does with codec [Fast]: a
// [Raw] or [Const] stream as DecodeBits does, a [RANS] stream with t,
// which must be the table of its density (else an error wrapping
// ErrCorrupt). The stream is checked as DecodeBits checks it.
func (t *BitsTable) Decode(dst []uint64, src []byte, m uint64) error {
	if len(src) > 0 && Codec(src[0]) != RANS {
		return DecodeBits(dst, src, m, Fast)
	}
	if uint64(len(dst)) != wordsFor(m) {
		return ErrLength
	}
	xs, body, err := t.start(src)
	if err != nil {
		return err
	}
	pos, err := t.decode(dst, body, ransStates, bytesFor(m), &xs)
	if err != nil {
		return err
	}
	if err := ransFinish(body, pos, xs); err != nil {
		return err
	}
	return checkTail(dst, m)
}

// BitsMark is where a decoder stands in a [RANS] stream at a byte of the
// array: its four states and the input position. [BitsTable.DecodeMarks]
// takes them as it decodes a stream whole, and [BitsTable.Bit] starts
// from the last one before the bit it reads instead of the stream's
// start. The zero BitsMark is none.
type BitsMark struct {
	xs   [4]uint64
	pos  uint32 // in the stream after its header; 0 for no mark
	byte uint32 // the array byte decoded next
}

// BitsMarkBytes is the size of a BitsMark.
const BitsMarkBytes = 40

// DecodeMarks is Decode, and also fills marks (a RANS stream only) with
// the decoder's position at bytes every·j of the array, j = 1,
// 2, … (every a positive multiple of 8), as far as marks goes and the
// array reaches; the marks it does not reach are zeroed.
func (t *BitsTable) DecodeMarks(dst []uint64, src []byte, m, every uint64, marks []BitsMark) error {
	clear(marks)
	if len(src) > 0 && Codec(src[0]) != RANS {
		return DecodeBits(dst, src, m, Fast)
	}
	if uint64(len(dst)) != wordsFor(m) {
		return ErrLength
	}
	if every == 0 || every%8 != 0 {
		return ErrLength
	}
	xs, body, err := t.start(src)
	if err != nil {
		return err
	}
	nsym, pos := bytesFor(m), ransStates
	for j, done := 0, uint64(0); done < nsym; j++ {
		n := min(nsym-done, every)
		if pos, err = t.decode(dst[done/8:], body, pos, n, &xs); err != nil {
			clear(marks)
			return err
		}
		done += n
		if j < len(marks) && done < nsym {
			marks[j] = BitsMark{xs: xs, pos: uint32(pos), byte: uint32(done)}
		}
	}
	if err := ransFinish(body, pos, xs); err != nil {
		clear(marks)
		return err
	}
	if err := checkTail(dst, m); err != nil {
		clear(marks)
		return err
	}
	return nil
}

// Bit returns bit i of the m-bit array coded in src (a stream Decode
// reads), decoding a [RANS] stream only from the last of marks (taken by
// DecodeMarks from this stream; none is allowed) at or before the byte
// that holds the bit, up to that byte. That part is checked for
// truncation, but the final states that tell a corrupt stream are not
// reached: a caller that must know a stream is sound decodes it whole
// once, which is when it takes the marks.
func (t *BitsTable) Bit(src []byte, m, i uint64, marks []BitsMark) (bool, error) {
	if i >= m {
		return false, ErrLength
	}
	if len(src) > 0 {
		switch Codec(src[0]) {
		case Raw:
			if uint64(len(src)) != 1+bytesFor(m) {
				return false, errCorrupt("raw stream length")
			}
			return src[1+i/8]>>(i%8)&1 != 0, nil
		case Const:
			if len(src) != 2 || src[1] > 1 {
				return false, errCorrupt("constant stream")
			}
			return src[1] == 1, nil
		}
	}
	xs, body, err := t.start(src)
	if err != nil {
		return false, err
	}
	nsym, pos := i/8+1, ransStates
	for j := len(marks) - 1; j >= 0; j-- {
		k := &marks[j]
		if k.pos != 0 && uint64(k.byte) < nsym && k.byte%8 == 0 && int(k.pos) <= len(body) {
			xs, pos, nsym = k.xs, int(k.pos), nsym-uint64(k.byte)
			break
		}
	}
	// Skip the whole words before the bit's (a multiple of 4 symbols, so
	// the state schedule carries over), then decode its word.
	if n := (nsym - 1) / 8 * 8; n > 0 {
		if pos, err = t.skip(body, pos, n, &xs); err != nil {
			return false, err
		}
		nsym -= n
	}
	var buf [1]uint64
	if _, err = t.decode(buf[:], body, pos, nsym, &xs); err != nil {
		return false, err
	}
	return buf[0]>>((nsym-1)*8+i%8)&1 != 0, nil
}

// decode decodes nsym byte symbols from src at pos into dst (⌈nsym/8⌉
// words) with the states xs, the first symbol with state 0, and returns
// where it stopped reading. Each step is written out, as in the loops of
// rans_loops.go, so that the four states stay in registers.
func (t *BitsTable) decode(dst []uint64, src []byte, pos int, nsym uint64, xs *[4]uint64) (int, error) {
	x0, x1, x2, x3 := xs[0], xs[1], xs[2], xs[3]
	lim := len(src) - 32 // a word reads at most 32 bytes
	nw := int(nsym / 8)
	w := 0
	for ; w < nw && w < len(dst) && pos <= lim; w++ {
		var v uint64
		{
			s := uint32(x0) & (ransM - 1)
			c := t.bucket[s>>classBucketShift]
			for s >= t.cls[c].end {
				c++
			}
			k := &t.cls[c]
			d := s - k.start
			q := uint32((uint64(d) * k.mag) >> k.sh)
			x0 = uint64(k.freq)*(x0>>ransScale) + uint64(d-q*k.freq)
			v |= uint64(byteLayout[uint8(k.base+q)]) << 0
			if x0 < ransL {
				x0 = x0<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
				pos += 4
			}
		}
		{
			s := uint32(x1) & (ransM - 1)
			c := t.bucket[s>>classBucketShift]
			for s >= t.cls[c].end {
				c++
			}
			k := &t.cls[c]
			d := s - k.start
			q := uint32((uint64(d) * k.mag) >> k.sh)
			x1 = uint64(k.freq)*(x1>>ransScale) + uint64(d-q*k.freq)
			v |= uint64(byteLayout[uint8(k.base+q)]) << 8
			if x1 < ransL {
				x1 = x1<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
				pos += 4
			}
		}
		{
			s := uint32(x2) & (ransM - 1)
			c := t.bucket[s>>classBucketShift]
			for s >= t.cls[c].end {
				c++
			}
			k := &t.cls[c]
			d := s - k.start
			q := uint32((uint64(d) * k.mag) >> k.sh)
			x2 = uint64(k.freq)*(x2>>ransScale) + uint64(d-q*k.freq)
			v |= uint64(byteLayout[uint8(k.base+q)]) << 16
			if x2 < ransL {
				x2 = x2<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
				pos += 4
			}
		}
		{
			s := uint32(x3) & (ransM - 1)
			c := t.bucket[s>>classBucketShift]
			for s >= t.cls[c].end {
				c++
			}
			k := &t.cls[c]
			d := s - k.start
			q := uint32((uint64(d) * k.mag) >> k.sh)
			x3 = uint64(k.freq)*(x3>>ransScale) + uint64(d-q*k.freq)
			v |= uint64(byteLayout[uint8(k.base+q)]) << 24
			if x3 < ransL {
				x3 = x3<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
				pos += 4
			}
		}
		{
			s := uint32(x0) & (ransM - 1)
			c := t.bucket[s>>classBucketShift]
			for s >= t.cls[c].end {
				c++
			}
			k := &t.cls[c]
			d := s - k.start
			q := uint32((uint64(d) * k.mag) >> k.sh)
			x0 = uint64(k.freq)*(x0>>ransScale) + uint64(d-q*k.freq)
			v |= uint64(byteLayout[uint8(k.base+q)]) << 32
			if x0 < ransL {
				x0 = x0<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
				pos += 4
			}
		}
		{
			s := uint32(x1) & (ransM - 1)
			c := t.bucket[s>>classBucketShift]
			for s >= t.cls[c].end {
				c++
			}
			k := &t.cls[c]
			d := s - k.start
			q := uint32((uint64(d) * k.mag) >> k.sh)
			x1 = uint64(k.freq)*(x1>>ransScale) + uint64(d-q*k.freq)
			v |= uint64(byteLayout[uint8(k.base+q)]) << 40
			if x1 < ransL {
				x1 = x1<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
				pos += 4
			}
		}
		{
			s := uint32(x2) & (ransM - 1)
			c := t.bucket[s>>classBucketShift]
			for s >= t.cls[c].end {
				c++
			}
			k := &t.cls[c]
			d := s - k.start
			q := uint32((uint64(d) * k.mag) >> k.sh)
			x2 = uint64(k.freq)*(x2>>ransScale) + uint64(d-q*k.freq)
			v |= uint64(byteLayout[uint8(k.base+q)]) << 48
			if x2 < ransL {
				x2 = x2<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
				pos += 4
			}
		}
		{
			s := uint32(x3) & (ransM - 1)
			c := t.bucket[s>>classBucketShift]
			for s >= t.cls[c].end {
				c++
			}
			k := &t.cls[c]
			d := s - k.start
			q := uint32((uint64(d) * k.mag) >> k.sh)
			x3 = uint64(k.freq)*(x3>>ransScale) + uint64(d-q*k.freq)
			v |= uint64(byteLayout[uint8(k.base+q)]) << 56
			if x3 < ransL {
				x3 = x3<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
				pos += 4
			}
		}
		dst[w] = v
	}
	xs[0], xs[1], xs[2], xs[3] = x0, x1, x2, x3
	var v uint64
	for i := uint64(w) * 8; i < nsym; i++ {
		x := &xs[i&3]
		var s uint64
		*x, s = t.get(*x)
		v |= s << (i % 8 * 8)
		if *x < ransL {
			if len(src)-pos < 4 {
				return pos, errTruncated("rANS words")
			}
			*x = *x<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
			pos += 4
		}
		if i%8 == 7 || i == nsym-1 {
			dst[i/8] = v
			v = 0
		}
	}
	return pos, nil
}

// skip advances the states xs over nsym byte symbols from src at pos,
// the first with state 0, and returns where it stopped reading: decode
// without the symbols, which Bit does not need for the bytes before the
// one it reads (a step then loads no symbol and stores nothing, and
// fewer values compete for registers). Each step is written out, as in
// decode.
func (t *BitsTable) skip(src []byte, pos int, nsym uint64, xs *[4]uint64) (int, error) {
	x0, x1, x2, x3 := xs[0], xs[1], xs[2], xs[3]
	lim := len(src) - 16 // four steps read at most 16 bytes
	n := nsym / 4
	for ; n > 0 && pos <= lim; n-- {
		{
			s := uint32(x0) & (ransM - 1)
			c := t.bucket[s>>classBucketShift]
			for s >= t.cls[c].end {
				c++
			}
			k := &t.cls[c]
			d := s - k.start
			q := uint32((uint64(d) * k.mag) >> k.sh)
			x0 = uint64(k.freq)*(x0>>ransScale) + uint64(d-q*k.freq)
			if x0 < ransL {
				x0 = x0<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
				pos += 4
			}
		}
		{
			s := uint32(x1) & (ransM - 1)
			c := t.bucket[s>>classBucketShift]
			for s >= t.cls[c].end {
				c++
			}
			k := &t.cls[c]
			d := s - k.start
			q := uint32((uint64(d) * k.mag) >> k.sh)
			x1 = uint64(k.freq)*(x1>>ransScale) + uint64(d-q*k.freq)
			if x1 < ransL {
				x1 = x1<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
				pos += 4
			}
		}
		{
			s := uint32(x2) & (ransM - 1)
			c := t.bucket[s>>classBucketShift]
			for s >= t.cls[c].end {
				c++
			}
			k := &t.cls[c]
			d := s - k.start
			q := uint32((uint64(d) * k.mag) >> k.sh)
			x2 = uint64(k.freq)*(x2>>ransScale) + uint64(d-q*k.freq)
			if x2 < ransL {
				x2 = x2<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
				pos += 4
			}
		}
		{
			s := uint32(x3) & (ransM - 1)
			c := t.bucket[s>>classBucketShift]
			for s >= t.cls[c].end {
				c++
			}
			k := &t.cls[c]
			d := s - k.start
			q := uint32((uint64(d) * k.mag) >> k.sh)
			x3 = uint64(k.freq)*(x3>>ransScale) + uint64(d-q*k.freq)
			if x3 < ransL {
				x3 = x3<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
				pos += 4
			}
		}
	}
	xs[0], xs[1], xs[2], xs[3] = x0, x1, x2, x3
	for i := range 4*n + nsym%4 {
		x := &xs[i&3]
		*x, _ = t.get(*x)
		if *x < ransL {
			if len(src)-pos < 4 {
				return pos, errTruncated("rANS words")
			}
			*x = *x<<32 | uint64(binary.LittleEndian.Uint32(src[pos:]))
			pos += 4
		}
	}
	return pos, nil
}

// get decodes one symbol from x (before renormalisation).
func (t *BitsTable) get(x uint64) (uint64, uint64) {
	s := uint32(x) & (ransM - 1)
	c := t.bucket[s>>classBucketShift]
	for s >= t.cls[c].end {
		c++
	}
	k := &t.cls[c]
	d := s - k.start
	q := uint32((uint64(d) * k.mag) >> k.sh)
	return uint64(k.freq)*(x>>ransScale) + uint64(d-q*k.freq), uint64(byteLayout[uint8(k.base+q)])
}
