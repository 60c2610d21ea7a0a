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
// positions of their ones instead (sparseBits), in about 2 + log2(m/n)
// bits a one. Only the wire carries them as Bloom filters.

// sparseBits is an array of m bits held as the increasing positions of
// its n ones in the Elias–Fano representation (P. Elias, "Efficient
// storage and retrieval by content and address of static files", 1974;
// R. Fano, 1971; S. Vigna, "Quasi-succinct indices", 2013): each
// position's low l = ⌊log2(m/n)⌋ bits packed in lows, its high part h in
// unary in upper, one i set at bit h_i + i, so that the ones of high
// part h lie between the upper array's zero number h−1 and zero number h.
// zeros[j] is the position of zero number 64·j, from which a query finds
// its zero in a word or two. That is at most 2 + log2(m/n) bits a one
// besides two words' rounding, and half a bit to a bit a one for the
// samples (one for at most 2n/64 zeros); a query reads
// one sample, a word or two of upper and the lows of the ones of its
// high part (about one). A sparseBits does not change once built: a
// patch builds a new one (xor). The zero sparseBits, and any of no ones,
// holds nothing.
type sparseBits struct {
	m     uint64
	n     uint64
	l     uint     // bits of each low part
	lows  []uint64 // n·l bits
	upper []uint64 // n + (m−1)>>l + 1 bits
	zeros []uint32 // the position in upper of every 64th zero
}

// zeroSample is the zeros of upper between two of sparseBits.zeros.
const zeroSample = 64

// maxOnes is the most ones a sparseBits holds: its upper array, of at
// most 3n + 1 bits, is indexed with uint32.
const maxOnes = 1 << 30

// sparseLowBits is l for n ones (n ≥ 1) in m bits: ⌊log2(m/n)⌋, which
// makes the upper array at most 3n + 1 bits (Elias 1974).
func sparseLowBits(m, n uint64) uint {
	return uint(bits.Len64(max(m/n, 1)) - 1)
}

// sparseZeros is the zeros of the upper array of an m-bit sparseBits of
// l-bit low parts: one after each high part, 0 to (m−1)>>l.
func sparseZeros(m uint64, l uint) uint64 { return (m-1)>>l + 1 }

// newSparseBits returns the m-bit array whose ones are at pos, which must
// be increasing, below m and at most maxOnes.
func newSparseBits(m uint64, pos []uint64) sparseBits {
	s := newSparseBuilder(m, uint64(len(pos)))
	for _, p := range pos {
		s.push(p)
	}
	return s.finish()
}

// sparseBuilder builds a sparseBits of n ones, pushed in increasing order.
type sparseBuilder struct {
	b    sparseBits
	i    uint64 // ones pushed
	mask uint64 // of a low part
}

// newSparseBuilder returns a builder of the m-bit array of n ones.
func newSparseBuilder(m, n uint64) *sparseBuilder {
	s := &sparseBuilder{b: sparseBits{m: m, n: n}}
	if n == 0 {
		return s
	}
	s.b.l = sparseLowBits(m, n)
	s.mask = uint64(1)<<s.b.l - 1
	s.b.lows = make([]uint64, (n*uint64(s.b.l)+63)/64)
	s.b.upper = make([]uint64, (n+sparseZeros(m, s.b.l)+63)/64)
	return s
}

// push adds the one at p, above the last pushed and below m.
func (s *sparseBuilder) push(p uint64) {
	s.b.setLow(s.i, p&s.mask)
	u := p>>s.b.l + s.i
	s.b.upper[u/64] |= 1 << (u % 64)
	s.i++
}

// finish returns the array built, once all n ones are pushed: it samples
// the upper array's zeros.
func (s *sparseBuilder) finish() sparseBits {
	b := s.b
	if b.n == 0 {
		return b
	}
	zeros := sparseZeros(b.m, b.l)
	b.zeros = make([]uint32, 0, (zeros+zeroSample-1)/zeroSample)
	seen, next := uint64(0), uint64(0) // zeros before this word; the next to sample
	for wi, w := range b.upper {
		z := ^w
		if valid := b.n + zeros - 64*uint64(wi); valid < 64 {
			z &= 1<<valid - 1 // not the padding past the last bit
		}
		c := uint64(bits.OnesCount64(z))
		for ; next < seen+c; next += zeroSample {
			b.zeros = append(b.zeros, uint32(64*uint64(wi)+selectInWord(z, next-seen)))
		}
		seen += c
	}
	return b
}

// setLow writes low part i, x, into lows, which are zero there.
func (b *sparseBits) setLow(i, x uint64) {
	if b.l == 0 {
		return
	}
	bit := i * uint64(b.l)
	w, o := bit/64, bit%64
	b.lows[w] |= x << o
	if o+uint64(b.l) > 64 {
		b.lows[w+1] |= x >> (64 - o)
	}
}

// low returns low part i.
func (b *sparseBits) low(i uint64) uint64 {
	if b.l == 0 {
		return 0
	}
	bit := i * uint64(b.l)
	w, o := bit/64, bit%64
	// Two words without a branch: a part in the last word alone reads
	// it twice, and the second read's bits land past the part's (a shift
	// by 64 gives 0).
	next := min(w+1, uint64(len(b.lows))-1)
	return (b.lows[w]>>o | b.lows[next]<<(64-o)) & (1<<b.l - 1)
}

// selectInWord returns the position of the one of rank r (from 0) in w,
// which has more than r ones, without a branch: the bytes' popcounts
// summed by a multiplication, the byte holding the one found by
// comparing every sum with r at once, then a table of the bytes
// (S. Vigna, "Broadword implementation of rank/select queries", 2008).
func selectInWord(w, r uint64) uint64 {
	const ones8, high8 = 0x0101010101010101, 0x8080808080808080
	s := w - w>>1&0x5555555555555555
	s = s&0x3333333333333333 + s>>2&0x3333333333333333
	s = (s + s>>4) & 0x0f0f0f0f0f0f0f0f
	s *= ones8 // byte i: the ones of bytes 0 to i
	// The bytes whose sums are at most r (a prefix): each byte of
	// r·ones8 | high8 is r + 128, less its sum at most 64, so no borrow
	// crosses bytes and the high bit stays where the sum is at most r.
	b := uint64(bits.OnesCount64(((r*ones8 | high8) - s) & high8))
	before := (s << 8 >> (8 * b)) & 0xff // the ones of the bytes below b
	return 8*b + uint64(selectInByte[w>>(8*b)&0xff][r-before])
}

// selectInByte[x][r] is the position of the one of rank r in the byte x.
var selectInByte = func() (t [256][8]uint8) {
	for x := range 256 {
		r := 0
		for i := range 8 {
			if x>>i&1 == 1 {
				t[x][r] = uint8(i)
				r++
			}
		}
	}
	return t
}()

// select0 returns the position in upper of zero number r (from 0), which
// exists.
func (b *sparseBits) select0(r uint64) uint64 {
	p := uint64(b.zeros[r/zeroSample])
	r %= zeroSample
	wi := p / 64
	z := ^b.upper[wi] >> (p % 64) << (p % 64) // the zeros at p and after, as ones
	for {
		if c := uint64(bits.OnesCount64(z)); r >= c {
			r -= c
			wi++
			z = ^b.upper[wi]
			continue
		}
		return 64*wi + selectInWord(z, r)
	}
}

// has reports whether bit p (below m) is one. It allocates nothing.
func (b *sparseBits) has(p uint64) bool {
	if b.n == 0 {
		return false
	}
	h, lo := p>>b.l, p&(1<<b.l-1)
	u := uint64(0) // the first bit of high part h's ones in upper
	if h > 0 {
		u = b.select0(h-1) + 1
	}
	// The ones of high part h, in increasing order, up to the zero that
	// ends them.
	for i := u - h; b.upper[u/64]>>(u%64)&1 == 1; u, i = u+1, i+1 {
		if x := b.low(i); x >= lo {
			return x == lo
		}
	}
	return false
}

// xor returns b with the bits at diff (increasing, below m) flipped, or
// an error wrapping ErrTooLarge past limit ones. It counts the ones of
// the result, then merges b's positions with diff into it, so that it
// holds nothing besides the result.
func (b *sparseBits) xor(diff []uint64, limit uint64) (sparseBits, error) {
	n := b.xorOnes(diff)
	if n > min(limit, maxOnes) {
		return sparseBits{}, errTooManyOnes(min(limit, maxOnes))
	}
	s := newSparseBuilder(b.m, n)
	it := b.iter()
	p, ok := it.next()
	for _, d := range diff {
		for ; ok && p < d; p, ok = it.next() {
			s.push(p)
		}
		if ok && p == d {
			p, ok = it.next() // a one flipped to zero
			continue
		}
		s.push(d)
	}
	for ; ok; p, ok = it.next() {
		s.push(p)
	}
	return s.finish(), nil
}

// xorOnes returns the ones of b with the bits at diff (increasing, below
// m) flipped: a query for each bit of a small diff, else a merge.
func (b *sparseBits) xorOnes(diff []uint64) uint64 {
	n := b.n + uint64(len(diff))
	if uint64(len(diff)) < b.n/16 {
		for _, d := range diff {
			if b.has(d) {
				n -= 2
			}
		}
		return n
	}
	it := b.iter()
	p, ok := it.next()
	for _, d := range diff {
		for ; ok && p < d; p, ok = it.next() {
		}
		if ok && p == d {
			n -= 2
		}
	}
	return n
}

// sparseIter reads a sparseBits' positions in increasing order.
type sparseIter struct {
	b  *sparseBits
	wi int    // the word of upper read
	w  uint64 // its ones not yet read
	i  uint64 // ones read
}

// iter returns an iterator at b's first one.
func (b *sparseBits) iter() sparseIter {
	it := sparseIter{b: b}
	if len(b.upper) > 0 {
		it.w = b.upper[0]
	}
	return it
}

// next returns the next position, or false past the last.
func (it *sparseIter) next() (uint64, bool) {
	for it.w == 0 {
		if it.wi++; it.wi >= len(it.b.upper) {
			return 0, false
		}
		it.w = it.b.upper[it.wi]
	}
	h := 64*uint64(it.wi) + uint64(bits.TrailingZeros64(it.w)) - it.i
	p := h<<it.b.l | it.b.low(it.i)
	it.w &= it.w - 1
	it.i++
	return p, true
}

// ones returns the number of ones.
func (b *sparseBits) ones() uint64 { return b.n }

// bytes returns the bytes b holds.
func (b *sparseBits) bytes() int { return 8*(len(b.lows)+len(b.upper)) + 4*len(b.zeros) }

// appendPositions appends the positions of b's ones to dst, increasing.
func (b *sparseBits) appendPositions(dst []uint64) []uint64 {
	it := b.iter()
	for p, ok := it.next(); ok; p, ok = it.next() {
		dst = append(dst, p)
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

// sparseBytes is the bytes a sparseBits of m bits and n ones holds, as
// newSparseBits builds it, without building it.
func sparseBytes(m, n uint64) uint64 {
	if n == 0 {
		return 0
	}
	l := sparseLowBits(m, n)
	zeros := sparseZeros(m, l)
	return 8*((n*uint64(l)+63)/64) + 8*((n+zeros+63)/64) + 4*((zeros+zeroSample-1)/zeroSample)
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
// its two filters may hold together (half the limit's payload: a view
// holds a one in about 2 bytes at the rates static digests are made
// for, and the view's bytes are checked against the payload once built;
// decoding holds 8 bytes a one for a moment, at most 4 times the
// payload) and the most bits of a filter it decodes in time proportional
// to them: those of a decoded filter within the limit, or of the filters
// a publisher of r's keys and rate makes (DeltaShare at most 1: a
// one-hash filter of max(64, n) keys at r's rate) up to
// staticDecodeFactor times that, whichever is more.
func staticLimits(r *ribbon.Filter, lim envelope.Limits) (ones, maxBits uint64) {
	ones = min(maxOnes, lim.Payload()/2)
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
