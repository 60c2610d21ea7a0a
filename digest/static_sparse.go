package digest

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/entropy"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/params"
	"github.com/bloomcast/bloomcast/ribbon"
)

// The added and removed filters of a static digest hold only the keys
// changed since the ribbon: at most DeltaShare·n keys in n/ε bits, so
// between two ribbons they are almost empty (about ε of their bits set
// when full). Decoded, each would take n/ε bits, far more than the
// ribbon's n·log2(1/ε); the publisher and the views hold them as the
// positions of their ones instead (sparseBits), which costs 5 to 6 bytes
// a one and answers a query from one bucket of two to four positions. Only
// the wire carries them as Bloom filters.

// sparseBits is an array of m bits held as the positions of its ones,
// cut into buckets of 2^shift bits: bucket j's ones have their low shift
// bits in low[start[j]:start[j+1]], increasing. shift is chosen so that
// there are a quarter to a half as many buckets as ones (at most 32, so that a
// low part fits 32 bits; a filter has at most bloom.MaxBits = 2^40 bits,
// so even an empty one has at most 2^8 buckets). A sparseBits does not
// change once built: a patch builds a new one (xor).
type sparseBits struct {
	m     uint64
	shift uint
	start []uint32 // buckets + 1
	low   []uint32 // one per one
}

// maxOnes is the most ones a sparseBits holds (start indexes low with
// uint32).
const maxOnes = math.MaxUint32

// newSparseBits returns the m-bit array whose ones are at pos, which must
// be increasing and below m.
func newSparseBits(m uint64, pos []uint64) sparseBits {
	shift := sparseShift(m, uint64(len(pos)))
	b := sparseBits{m: m, shift: shift}
	buckets := (max(m, 1)-1)>>shift + 1
	b.start = make([]uint32, buckets+1)
	b.low = make([]uint32, len(pos))
	mask := uint64(1)<<shift - 1
	j := uint64(0)
	for i, p := range pos {
		for ; j < p>>shift; j++ {
			b.start[j+1] = uint32(i)
		}
		b.low[i] = uint32(p & mask)
	}
	for ; j < buckets; j++ {
		b.start[j+1] = uint32(len(pos))
	}
	return b
}

// has reports whether bit p (below m) is one. It allocates nothing.
func (b *sparseBits) has(p uint64) bool {
	j := p >> b.shift
	lo := uint32(p & (uint64(1)<<b.shift - 1))
	for _, x := range b.low[b.start[j]:b.start[j+1]] {
		if x >= lo {
			return x == lo
		}
	}
	return false
}

// xor returns b with the bits at diff (increasing, below m) flipped, or
// an error wrapping ErrTooLarge past limit ones. The buckets no position
// of diff falls in are copied as runs, their starts shifted, so that it
// costs a copy of b's arrays plus the work of the positions changed, not
// a pass that rebuilds every position (xorSorted and newSparseBits, which
// it equals: where the ones it leaves call for another shift, it
// rebuilds b that way).
func (b *sparseBits) xor(diff []uint64, limit uint64) (sparseBits, error) {
	out := sparseBits{m: b.m, shift: b.shift, start: make([]uint32, len(b.start)),
		low: make([]uint32, 0, min(uint64(len(b.low)+len(diff)), limit))}
	buckets := uint64(len(b.start) - 1)
	mask := uint64(1)<<b.shift - 1
	j := uint64(0) // the next bucket to copy
	for k := 0; k < len(diff); {
		jd := diff[k] >> b.shift
		// Buckets j to jd−1 unchanged: one copy, their starts moved by
		// what the changes so far added or removed.
		moved := uint32(len(out.low)) - b.start[j]
		for i := j; i < jd; i++ {
			out.start[i] = b.start[i] + moved
		}
		out.low = append(out.low, b.low[b.start[j]:b.start[jd]]...)
		// Bucket jd: its ones merged with the changes in it.
		out.start[jd] = uint32(len(out.low))
		src := b.low[b.start[jd]:b.start[jd+1]]
		for ; k < len(diff) && diff[k]>>b.shift == jd; k++ {
			lo := uint32(diff[k] & mask)
			for len(src) > 0 && src[0] < lo {
				out.low = append(out.low, src[0])
				src = src[1:]
			}
			if len(src) > 0 && src[0] == lo {
				src = src[1:] // a one flipped to zero
			} else {
				out.low = append(out.low, lo)
			}
		}
		out.low = append(out.low, src...)
		if uint64(len(out.low)) > limit {
			return sparseBits{}, errTooManyOnes(limit)
		}
		j = jd + 1
	}
	moved := uint32(len(out.low)) - b.start[j]
	for i := j; i <= buckets; i++ {
		out.start[i] = b.start[i] + moved
	}
	out.low = append(out.low, b.low[b.start[j]:]...)
	if uint64(len(out.low)) > limit {
		return sparseBits{}, errTooManyOnes(limit)
	}
	if sparseShift(b.m, uint64(len(out.low))) != b.shift {
		return newSparseBits(b.m, out.appendPositions(make([]uint64, 0, len(out.low)))), nil
	}
	return out, nil
}

// ones returns the number of ones.
func (b *sparseBits) ones() uint64 { return uint64(len(b.low)) }

// bytes returns the bytes b holds.
func (b *sparseBits) bytes() int { return 4 * (len(b.start) + len(b.low)) }

// appendPositions appends the positions of b's ones to dst, increasing.
func (b *sparseBits) appendPositions(dst []uint64) []uint64 {
	for j := range len(b.start) - 1 {
		hi := uint64(j) << b.shift
		for _, x := range b.low[b.start[j]:b.start[j+1]] {
			dst = append(dst, hi|uint64(x))
		}
	}
	return dst
}

// words returns b as ⌈m/64⌉ words, for a coder that needs them.
func (b *sparseBits) words() []uint64 {
	w := make([]uint64, (b.m+63)/64)
	for _, p := range b.appendPositions(make([]uint64, 0, b.ones())) {
		w[p/64] |= 1 << (p % 64)
	}
	return w
}

// sparseShift is the bucket shift of a sparseBits of m bits and n ones:
// ⌈log2(2m/n)⌉, buckets of about 2 ones on average, at most 32.
func sparseShift(m, n uint64) uint {
	if n <= 1 {
		return 32
	}
	return min(32, uint(bits.Len64((2*m-1)/n)))
}

// sparseBytes is the bytes a sparseBits of m bits and n ones holds, as
// newSparseBits builds it, without building it.
func sparseBytes(m, n uint64) uint64 {
	return 4 * ((max(m, 1)-1)>>sparseShift(m, n) + 2 + n)
}

// xorSorted returns the positions in exactly one of a and b, both
// increasing: the ones of the XOR of the two arrays. It fails with
// ErrTooLarge past limit positions.
func xorSorted(a, b []uint64, limit uint64) ([]uint64, error) {
	out := make([]uint64, 0, min(uint64(len(a)+len(b)), limit))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		var p uint64
		switch {
		case j == len(b) || i < len(a) && a[i] < b[j]:
			p = a[i]
			i++
		case i == len(a) || b[j] < a[i]:
			p = b[j]
			j++
		default: // in both: a zero of the XOR
			i++
			j++
			continue
		}
		if uint64(len(out)) == limit {
			return nil, errTooManyOnes(limit)
		}
		out = append(out, p)
	}
	return out, nil
}

// readOnes returns the positions of the ones of an m-bit array coded
// with codec in body, increasing, decoding a run of words at a time so
// that no more than the positions is held; past limit ones it fails with
// ErrTooLarge. Work is proportional to the ones for the gap code, to the
// payload for raw words, nothing for a constant-zero array, and to m for
// the arithmetic and fast coders, which it refuses (ErrTooLarge) past
// maxBits.
func readOnes(codec envelope.Codec, body []byte, m, limit, maxBits uint64) ([]uint64, error) {
	var pos []uint64
	push := func(i uint64, w uint64) error {
		for ; w != 0; w &= w - 1 {
			if uint64(len(pos)) == limit {
				return errTooManyOnes(limit)
			}
			pos = append(pos, 64*i+uint64(bits.TrailingZeros64(w)))
		}
		return nil
	}
	nw := (m + 63) / 64
	switch codec {
	case envelope.CodecRaw:
		if uint64(len(body)) != 8*nw {
			return nil, fmt.Errorf("%w: raw payload of %d bytes, %d bits need %d", ErrCorrupt, len(body), m, 8*nw)
		}
		for i := range nw {
			w := binary.LittleEndian.Uint64(body[8*i:])
			if i == nw-1 && m%64 != 0 && w>>(m%64) != 0 {
				return nil, fmt.Errorf("%w: bits set past bit %d", ErrCorrupt, m)
			}
			if err := push(i, w); err != nil {
				return nil, err
			}
		}
		return pos, nil
	case envelope.CodecGaps:
		r, err := entropy.NewGapReader(body, m)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		if r.Ones() > limit {
			return nil, fmt.Errorf("%w: %d ones in a static digest's filter (limit %d)", ErrTooLarge, r.Ones(), limit)
		}
		for {
			p, ok, err := r.Next()
			if err != nil {
				return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
			}
			if !ok {
				break
			}
			pos = append(pos, p)
		}
		if err := r.Close(); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		return pos, nil
	case envelope.CodecArith, envelope.CodecFast:
	default:
		return nil, fmt.Errorf("%w: codec %v for a static digest's filter", ErrCorrupt, codec)
	}
	c := entropy.Arith
	if codec == envelope.CodecFast {
		c = entropy.Fast
		if len(body) == 2 && body[0] == byte(entropy.Const) && body[1] == 0 {
			return nil, nil // no ones
		}
	}
	if m > maxBits {
		return nil, fmt.Errorf("%w: a filter of %d bits to decode (at most %d: the limit's, or what a publisher of the ribbon's keys and rate makes)", ErrTooLarge, m, maxBits)
	}
	r, err := entropy.NewBitReader(body, m, c)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	var buf [512]uint64
	for i := uint64(0); i < nw; i += uint64(len(buf)) {
		chunk := buf[:min(uint64(len(buf)), nw-i)]
		if err := r.Read(chunk); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		for k, w := range chunk {
			if err := push(i+uint64(k), w); err != nil {
				return nil, err
			}
		}
	}
	return pos, nil
}

// staticFilter is an added or removed filter of a static digest as a
// publisher or a view holds it: where its keys' bits fall (a Bloom
// filter's geometry of one hash function), its ones, and the keys it
// was built from and the sequence of its last change, which its frame
// carries.
type staticFilter struct {
	geo   bloom.Geometry
	bits  sparseBits
	count uint64
	seq   uint64
}

// position returns the bit of h. Under the default scheme it runs
// inline and allocates nothing.
func (f *staticFilter) position(h hashing.Hash128) uint64 {
	if f.geo.Inline() {
		base, _, r := f.geo.ProbeRange(h)
		v, _ := hashing.NewProbes(h).Advance()
		return base + hashing.Reduce(v, r)
	}
	var buf [params.MaxK]uint64
	return f.geo.Positions(h, &buf)[0]
}

// containsHash reports whether h's bit is set.
func (f *staticFilter) containsHash(h hashing.Hash128) bool { return f.bits.has(f.position(h)) }

// fill returns the fraction of bits set: the rate of a filter of one
// hash function.
func (f *staticFilter) fill() float64 {
	if f.bits.m == 0 {
		return 0
	}
	return float64(f.bits.ones()) / float64(f.bits.m)
}

// header returns the raw frame header of the filter as a Bloom digest
// (bloom.Filter.FrameHeader of the filter it stands for).
func (f *staticFilter) header() envelope.Header {
	s := f.geo.Shape()
	p := make([]byte, 24)
	p[0] = byte(s.Layout)
	binary.LittleEndian.PutUint16(p[2:], uint16(s.K))
	binary.LittleEndian.PutUint32(p[4:], uint32(s.BlockBits))
	binary.LittleEndian.PutUint64(p[8:], s.M)
	binary.LittleEndian.PutUint64(p[16:], f.count)
	return envelope.Header{Type: envelope.TypeBloom, Codec: envelope.CodecRaw,
		Scheme: uint8(f.geo.Scheme().ID()), Seed: f.geo.Seed(), Params: p}
}

// appendCompact appends f as a part of a whole static frame of kind 5
// or 6 (docs/FORMAT.md) of the ribbon built at fullSeq: its bits, its
// sequence after fullSeq, and, unless it is empty, its key count and its
// ones coded as a delta's XOR from an empty filter.
func (f *staticFilter) appendCompact(dst []byte, fullSeq uint64, c Codec) ([]byte, error) {
	dst = binary.AppendUvarint(dst, f.bits.m)
	dst = binary.AppendUvarint(dst, f.seq-fullSeq)
	if f.bits.ones() == 0 {
		return append(dst, 0), nil
	}
	dst = append(dst, 1)
	return appendStaticPart(dst, f.count, f.bits.appendPositions(make([]uint64, 0, f.bits.ones())), f.bits.m, c)
}

// decodeCompactFilter reads a filter that appendCompact wrote, of the
// frame's seed, from the front of b, holding at most limit ones (maxBits
// as for readOnes), and returns it and the rest of b.
func decodeCompactFilter(b []byte, seed, fullSeq, limit, maxBits uint64) (*staticFilter, []byte, error) {
	m, n := binary.Uvarint(b)
	if n <= 0 {
		return nil, nil, fmt.Errorf("%w: a filter's bits", ErrCorrupt)
	}
	b = b[n:]
	after, n := binary.Uvarint(b)
	if n <= 0 || after > math.MaxUint64-fullSeq || len(b) == n {
		return nil, nil, fmt.Errorf("%w: a filter's sequence", ErrCorrupt)
	}
	present, b := b[n], b[n+1:]
	geo, err := bloom.NewGeometry(params.Shape{Layout: bloom.Classic, M: m, K: 1}, seed, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	empty := &staticFilter{geo: geo, bits: newSparseBits(m, nil), seq: fullSeq + after}
	switch present {
	case 0:
		return empty, b, nil
	case 1:
		return applyStaticPart(empty, b, empty.seq, limit, maxBits)
	}
	return nil, nil, fmt.Errorf("%w: a filter part marked %d (want 0 or 1)", ErrCorrupt, present)
}

// decodeStaticFilter decodes one of a whole static frame's filter
// frames: a Bloom filter of one hash function and the frame's seed, held
// as its ones (at most limit). maxBits is the most bits whose decoding
// may cost time proportional to them (a constant or gap-coded array costs
// none).
func decodeStaticFilter(b []byte, lim envelope.Limits, seed, limit, maxBits uint64) (*staticFilter, error) {
	h, body, err := envelope.Parse(b, lim)
	if err != nil {
		return nil, err
	}
	shape, err := bloom.FrameShape(h)
	if err != nil {
		return nil, err
	}
	if shape.K != 1 || h.Seed != seed {
		return nil, fmt.Errorf("not a Bloom filter of one hash function and the frame's seed")
	}
	scheme, _ := hashing.Lookup(hashing.SchemeID(h.Scheme))
	geo, err := bloom.NewGeometry(shape, h.Seed, scheme)
	if err != nil {
		return nil, err
	}
	f := &staticFilter{geo: geo, count: binary.LittleEndian.Uint64(h.Params[16:]), seq: h.Sequence}
	var pos []uint64
	m := shape.M
	switch {
	case h.Codec == envelope.CodecPieces:
		words, err := decodePiecesLimited(body, m, lim)
		if err != nil {
			return nil, err
		}
		for i, w := range words {
			for ; w != 0; w &= w - 1 {
				if uint64(len(pos)) == limit {
					return nil, errTooManyOnes(limit)
				}
				pos = append(pos, 64*uint64(i)+uint64(bits.TrailingZeros64(w)))
			}
		}
	case h.Codec != envelope.CodecRaw && h.Codec != envelope.CodecArith && h.Codec != envelope.CodecFast &&
		h.Codec != envelope.CodecGaps:
		return nil, fmt.Errorf("%w: codec %v for this structure", ErrCodec, h.Codec)
	default:
		if pos, err = readOnes(h.Codec, body, m, limit, maxBits); err != nil {
			return nil, err
		}
	}
	f.bits = newSparseBits(m, pos)
	return f, nil
}

// patch returns f with the XOR of an m-bit array coded in xor applied,
// at sequence seq with count keys, or an error wrapping ErrTooLarge past
// limit ones held or decoded (maxBits as for readOnes).
func (f *staticFilter) patch(codec envelope.Codec, xor []byte, seq, count, limit, maxBits uint64) (*staticFilter, error) {
	diff, err := readOnes(codec, xor, f.bits.m, limit, maxBits)
	if err != nil {
		return nil, err
	}
	next, err := f.bits.xor(diff, limit)
	if err != nil {
		return nil, err
	}
	return &staticFilter{geo: f.geo, bits: next, count: count, seq: seq}, nil
}

// staticDecodeFactor bounds the bits of a filter a view decodes in time
// proportional to them (codecs arith and fast) to this many times those
// of a decoded filter within the limit, whatever the ribbon's rate: a
// publisher's filter of 10^6 keys at 4.6·10^-4 has 4 times the bits of a
// 64 MiB limit, and a frame of a few kilobytes must not cost minutes.
const staticDecodeFactor = 16

// staticLimits returns, for a view of ribbon r under lim, the most ones
// its two filters may hold together (4 bytes each, within the limit's
// payload) and the most bits of a filter it decodes in time proportional
// to them: those of a decoded filter within the limit, or of the filters
// a publisher of r's keys and rate makes (DeltaShare at most 1: a
// one-hash filter of max(64, n) keys at r's rate) up to
// staticDecodeFactor times that, whichever is more.
func staticLimits(r *ribbon.Filter, lim envelope.Limits) (ones, maxBits uint64) {
	ones = min(maxOnes, lim.Payload()/4)
	decoded := 8 * min(lim.Payload(), 1<<50)
	maxBits = decoded
	if rate := r.FalsePositiveRate(); rate > 0 {
		legit := float64(max(64, r.Len()))/-math.Log1p(-rate) + 128
		maxBits = max(decoded, uint64(min(legit, float64(staticDecodeFactor*decoded))))
	}
	return ones, maxBits
}

// errTooManyOnes is the error of a static digest's filter that would hold
// more than limit ones.
func errTooManyOnes(limit uint64) error {
	return fmt.Errorf("%w: more than %d ones in a static digest's filter", ErrTooLarge, limit)
}
