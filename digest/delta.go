package digest

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"unsafe"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/counting"
	"github.com/bloomcast/bloomcast/entropy"
	"github.com/bloomcast/bloomcast/envelope"
)

// deltaPrefix is the size of the delta parameters before the target's own
// parameter block: target type u8, 3 reserved bytes, base checksum u32,
// base sequence u64 (docs/FORMAT.md, "Delta digests").
const deltaPrefix = 16

// DeltaHeader is what a delta frame says about itself.
// The zero value describes no delta: its Target, 0, names no structure, and
// nothing that applies a delta accepts it.
type DeltaHeader struct {
	Target       envelope.Type   // the structure it updates
	Codec        envelope.Codec  // how the XOR is coded
	BaseSequence uint64          // the base's sequence number
	BaseChecksum uint32          // CRC-32C of the base's words
	Sequence     uint64          // the sequence number of the result
	Header       envelope.Header // the result's raw frame header (parameters, count)
}

// Checksum returns the CRC-32C (Castagnoli) of d's words, little-endian:
// how a delta names its base beside the sequence number.
func Checksum(d *Digest) (uint32, error) {
	if d != nil && d.Scalable != nil && d.Bloom == nil && d.Counting == nil {
		return scalableChecksum(d.Scalable), nil
	}
	p, err := d.payload()
	if err != nil {
		return 0, err
	}
	return wordsChecksum(p.words), nil
}

func wordsChecksum(words []uint64) uint32 { return updateWordsChecksum(0, words, nil) }

// crcBuffer holds words as bytes for the checksum (on the heap: the CRC's
// assembly makes it escape, so a caller that checksums piece by piece
// allocates one for all the pieces).
type crcBuffer [4096]byte

// littleEndian: the host stores words as the format does, so the
// checksum reads them in place.
var littleEndian = func() bool { x := uint16(1); return *(*byte)(unsafe.Pointer(&x)) == 1 }()

// updateWordsChecksum continues crc over words, little-endian. buf is
// used on a big-endian host only (nil: one is allocated).
func updateWordsChecksum(crc uint32, words []uint64, buf *crcBuffer) uint32 {
	if littleEndian && len(words) > 0 {
		return envelope.UpdateChecksum(crc, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), 8*len(words)))
	}
	if buf == nil && len(words) > 0 {
		buf = new(crcBuffer)
	}
	for len(words) > 0 {
		n := min(len(words), len(buf)/8)
		for i, w := range words[:n] {
			binary.LittleEndian.PutUint64(buf[8*i:], w)
		}
		crc = envelope.UpdateChecksum(crc, buf[:8*n])
		words = words[n:]
	}
	return crc
}

// AppendDiff appends the delta that turns base into next: the XOR of their
// words coded by c ([Auto]: the smallest), tagged with base's sequence and
// checksum, with next's sequence, parameters and element count. The two
// must be the same kind of structure with the same shape, seed and scheme
// (and counter width), and next.Sequence must exceed base.Sequence.
//
// Two versions of a scalable filter give a delta of the layers from the
// first that changed (see "A scalable filter travels" above); next must
// have at least base's layers.
func AppendDiff(dst []byte, base, next *Digest, c Codec) ([]byte, error) {
	if base != nil && next != nil && (base.Scalable != nil || next.Scalable != nil) {
		if base.Scalable == nil || next.Scalable == nil {
			return dst, fmt.Errorf("%w: %w", ErrBase, errNotScalable)
		}
		return appendScalableDiff(dst, base, next, c)
	}
	bp, err := base.payload()
	if err != nil {
		return dst, err
	}
	np, err := next.payload()
	if err != nil {
		return dst, err
	}
	if err := sameShape(base, next); err != nil {
		return dst, err
	}
	if next.Sequence <= base.Sequence {
		return dst, fmt.Errorf("%w: base %d, next %d", ErrSequence, base.Sequence, next.Sequence)
	}
	crc := wordsChecksum(bp.words)
	if c != Raw {
		if pos, ok := xorPositions(nil, np.words, bp.words, sparseLimit(np.bits)); ok {
			return appendGapsDelta(dst, np, base.Sequence, crc, pos, next.Sequence)
		}
	}
	xor := make([]uint64, len(np.words))
	for i, w := range np.words {
		xor[i] = w ^ bp.words[i]
	}
	return appendDelta(dst, np, base.Sequence, crc, xor, next.Sequence, c)
}

// sparseLimit is the most bits a delta's XOR of the given length may
// change to be coded as gaps: one in 32. Below it the gap code measures
// within 1% of the arithmetic coder on independent bits and smaller on a
// blocked filter's clustered changes (docs/FORMAT.md, "Which codec").
func sparseLimit(bits uint64) int { return int(min(bits/32, 1<<40)) }

// xorPositions appends to pos the positions of the ones of a XOR b (of a
// alone when b is nil), in order, one word at a time and four at a time
// past unchanged words (a sparse delta's common case); it gives up (false)
// past limit ones.
func xorPositions(pos []uint64, a, b []uint64, limit int) ([]uint64, bool) {
	if b == nil {
		return onesPositions(pos, a, limit)
	}
	b = b[:len(a)]
	i, ok := 0, true
	for ; i+4 <= len(a); i += 4 {
		if (a[i]^b[i])|(a[i+1]^b[i+1])|(a[i+2]^b[i+2])|(a[i+3]^b[i+3]) == 0 {
			continue
		}
		for j := i; j < i+4; j++ {
			if pos, ok = appendOnes(pos, a[j]^b[j], j, limit); !ok {
				return pos, false
			}
		}
	}
	for ; i < len(a); i++ {
		if pos, ok = appendOnes(pos, a[i]^b[i], i, limit); !ok {
			return pos, false
		}
	}
	return pos, true
}

// onesPositions is xorPositions of a alone.
func onesPositions(pos []uint64, a []uint64, limit int) ([]uint64, bool) {
	i, ok := 0, true
	for ; i+4 <= len(a); i += 4 {
		if a[i]|a[i+1]|a[i+2]|a[i+3] == 0 {
			continue
		}
		for j := i; j < i+4; j++ {
			if pos, ok = appendOnes(pos, a[j], j, limit); !ok {
				return pos, false
			}
		}
	}
	for ; i < len(a); i++ {
		if pos, ok = appendOnes(pos, a[i], i, limit); !ok {
			return pos, false
		}
	}
	return pos, true
}

// appendOnes appends the positions of the ones of w, word i, unless that
// would pass limit positions (false).
func appendOnes(pos []uint64, w uint64, i, limit int) ([]uint64, bool) {
	for ; w != 0; w &= w - 1 {
		if len(pos) == limit {
			return pos, false
		}
		pos = append(pos, uint64(64*i+bits.TrailingZeros64(w)))
	}
	return pos, true
}

// appendGapsDelta codes the positions of the XOR's ones as the delta frame
// to np (codec gaps).
func appendGapsDelta(dst []byte, np payload, baseSeq uint64, baseCRC uint32, pos []uint64, seq uint64) ([]byte, error) {
	body, err := gapsPayload(pos, np.bits)
	if err != nil {
		return dst, err
	}
	h := deltaFrameHeader(np, baseSeq, baseCRC, seq, envelope.CodecGaps)
	return appendFrame(dst, &h, body)
}

// gapsPayload codes the positions of a XOR's ones in a bit array of the
// given length (codec gaps).
func gapsPayload(pos []uint64, bits uint64) ([]byte, error) {
	body, err := entropy.AppendGaps(make([]byte, 0, 8+2*len(pos)), pos, bits)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return body, nil
}

// appendXORPayload appends the payload of a delta of a bit array of m
// bits whose XOR has its ones at pos (increasing), as AppendDiff codes
// it, preceded by its length as a varint, and returns the codec: the
// gap code unless c is Raw or the XOR changes more than sparseLimit(m)
// bits, else the XOR's words coded by c (raw: the words, little-endian).
// A static delta's parts are these payloads without a frame.
func appendXORPayload(dst []byte, pos []uint64, m uint64, c Codec) ([]byte, envelope.Codec, error) {
	if c != Raw && len(pos) <= sparseLimit(m) {
		body, err := gapsPayload(pos, m)
		if err != nil {
			return dst, 0, err
		}
		dst = binary.AppendUvarint(dst, uint64(len(body)))
		return append(dst, body...), envelope.CodecGaps, nil
	}
	xor := make([]uint64, (m+63)/64)
	for _, p := range pos {
		xor[p/64] |= 1 << (p % 64)
	}
	codec, body, err := payload{words: xor, bits: m}.encode(c)
	if err != nil {
		return dst, 0, err
	}
	if codec == envelope.CodecRaw {
		dst = binary.AppendUvarint(dst, uint64(8*len(xor)))
		for _, w := range xor {
			dst = binary.LittleEndian.AppendUint64(dst, w)
		}
		return dst, codec, nil
	}
	dst = binary.AppendUvarint(dst, uint64(len(body)))
	return append(dst, body...), codec, nil
}

func deltaFrameHeader(np payload, baseSeq uint64, baseCRC uint32, seq uint64, codec envelope.Codec) envelope.Header {
	return envelope.Header{
		Version:  np.header.Version, // the target's parameters are inside
		Type:     envelope.TypeDelta,
		Codec:    codec,
		Scheme:   np.header.Scheme,
		Seed:     np.header.Seed,
		Sequence: seq,
		Params:   deltaParams(np.header, baseCRC, baseSeq),
	}
}

// AppendDeltaXOR appends the delta to next from a base the caller no
// longer holds in full, given the base's sequence number and checksum
// ([Checksum]) and xor, next's words XOR the base's (as many words as
// next's). A publisher that keeps only the changes between its versions
// uses it; the result is byte for byte what AppendDiff would write.
func AppendDeltaXOR(dst []byte, next *Digest, baseSequence uint64, baseChecksum uint32, xor []uint64, c Codec) ([]byte, error) {
	np, err := next.payload()
	if err != nil {
		return dst, err
	}
	if len(xor) != len(np.words) {
		return dst, fmt.Errorf("%w: %d XOR words for a structure of %d", ErrBase, len(xor), len(np.words))
	}
	if next.Sequence <= baseSequence {
		return dst, fmt.Errorf("%w: base %d, next %d", ErrSequence, baseSequence, next.Sequence)
	}
	if c != Raw {
		if pos, ok := xorPositions(nil, xor, nil, sparseLimit(np.bits)); ok {
			return appendGapsDelta(dst, np, baseSequence, baseChecksum, pos, next.Sequence)
		}
	}
	return appendDelta(dst, np, baseSequence, baseChecksum, xor, next.Sequence, c)
}

// AppendDeltaWords appends the delta to next from a base the caller no
// longer holds in full, given the base's sequence number and checksum
// ([Checksum]) and the words that differ: changes in increasing Index
// order, each word once, Old its value in the base and New in next. A
// publisher that tracks the words it changed (counting.Filter's
// ChangedWords) uses it: a sparse delta then costs the changed words,
// with no pass over the others. The result is byte for byte what
// AppendDiff would write.
func AppendDeltaWords(dst []byte, next *Digest, baseSequence uint64, baseChecksum uint32, changes []counting.WordChange, c Codec) ([]byte, error) {
	np, err := next.payload()
	if err != nil {
		return dst, err
	}
	if next.Sequence <= baseSequence {
		return dst, fmt.Errorf("%w: base %d, next %d", ErrSequence, baseSequence, next.Sequence)
	}
	for i, ch := range changes {
		if ch.Index >= uint64(len(np.words)) || i > 0 && ch.Index <= changes[i-1].Index || np.words[ch.Index] != ch.New {
			return dst, fmt.Errorf("%w: change %d (word %d) out of order, out of range or not next's word", ErrBase, i, ch.Index)
		}
	}
	if c != Raw {
		limit, pos := sparseLimit(np.bits), []uint64(nil)
		sparse := true
		for _, ch := range changes {
			for w := ch.Old ^ ch.New; w != 0; w &= w - 1 {
				if len(pos) == limit {
					sparse = false
					break
				}
				pos = append(pos, 64*ch.Index+uint64(bits.TrailingZeros64(w)))
			}
		}
		if sparse {
			return appendGapsDelta(dst, np, baseSequence, baseChecksum, pos, next.Sequence)
		}
	}
	xor := make([]uint64, len(np.words))
	for _, ch := range changes {
		xor[ch.Index] = ch.Old ^ ch.New
	}
	return appendDelta(dst, np, baseSequence, baseChecksum, xor, next.Sequence, c)
}

// appendDelta codes xor as the delta frame to np.
func appendDelta(dst []byte, np payload, baseSeq uint64, baseCRC uint32, xor []uint64, seq uint64, c Codec) ([]byte, error) {
	x := payload{words: xor, bits: np.bits} // the XOR of counters is coded as bits
	codec, body, err := x.encode(c)
	if err != nil {
		return dst, err
	}
	h := deltaFrameHeader(np, baseSeq, baseCRC, seq, codec)
	if codec == envelope.CodecRaw {
		return envelope.AppendWords(dst, h, xor)
	}
	return appendFrame(dst, &h, body)
}

// Diff returns the delta from base to next, as AppendDiff.
func Diff(base, next *Digest, c Codec) ([]byte, error) { return AppendDiff(nil, base, next, c) }

func deltaParams(target envelope.Header, crc uint32, baseSeq uint64) []byte {
	p := make([]byte, deltaPrefix, deltaPrefix+len(target.Params))
	p[0] = byte(target.Type)
	binary.LittleEndian.PutUint32(p[4:], crc)
	binary.LittleEndian.PutUint64(p[8:], baseSeq)
	return append(p, target.Params...)
}

// sameShape checks that a delta between a and b is meaningful.
func sameShape(a, b *Digest) error {
	switch {
	case a.Bloom != nil && b.Bloom != nil:
		if err := a.Bloom.Compatible(b.Bloom); err != nil {
			return fmt.Errorf("%w: %w", ErrBase, err)
		}
		return nil
	case a.Counting != nil && b.Counting != nil:
		fa, fb := a.Counting, b.Counting
		if fa.Width() != fb.Width() || fa.MinimalIncrease() != fb.MinimalIncrease() {
			return fmt.Errorf("%w: counters of %d and %d bits", ErrBase, fa.Width(), fb.Width())
		}
		// The counting filters' own check (shape, scheme, seed): a filter
		// built with counting.Config.NoBitView has no bit view to ask.
		if err := fa.Compatible(fb); err != nil {
			return fmt.Errorf("%w: %w", ErrBase, err)
		}
		return nil
	}
	return fmt.Errorf("%w: a delta needs two structures of one kind", ErrBase)
}

// ParseDelta parses a delta frame and returns its header and coded XOR
// (aliasing data), without needing the base.
func ParseDelta(data []byte, lim envelope.Limits) (DeltaHeader, []byte, error) {
	h, body, err := envelope.Parse(data, lim)
	if err != nil {
		return DeltaHeader{}, nil, fmt.Errorf("digest: %w", err)
	}
	dh, err := ParseDeltaHeader(h)
	return dh, body, err
}

// ParseDeltaHeader reads the delta parameters of a parsed delta frame.
func ParseDeltaHeader(h envelope.Header) (DeltaHeader, error) {
	if h.Type != envelope.TypeDelta {
		return DeltaHeader{}, fmt.Errorf("%w: a %v frame, not a delta", ErrDelta, h.Type)
	}
	p := h.Params
	if len(p) < deltaPrefix {
		return DeltaHeader{}, fmt.Errorf("%w: %d bytes of delta parameters", ErrCorrupt, len(p))
	}
	if p[1]|p[2]|p[3] != 0 {
		return DeltaHeader{}, fmt.Errorf("%w: reserved delta bytes % x", ErrCorrupt, p[1:4])
	}
	dh := DeltaHeader{
		Target:       envelope.Type(p[0]),
		Codec:        h.Codec,
		BaseChecksum: binary.LittleEndian.Uint32(p[4:]),
		BaseSequence: binary.LittleEndian.Uint64(p[8:]),
		Sequence:     h.Sequence,
	}
	if dh.Sequence <= dh.BaseSequence {
		return dh, fmt.Errorf("%w: base %d, delta %d", ErrSequence, dh.BaseSequence, dh.Sequence)
	}
	dh.Header = envelope.Header{
		Version: h.Version,
		Type:    dh.Target,
		Codec:   envelope.CodecRaw,
		Scheme:  h.Scheme,
		Seed:    h.Seed,
		Params:  p[deltaPrefix:],
	}
	switch dh.Target {
	case envelope.TypeBloom, envelope.TypeCounting, envelope.TypeScalable:
		return dh, nil
	}
	return dh, fmt.Errorf("%w: a delta of a %v", ErrCorrupt, dh.Target)
}

// Patch applies a delta frame to base and returns the new digest; base is
// not modified. A delta made for another base (sequence, checksum, kind,
// shape, seed or scheme) is refused with an error wrapping [ErrBase]: the
// caller then needs a full digest. lim bounds the frame and the XOR it
// decodes to.
//
// Patch allocates the whole result and checksums the whole base for every
// delta. A receiver that applies each delta to the one digest it holds
// uses [Patcher] (a Bloom or counting filter digest) or [Pieces] instead,
// which allocate in proportion to the delta. Neither holds a scalable
// filter digest: its deltas are applied by Patch alone, to copies of its
// layers.
func Patch(base *Digest, delta []byte, lim envelope.Limits) (*Digest, error) {
	dh, body, err := ParseDelta(delta, lim)
	if err != nil {
		return nil, err
	}
	if base != nil && base.Scalable != nil && base.Bloom == nil && base.Counting == nil {
		return patchScalable(base, dh, body, lim)
	}
	bp, err := base.payload()
	if err != nil {
		return nil, err
	}
	if dh.BaseSequence != base.Sequence {
		return nil, fmt.Errorf("%w: the delta is from sequence %d, the base is %d", ErrBase, dh.BaseSequence, base.Sequence)
	}
	if bp.header.Type != dh.Target {
		return nil, fmt.Errorf("%w: the delta updates a %v, the base is a %v", ErrBase, dh.Target, bp.header.Type)
	}
	// A gap-coded delta is applied to a copy of the base: the copy is
	// made as the base is checksummed, in one pass over it.
	var copied []uint64
	var crc uint32
	if dh.Codec == envelope.CodecGaps && 8*uint64(len(bp.words)) <= lim.Payload() {
		copied, crc = cloneChecksum(bp.words)
	} else {
		crc = wordsChecksum(bp.words)
	}
	if crc != dh.BaseChecksum {
		return nil, fmt.Errorf("%w: base checksum %08x, the delta expects %08x", ErrBase, crc, dh.BaseChecksum)
	}
	next, err := decodeTarget(dh, body, bp, lim, copied)
	if err != nil {
		return nil, err
	}
	if err := sameShape(base, next); err != nil {
		return nil, err
	}
	return next, nil
}

// decodeTarget decodes the XOR, applies it to the base's words and builds
// the result from the delta's target header. copied, when not nil, is a
// copy of the base's words that a gap-coded XOR may be applied to.
func decodeTarget(dh DeltaHeader, body []byte, bp payload, lim envelope.Limits, copied []uint64) (*Digest, error) {
	bits, err := targetBits(dh.Header)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBase, err)
	}
	if bits != bp.bits {
		return nil, fmt.Errorf("%w: the delta is for %d bits, the base has %d", ErrBase, bits, bp.bits)
	}
	words, err := decodeXOR(dh.Codec, body, bits, lim, bp.words, copied)
	if err != nil {
		return nil, err
	}
	d := &Digest{Sequence: dh.Sequence, Codec: dh.Codec}
	if dh.Target == envelope.TypeBloom {
		d.Bloom, err = bloom.FromWords(dh.Header, words)
	} else {
		d.Counting, err = counting.FromWords(dh.Header, words)
	}
	if err != nil {
		return nil, err
	}
	return d, nil
}

// decodeXOR decodes a delta's payload of the given bits and returns it
// XOR base (base nil: the payload alone) in new words. A gap-coded
// payload is applied to a copy of base (copied, when it is one of the
// right length, which it then changes): its work beyond the copy is
// proportional to the bits it changes.
func decodeXOR(codec envelope.Codec, body []byte, bits uint64, lim envelope.Limits, base, copied []uint64) ([]uint64, error) {
	if codec != envelope.CodecGaps {
		words, err := decodeWords(codec, body, payload{bits: bits}, lim)
		if err != nil {
			return nil, err
		}
		for i, w := range base {
			words[i] ^= w
		}
		return words, nil
	}
	nw := bits/64 + min(bits%64, 1)
	if nw > math.MaxInt/8 || 8*nw > lim.Payload() {
		return nil, fmt.Errorf("%w: %d bits (limit %d bytes)", ErrTooLarge, bits, lim.Payload())
	}
	var words []uint64
	switch {
	case copied != nil && uint64(len(copied)) == nw:
		words = copied
	case base == nil:
		words = make([]uint64, nw)
	default:
		words = slices.Clone(base) // not zeroed first
	}
	if _, err := entropy.XORGaps(words, body, bits); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return words, nil
}

// copyBlock is the words cloneChecksum copies, then checksums, at a time:
// 32 KiB, which the copy leaves in the first-level cache for the checksum.
const copyBlock = 4096

// cloneChecksum returns a copy of words and their checksum (as
// wordsChecksum) in one pass: each block is checksummed from its copy
// while the copy is still in the cache, where a copy and a checksum of the
// whole array read it from memory twice. Between blocks the garbage
// collector may stop the goroutine, which it cannot within the one call
// that copies or checksums a whole array of megabytes.
func cloneChecksum(words []uint64) ([]uint64, uint32) {
	out := make([]uint64, len(words))
	var buf *crcBuffer
	if !littleEndian {
		buf = new(crcBuffer)
	}
	var crc uint32
	for i := 0; i < len(words); i += copyBlock {
		e := min(i+copyBlock, len(words))
		copy(out[i:e], words[i:e])
		crc = updateWordsChecksum(crc, out[i:e], buf)
	}
	return out, crc
}

// targetBits validates a delta's target header and returns the bits its
// words hold.
func targetBits(h envelope.Header) (uint64, error) {
	switch h.Type {
	case envelope.TypeBloom:
		return bloom.PayloadBits(h)
	case envelope.TypeScalable:
		return 0, fmt.Errorf("%w: a scalable filter's delta applies to a scalable base", ErrBase)
	}
	n, width, err := counting.PayloadCounters(h)
	return n * uint64(width), err
}

// Delta is a decoded delta digest, for inspection: what it says about
// itself and the XOR it carries.
// The zero value is an empty delta of no bits: Changed and EntropyBits
// return 0.
type Delta struct {
	DeltaHeader
	// XOR is next XOR base in the structure's word layout (bits, or packed
	// counters), Bits of them meaningful.
	XOR  []uint64
	Bits uint64
	// PayloadBytes is the size of the coded XOR.
	PayloadBytes int
}

// DecodeDelta parses a delta frame and decodes its XOR without a base.
func DecodeDelta(data []byte, lim envelope.Limits) (*Delta, error) {
	h, body, err := envelope.Parse(data, lim)
	if err != nil {
		return nil, fmt.Errorf("digest: %w", err)
	}
	return DeltaFromFrame(h, body, lim)
}

// DeltaFromFrame decodes a parsed delta frame and its XOR without a base.
func DeltaFromFrame(h envelope.Header, body []byte, lim envelope.Limits) (*Delta, error) {
	dh, err := ParseDeltaHeader(h)
	if err != nil {
		return nil, err
	}
	if dh.Target == envelope.TypeScalable {
		xor, bits, err := scalableDeltaXOR(dh, body, lim)
		if err != nil {
			return nil, err
		}
		return &Delta{DeltaHeader: dh, XOR: xor, Bits: bits, PayloadBytes: len(body)}, nil
	}
	bits, err := targetBits(dh.Header)
	if err != nil {
		return nil, err
	}
	words, err := decodeXOR(dh.Codec, body, bits, lim, nil, nil)
	if err != nil {
		return nil, err
	}
	return &Delta{DeltaHeader: dh, XOR: words, Bits: bits, PayloadBytes: len(body)}, nil
}

// Changed returns the number of bits that differ between base and next.
func (d *Delta) Changed() uint64 {
	var n int
	for _, w := range d.XOR {
		n += bits.OnesCount64(w)
	}
	return uint64(n)
}

// EntropyBits returns Bits·H(q), q the fraction of bits changed: the size
// the paper's delta model ([params.DeltaBits]) predicts for an ideal coder.
func (d *Delta) EntropyBits() float64 {
	if d.Bits == 0 {
		return 0
	}
	return float64(d.Bits) * entropy.Entropy(float64(d.Changed())/float64(d.Bits))
}
