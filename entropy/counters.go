package entropy

import (
	"encoding/binary"
	"math/bits"
)

// counterBits returns n·width, checking the width and overflow.
func counterBits(n uint64, width uint) (uint64, error) {
	if width != 4 && width != 8 {
		return 0, ErrWidth
	}
	if n > (1<<64-1)/uint64(width) {
		return 0, ErrLength
	}
	return n * uint64(width), nil
}

// EncodeCounters appends to dst the coding of n counters of width bits (4
// or 8) packed little-endian into words: counter i is
// words[i·width/64] >> (i·width%64) & (2^width−1), the layout of the
// counting package. Bits past n·width are ignored.
//
// The model is order 0: the frequency of each counter value present,
// scaled to 2^24 and sent in the header, then the counters coded with the
// rANS engine ([Order0] stream); a constant array is the header alone. If
// that would not be smaller than the packed counters, the stream is [Raw].
// The size is within a fraction of a percent of n times the empirical
// order-0 entropy, plus a header of 33 bytes plus about 2 to 5 bytes per
// distinct value.
func EncodeCounters(dst []byte, words []uint64, n uint64, width uint) ([]byte, error) {
	nbits, err := counterBits(n, width)
	if err != nil {
		return dst, err
	}
	if uint64(len(words)) < wordsFor(nbits) {
		return dst, ErrLength
	}
	var count [256]uint64
	histogram(&count, words, n, width)
	var vals [256]uint8
	k := 0
	for v, c := range count {
		if c > 0 {
			vals[k] = uint8(v)
			k++
		}
	}
	var hdr [1 + 256*(2+binary.MaxVarintLen64)]byte
	hdr[0] = byte(Order0)
	h := 1 + binary.PutUvarint(hdr[1:], uint64(k))
	if k == 1 {
		h += binary.PutUvarint(hdr[h:], uint64(vals[0]))
	}
	if k <= 1 {
		return append(dst, hdr[:h]...), nil
	}
	freq := normalize(&count, vals[:k], n)
	var cs [256]class
	prev := -1
	for i, v := range vals[:k] {
		h += binary.PutUvarint(hdr[h:], uint64(int(v)-prev-1))
		prev = int(v)
		if i < k-1 {
			h += binary.PutUvarint(hdr[h:], uint64(freq[v]))
		}
		cs[i] = class{freq: freq[v], syms: vals[i : i+1]}
	}
	raw := rawSize(nbits)
	if h+ransStates >= raw {
		return appendRaw(dst, words, nbits), nil
	}
	var enc encTable
	enc.build(cs[:k])
	base := len(dst)
	dst = grow(dst, raw)
	out := dst[base:]
	nw := wordsFor(nbits)
	start, ok := ransEncode(out, h, raw, words, words[nw-1]&tailMask(nbits), n, width, &enc)
	if !ok {
		putRaw(out, words, nbits)
		return dst, nil
	}
	copy(out, hdr[:h])
	c := copy(out[h:], out[start:])
	return dst[:base+h+c], nil
}

// histogram counts the values of n counters of the given width.
func histogram(count *[256]uint64, words []uint64, n uint64, width uint) {
	per := 64 / uint64(width)
	mask := uint64(1)<<width - 1
	full := n / per
	for _, w := range words[:full] {
		for j := uint64(0); j < per; j++ {
			count[uint8(w&mask)]++
			w >>= width
		}
	}
	if r := n % per; r > 0 {
		w := words[full]
		for j := uint64(0); j < r; j++ {
			count[uint8(w&mask)]++
			w >>= width
		}
	}
}

// normalize scales the counts of the present values vals (at least two)
// to frequencies summing to 2^24, each at least 1: rounded, the rounding
// error absorbed by the most frequent value.
func normalize(count *[256]uint64, vals []uint8, n uint64) [256]uint32 {
	var f [256]uint32
	var sum int64
	big := vals[0]
	for _, v := range vals {
		hi, lo := bits.Mul64(count[v], ransM)
		lo, c := bits.Add64(lo, n/2, 0)
		q, _ := bits.Div64(hi+c, lo, n)
		f[v] = uint32(max(q, 1))
		sum += int64(f[v])
		if count[v] > count[big] {
			big = v
		}
	}
	f[big] = uint32(int64(f[big]) + ransM - sum)
	return f
}

// DecodeCounters decodes into dst n counters of width bits coded by
// [EncodeCounters]. dst must have exactly ⌈n·width/64⌉ words; all are
// overwritten and bits past n·width come out zero. Errors and guarantees
// are those of [DecodeBits].
func DecodeCounters(dst []uint64, src []byte, n uint64, width uint) error {
	nbits, err := counterBits(n, width)
	if err != nil {
		return err
	}
	if uint64(len(dst)) != wordsFor(nbits) {
		return ErrLength
	}
	var t ransDec
	tag, fill, pos, err := counterModel(src, n, width, &t)
	if err != nil {
		return err
	}
	switch tag {
	case Raw:
		return decodeRaw(dst, src[1:], nbits)
	case Const:
		for i := range dst {
			dst[i] = fill
		}
		if len(dst) > 0 {
			dst[len(dst)-1] &= tailMask(nbits)
		}
		return nil
	}
	return ransDecode(dst, src[pos:], n, width, &t)
}

// NewCounterReader returns a reader of the n counters of width bits coded
// in src by [EncodeCounters], which delivers the words [DecodeCounters]
// would, a run at a time, with its errors: for a caller that would
// rather not allocate the whole array before the stream has shown it
// holds one. It reads the stream's header and model.
func NewCounterReader(src []byte, n uint64, width uint) (*BitReader, error) {
	nbits, err := counterBits(n, width)
	if err != nil {
		return nil, err
	}
	r := &BitReader{m: nbits, dec: new(ransDec)}
	tag, fill, pos, err := counterModel(src, n, width, r.dec)
	if err != nil {
		return nil, err
	}
	switch tag {
	case Raw:
		r.tag, r.src = Raw, src[1:]
		err = rawLength(r.src, nbits)
	case Const:
		r.tag, r.fill = Const, fill
	default:
		r.tag, r.src, r.sw, r.nsym = RANS, src[pos:], width, n
		r.xs, err = ransStart(r.src)
		r.pos = ransStates
	}
	return r.started(err)
}

// counterModel reads the header of a counter stream: its codec, Raw,
// Const (a constant array: fill is every word, the stream ends there) or
// Order0 (t holds the model, the rANS stream starts at pos).
func counterModel(src []byte, n uint64, width uint, t *ransDec) (tag Codec, fill uint64, pos int, err error) {
	if len(src) == 0 {
		return 0, 0, 0, errTruncated("no codec byte")
	}
	switch Codec(src[0]) {
	case Raw:
		return Raw, 0, 1, nil
	case Order0:
	default:
		return 0, 0, 0, ErrCodec
	}
	pos = 1
	next := func() (uint64, error) {
		v, c := binary.Uvarint(src[pos:])
		if c == 0 {
			return 0, errTruncated("counter model")
		}
		if c < 0 {
			return 0, errCorrupt("counter model varint")
		}
		pos += c
		return v, nil
	}
	k, err := next()
	if err != nil {
		return 0, 0, 0, err
	}
	if k > 1<<width || (k == 0) != (n == 0) {
		return 0, 0, 0, errCorrupt("number of counter values")
	}
	if k <= 1 {
		if k == 1 {
			v, err := next()
			if err != nil {
				return 0, 0, 0, err
			}
			if v >= 1<<width {
				return 0, 0, 0, errCorrupt("counter value")
			}
			fill = v * (^uint64(0) / (1<<width - 1))
		}
		if pos != len(src) {
			return 0, 0, 0, errTrailing(len(src) - pos)
		}
		return Const, fill, pos, nil
	}
	var vals [256]uint8
	var cs [256]class
	prev := int64(-1)
	var sum uint64
	for i := range k {
		gap, err := next()
		if err != nil {
			return 0, 0, 0, err
		}
		if gap >= 1<<width {
			return 0, 0, 0, errCorrupt("counter value")
		}
		v := prev + 1 + int64(gap)
		if v >= 1<<width {
			return 0, 0, 0, errCorrupt("counter value")
		}
		prev = v
		vals[i] = uint8(v)
		f := ransM - sum
		if i < k-1 {
			if f, err = next(); err != nil {
				return 0, 0, 0, err
			}
			if f == 0 || f >= ransM-sum {
				return 0, 0, 0, errCorrupt("counter frequency")
			}
		}
		sum += f
		cs[i] = class{freq: uint32(f), syms: vals[i : i+1]}
	}
	t.build(cs[:k])
	return Order0, 0, pos, nil
}
