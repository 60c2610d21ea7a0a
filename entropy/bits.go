package entropy

import (
	"encoding/binary"
	"math/bits"
)

// byPopcount lists the byte values by number of ones, ascending within a
// count: the layout of the RANS byte model.
var byPopcount [9][]uint8

// binom8 is C(8, j).
var binom8 = [9]uint32{1, 8, 28, 56, 70, 56, 28, 8, 1}

func init() {
	for b := 0; b < 256; b++ {
		j := bits.OnesCount8(uint8(b))
		byPopcount[j] = append(byPopcount[j], uint8(b))
	}
}

// mul63 multiplies two fixed-point numbers with 63 fraction bits (1.0 is
// 2^63), truncating.
func mul63(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi<<1 | lo>>63
}

// byteFreqs returns the RANS model's per-symbol frequency of each class of
// bytes with j ones, for the density pq/2^32. Integer arithmetic only, so
// every platform builds the same model (see doc.go, "RANS").
func byteFreqs(pq uint32) [9]uint32 {
	const one = uint64(1) << 63
	p := uint64(pq) << 31
	q := one - p
	var pp, qq [9]uint64
	pp[0], qq[0] = one, one
	for j := 1; j <= 8; j++ {
		pp[j] = mul63(pp[j-1], p)
		qq[j] = mul63(qq[j-1], q)
	}
	var f [9]uint32
	var sum int64
	for j := range f {
		v := (mul63(pp[j], qq[8-j]) + 1<<38) >> 39
		if v == 0 {
			v = 1
		}
		f[j] = uint32(v)
		sum += int64(binom8[j]) * int64(v)
	}
	big := 0
	if f[8] > f[0] {
		big = 8
	}
	f[big] = uint32(int64(f[big]) + ransM - sum)
	return f
}

// byteClasses is the RANS model for pq as classes.
func byteClasses(pq uint32) [9]class {
	f := byteFreqs(pq)
	var cs [9]class
	for j := range cs {
		cs[j] = class{freq: f[j], syms: byPopcount[j]}
	}
	return cs
}

// density returns round(n1·2^32/m) clamped to [1, 2^32−1] (m > 0).
func density(n1, m uint64) uint32 {
	hi, lo := bits.Mul64(n1, 1<<32)
	lo, c := bits.Add64(lo, m/2, 0)
	hi += c
	q, _ := bits.Div64(hi, lo, m)
	return uint32(min(max(q, 1), 1<<32-1))
}

// onesCount counts the ones among the first m bits.
func onesCount(words []uint64, m uint64) uint64 {
	nw := wordsFor(m)
	if nw == 0 {
		return 0
	}
	var n int
	for _, w := range words[:nw-1] {
		n += bits.OnesCount64(w)
	}
	return uint64(n + bits.OnesCount64(words[nw-1]&tailMask(m)))
}

// EncodeBits appends to dst the coding of the m-bit array words (bit b is
// words[b/64]>>(b%64)&1; bits past m are ignored) with codec c: [Arith],
// [Fast], [Raw] or [RANS]. The stream does not record m: the decoder is
// told it. It fails only if words is shorter than ⌈m/64⌉ or c is another
// codec.
func EncodeBits(dst []byte, words []uint64, m uint64, c Codec) ([]byte, error) {
	if uint64(len(words)) < wordsFor(m) {
		return dst, ErrLength
	}
	switch c {
	case Arith:
		return arithEncode(dst, words, m), nil
	case Raw:
		return appendRaw(dst, words, m), nil
	case RANS:
		return encodeRANS(dst, words, m, onesCount(words, m), false), nil
	case Fast:
		return encodeFast(dst, words, m), nil
	}
	return dst, ErrCodec
}

// encodeFast picks the variant: Const for a constant array, Raw when the
// density is so close to 1/2 that coding would save under 0.2% (plus the
// RANS header), RANS otherwise (and Raw if RANS came out larger).
func encodeFast(dst []byte, words []uint64, m uint64) []byte {
	if m == 0 {
		return appendRaw(dst, words, m)
	}
	n1 := onesCount(words, m)
	if n1 == 0 || n1 == m {
		return append(dst, byte(Const), byte(n1/m))
	}
	h := Entropy(float64(n1) / float64(m))
	raw := float64(bytesFor(m))
	if raw-float64(m)*h/8 < 40+0.002*raw {
		return appendRaw(dst, words, m)
	}
	return encodeRANS(dst, words, m, n1, true)
}

// rawSize is the size of a Raw stream.
func rawSize(m uint64) int { return 1 + int(bytesFor(m)) }

// appendRaw appends the Raw stream: the tag and the ⌈m/8⌉ bytes of the
// array, little-endian, bits past m zero.
func appendRaw(dst []byte, words []uint64, m uint64) []byte {
	base := len(dst)
	dst = grow(dst, rawSize(m))
	putRaw(dst[base:], words, m)
	return dst
}

// putRaw writes the Raw stream into out, which has rawSize(m) bytes.
func putRaw(out []byte, words []uint64, m uint64) {
	out[0] = byte(Raw)
	out = out[1:]
	nw := wordsFor(m)
	if nw == 0 {
		return
	}
	for i, w := range words[:nw-1] {
		binary.LittleEndian.PutUint64(out[8*i:], w)
	}
	last := words[nw-1] & tailMask(m)
	for i := 8 * int(nw-1); i < len(out); i++ {
		out[i] = byte(last)
		last >>= 8
	}
}

// ransHeader is the size of the RANS header before the states: tag and
// density.
const ransHeader = 5

// encodeRANS appends a RANS stream. With fallback, it gives up as soon as
// the stream would not be smaller than Raw and appends Raw instead;
// without, it always writes RANS.
func encodeRANS(dst []byte, words []uint64, m, n1 uint64, fallback bool) []byte {
	nsym := bytesFor(m)
	size := rawSize(m)
	if !fallback {
		size = ransHeader + ransStates + 4*int(nsym)
	}
	base := len(dst)
	dst = grow(dst, size)
	out := dst[base:]
	pq := uint32(1)
	if m > 0 {
		pq = density(n1, m)
	}
	out[0] = byte(RANS)
	binary.LittleEndian.PutUint32(out[1:], pq)
	if nsym == 0 {
		// Four states and no symbols.
		for i := 0; i < 4; i++ {
			binary.LittleEndian.PutUint64(out[ransHeader+8*i:], ransL)
		}
		return dst[:base+ransHeader+ransStates]
	}
	var enc encTable
	cs := byteClasses(pq)
	enc.build(cs[:])
	nw := wordsFor(m)
	start, ok := ransEncode(out, ransHeader, len(out), words, words[nw-1]&tailMask(m), nsym, 8, &enc)
	if !ok {
		putRaw(out, words, m)
		return dst
	}
	n := copy(out[ransHeader:], out[start:])
	return dst[:base+ransHeader+n]
}

// DecodeBits decodes into dst an m-bit array coded by [EncodeBits] with
// codec c. dst must have exactly ⌈m/64⌉ words; all are overwritten, and
// the bits past m come out zero (a stream that says otherwise is
// corrupt). c may be [Fast] for any of the variants Fast writes ([Raw],
// [Const], [RANS]), or the codec the stream names.
//
// The input is treated as hostile: a truncated, corrupted or mismatched
// stream gives an error wrapping [ErrTruncated], [ErrCorrupt],
// [ErrTrailing] or [ErrCodec]; decoding never panics, allocates nothing
// but the error it returns, and does work bounded by m and len(src).
func DecodeBits(dst []uint64, src []byte, m uint64, c Codec) error {
	if uint64(len(dst)) != wordsFor(m) {
		return ErrLength
	}
	if len(src) == 0 {
		return errTruncated("no codec byte")
	}
	tag := Codec(src[0])
	switch {
	case c == tag && (c == Arith || c == Raw || c == Const || c == RANS):
	case c == Fast && (tag == Raw || tag == Const || tag == RANS):
	default:
		return ErrCodec
	}
	switch tag {
	case Arith:
		return arithDecode(dst, src[1:], m)
	case Raw:
		return decodeRaw(dst, src[1:], m)
	case Const:
		return decodeConst(dst, src[1:], m)
	}
	return decodeRANS(dst, src[1:], m)
}

func decodeRaw(dst []uint64, src []byte, m uint64) error {
	if err := rawLength(src, m); err != nil {
		return err
	}
	if len(dst) == 0 {
		return nil
	}
	n := len(dst) - 1
	for i := range dst[:n] {
		dst[i] = binary.LittleEndian.Uint64(src[8*i:])
	}
	var last uint64
	for i := len(src) - 1; i >= 8*n; i-- {
		last = last<<8 | uint64(src[i])
	}
	dst[n] = last
	return checkTail(dst, m)
}

// checkTail reports a set bit past m.
func checkTail(dst []uint64, m uint64) error {
	if len(dst) > 0 && dst[len(dst)-1]&^tailMask(m) != 0 {
		return errCorrupt("bits set past the length")
	}
	return nil
}

func decodeConst(dst []uint64, src []byte, m uint64) error {
	if len(src) < 1 {
		return errTruncated("constant")
	}
	if len(src) > 1 {
		return errTrailing(len(src) - 1)
	}
	if src[0] > 1 {
		return errCorrupt("constant bit is not 0 or 1")
	}
	v := -uint64(src[0])
	for i := range dst {
		dst[i] = v
	}
	if len(dst) > 0 {
		dst[len(dst)-1] &= tailMask(m)
	}
	return nil
}

func decodeRANS(dst []uint64, src []byte, m uint64) error {
	if len(src) < ransHeader-1 {
		return errTruncated("RANS density")
	}
	pq := binary.LittleEndian.Uint32(src)
	src = src[ransHeader-1:]
	var t ransDec
	cs := byteClasses(pq)
	t.build(cs[:])
	if err := ransDecode(dst, src, bytesFor(m), 8, &t); err != nil {
		return err
	}
	return checkTail(dst, m)
}
