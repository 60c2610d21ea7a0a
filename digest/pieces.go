package digest

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/entropy"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/params"
)

// Piecewise-compressed digests (codec 3, docs/FORMAT.md "Piecewise
// digests"): the bit array is cut into pieces of a fixed decoded size and
// each piece is coded on its own, behind an index of where each piece's
// stream ends, so that a receiver can test a bit by decoding only its
// piece (Mitzenmacher, "Compressed Bloom filters", section on
// decompressing pieces).

// piecesHead is the size of the pieces payload's fixed part: piece bytes
// u32, inner codec u8, 3 reserved bytes.
const piecesHead = 8

// MaxPieceBytes bounds the decoded size of one piece.
const MaxPieceBytes = 1 << 30

// PieceBytes returns the piece size that AppendPieces uses when asked for
// want bytes for a filter of shape s: want rounded up to a multiple of 8
// and, for the blocked and paged layouts, of the block's bytes, so that
// every key's probes fall in one piece; and at most the array's size.
func PieceBytes(s params.Shape, want int) int {
	unit := uint64(8)
	if s.Layout == params.Blocked || s.Layout == params.Paged {
		unit = max(unit, s.BlockBits/8)
	}
	b := max(uint64(want), 1)
	b = (b + unit - 1) / unit * unit
	total := 8 * ((s.M + 63) / 64)
	if b > total {
		b = (total + unit - 1) / unit * unit
	}
	return int(min(b, MaxPieceBytes))
}

// AppendPieces appends d's frame with its bit array coded piece by piece:
// pieces of PieceBytes(shape, pieceBytes) decoded bytes, each coded by c
// ([Arith] or [Fast]; [Auto] codes the whole with both and keeps the
// smaller). Only Bloom filters are coded in pieces.
func AppendPieces(dst []byte, d *Digest, c Codec, pieceBytes int) ([]byte, error) {
	p, err := d.payload()
	if err != nil {
		return dst, err
	}
	if p.width != 0 {
		return dst, fmt.Errorf("%w: only Bloom filters are coded in pieces", ErrCodec)
	}
	if pieceBytes < 1 {
		return dst, fmt.Errorf("%w: piece size %d bytes", ErrCodec, pieceBytes)
	}
	b := PieceBytes(d.Bloom.Shape(), pieceBytes)
	var body []byte
	switch c {
	case Arith:
		body, err = encodePieces(p.words, p.bits, b, entropy.Arith)
	case Fast:
		body, err = encodePieces(p.words, p.bits, b, entropy.Fast)
	case Auto:
		body, err = encodePieces(p.words, p.bits, b, entropy.Fast)
		if err == nil {
			var ab []byte
			if ab, err = encodePieces(p.words, p.bits, b, entropy.Arith); len(ab) < len(body) {
				body = ab
			}
		}
	default:
		return dst, fmt.Errorf("%w: pieces are coded with arith or fast, not %v", ErrCodec, c)
	}
	if err != nil {
		return dst, err
	}
	h := p.header
	h.Sequence, h.Codec = d.Sequence, envelope.CodecPieces
	return appendFrame(dst, &h, body)
}

// EncodePieces returns d's frame coded in pieces (see AppendPieces).
func EncodePieces(d *Digest, c Codec, pieceBytes int) ([]byte, error) {
	return AppendPieces(nil, d, c, pieceBytes)
}

// pieceCount is the number of pieces of b bytes an m-bit array has.
func pieceCount(m, b uint64) uint64 {
	total := 8 * ((m + 63) / 64)
	return (total + b - 1) / b
}

// pieceBits is the number of array bits in piece i.
func pieceBits(m, b uint64, i uint64) uint64 {
	lo := i * 8 * b
	return min(m, lo+8*b) - lo
}

// encodePieces codes the m-bit array in pieces of b bytes.
func encodePieces(words []uint64, m uint64, b int, inner entropy.Codec) ([]byte, error) {
	n := pieceCount(m, uint64(b))
	if n > math.MaxUint32 {
		return nil, fmt.Errorf("%w: %d pieces", ErrCodec, n)
	}
	out := make([]byte, piecesHead+4*n, piecesHead+4*n+uint64(len(words)))
	binary.LittleEndian.PutUint32(out, uint32(b))
	out[4] = byte(innerEnvelope(inner))
	start := len(out)
	wpp := uint64(b / 8)
	for i := range n {
		bits := pieceBits(m, uint64(b), i)
		lo := i * wpp
		var err error
		if out, err = entropy.EncodeBits(out, words[lo:lo+(bits+63)/64], bits, inner); err != nil {
			return nil, err
		}
		if uint64(len(out)-start) > math.MaxUint32 {
			return nil, fmt.Errorf("%w: pieces larger than 4 GiB", ErrCodec)
		}
		binary.LittleEndian.PutUint32(out[piecesHead+4*i:], uint32(len(out)-start))
	}
	return out, nil
}

func innerEnvelope(c entropy.Codec) envelope.Codec {
	if c == entropy.Arith {
		return envelope.CodecArith
	}
	return envelope.CodecFast
}

// pieceIndex is a parsed pieces payload.
type pieceIndex struct {
	pieceBytes uint64
	inner      entropy.Codec
	ends       []uint32
	streams    []byte
}

// parsePieces checks a pieces payload for an m-bit array: its fixed part,
// that the index fits in the payload (before the index is allocated) and
// is non-decreasing, and that the last stream ends at the payload's end.
func parsePieces(body []byte, m uint64) (pieceIndex, error) {
	var x pieceIndex
	if len(body) < piecesHead {
		return x, fmt.Errorf("%w: pieces payload of %d bytes", ErrCorrupt, len(body))
	}
	x.pieceBytes = uint64(binary.LittleEndian.Uint32(body))
	switch {
	case x.pieceBytes == 0 || x.pieceBytes%8 != 0 || x.pieceBytes > MaxPieceBytes:
		return x, fmt.Errorf("%w: piece size %d bytes (want a positive multiple of 8 up to 2^30)", ErrCorrupt, x.pieceBytes)
	case body[5] != 0 || body[6] != 0 || body[7] != 0:
		return x, fmt.Errorf("%w: reserved bytes of the pieces header", ErrCorrupt)
	}
	switch envelope.Codec(body[4]) {
	case envelope.CodecArith:
		x.inner = entropy.Arith
	case envelope.CodecFast:
		x.inner = entropy.Fast
	default:
		return x, fmt.Errorf("%w: pieces coded with %v (want arith or fast)", ErrCorrupt, envelope.Codec(body[4]))
	}
	n := pieceCount(m, x.pieceBytes)
	if n > uint64(len(body)-piecesHead)/4 {
		return x, fmt.Errorf("%w: %d pieces need a %d-byte index, the payload has %d bytes", ErrCorrupt, n, 4*n, len(body))
	}
	x.ends = make([]uint32, n)
	prev := uint32(0)
	for i := range x.ends {
		e := binary.LittleEndian.Uint32(body[piecesHead+4*i:])
		if e < prev {
			return x, fmt.Errorf("%w: piece %d ends before piece %d", ErrCorrupt, i, i-1)
		}
		x.ends[i], prev = e, e
	}
	x.streams = body[piecesHead+4*n:]
	if uint64(prev) != uint64(len(x.streams)) {
		return x, fmt.Errorf("%w: the index ends at %d, the streams have %d bytes", ErrCorrupt, prev, len(x.streams))
	}
	return x, nil
}

// stream returns piece i's stream.
func (x *pieceIndex) stream(i uint64) []byte {
	lo := uint32(0)
	if i > 0 {
		lo = x.ends[i-1]
	}
	return x.streams[lo:x.ends[i]]
}

// decodePiece decodes piece i of an m-bit array into dst, which has the
// piece's words.
func (x *pieceIndex) decodePiece(dst []uint64, m, i uint64) error {
	if err := entropy.DecodeBits(dst, x.stream(i), pieceBits(m, x.pieceBytes, i), x.inner); err != nil {
		return fmt.Errorf("%w: piece %d: %w", ErrCorrupt, i, err)
	}
	return nil
}

// decodePieces decodes a whole pieces payload into words (⌈m/64⌉ words).
func decodePieces(words []uint64, body []byte, m uint64) error {
	x, err := parsePieces(body, m)
	if err != nil {
		return err
	}
	wpp := x.pieceBytes / 8
	for i := range uint64(len(x.ends)) {
		lo := i * wpp
		hi := lo + (pieceBits(m, x.pieceBytes, i)+63)/64
		if err := x.decodePiece(words[lo:hi], m, i); err != nil {
			return err
		}
	}
	return nil
}

// View is a piecewise-compressed Bloom filter held as it travels: the
// coded pieces and their index, and a small cache of decoded pieces.
// Contains decodes only the pieces a key's probes fall in (one piece for
// the blocked and paged layouts). A View is not safe for concurrent use.
//
// The zero View is not usable; make one with DecodeView or NewView. On a
// zero View, Contains and ContainsHash panic with a message naming the fix,
// and AppendBinary, Filter and Patch return an error.
type View struct {
	geo    bloom.Geometry
	header envelope.Header // the raw frame header: parameters, seed, scheme, sequence
	m      uint64
	x      pieceIndex
	cache  []cachedPiece
	clock  uint64
	// decoded counts piece decodings, for tests and metrics.
	decoded uint64
}

type cachedPiece struct {
	piece uint64
	used  uint64
	words []uint64
}

// DefaultViewCache is the number of decoded pieces a View keeps unless
// told otherwise.
const DefaultViewCache = 4

// DecodeView reads a piecewise-compressed Bloom filter frame (codec 3)
// without decoding its pieces; cache is the number of decoded pieces to
// keep (0: DefaultViewCache). The frame, its parameters and the pieces'
// index are checked as Decode checks them; a piece's stream is decoded,
// and checked, only when a query needs it (a corrupt piece is then an
// error from Contains).
func DecodeView(data []byte, lim envelope.Limits, cache int) (*View, error) {
	return envelope.DecodeFrame(data, lim, "digest", func(h envelope.Header, body []byte) (*View, error) {
		return NewView(h, body, lim, cache)
	})
}

// NewView builds a View from a parsed frame of a Bloom filter with codec
// 3. It keeps body (not a copy). lim bounds the decoded size of a piece.
func NewView(h envelope.Header, body []byte, lim envelope.Limits, cache int) (*View, error) {
	if h.Type != envelope.TypeBloom || h.Codec != envelope.CodecPieces {
		return nil, fmt.Errorf("%w: a %v frame with codec %v, not a Bloom filter in pieces", ErrCodec, h.Type, h.Codec)
	}
	shape, err := bloom.FrameShape(h)
	if err != nil {
		return nil, err
	}
	m := shape.M
	x, err := parsePieces(body, m)
	if err != nil {
		return nil, err
	}
	if piece := min(x.pieceBytes, 8*((m+63)/64)); piece > lim.Payload() {
		return nil, fmt.Errorf("%w: pieces of %d bytes (limit %d bytes)", ErrTooLarge, piece, lim.Payload())
	}
	scheme, err := hashing.Lookup(hashing.SchemeID(h.Scheme))
	if err != nil {
		return nil, err
	}
	geo, err := bloom.NewGeometry(shape, h.Seed, scheme)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if cache <= 0 {
		cache = DefaultViewCache
	}
	return &View{geo: geo, header: h, m: m, x: x, cache: make([]cachedPiece, 0, cache)}, nil
}

// piece returns the decoded words of piece i, from the cache or decoded
// into it (evicting the least recently used piece).
func (v *View) piece(i uint64) ([]uint64, error) {
	v.clock++
	for j := range v.cache {
		if v.cache[j].piece == i {
			v.cache[j].used = v.clock
			return v.cache[j].words, nil
		}
	}
	var slot *cachedPiece
	if len(v.cache) < cap(v.cache) {
		v.cache = append(v.cache, cachedPiece{words: make([]uint64, min(v.x.pieceBytes/8, (v.m+63)/64))})
		slot = &v.cache[len(v.cache)-1]
	} else {
		slot = &v.cache[0]
		for j := range v.cache {
			if v.cache[j].used < slot.used {
				slot = &v.cache[j]
			}
		}
	}
	words := slot.words[:(pieceBits(v.m, v.x.pieceBytes, i)+63)/64]
	slot.piece, slot.used = math.MaxUint64, v.clock
	if err := v.x.decodePiece(words, v.m, i); err != nil {
		return nil, err
	}
	v.decoded++
	slot.piece = i
	return words, nil
}

// Contains reports whether key may be in the filter, decoding only the
// pieces its probes fall in. A piece that does not decode is an error.
func (v *View) Contains(key []byte) (bool, error) { return v.ContainsHash(v.geo.Hash(key)) }

// ContainsHash is Contains for the key whose hash is h.
func (v *View) ContainsHash(h hashing.Hash128) (bool, error) {
	var buf [64]uint64
	bitsPer := 8 * v.x.pieceBytes
	for _, p := range v.geo.Positions(h, &buf) {
		i := p / bitsPer
		words, err := v.piece(i)
		if err != nil {
			return false, err
		}
		q := p - i*bitsPer
		if words[q/64]&(1<<(q%64)) == 0 {
			return false, nil
		}
	}
	return true, nil
}

// Geometry returns the filter's shape, scheme and seed.
func (v *View) Geometry() *bloom.Geometry { return &v.geo }

// Sequence returns the digest's sequence number.
func (v *View) Sequence() uint64 { return v.header.Sequence }

// Pieces returns the number of pieces.
func (v *View) Pieces() int { return len(v.x.ends) }

// PieceBytes returns the decoded size of a piece.
func (v *View) PieceBytes() int { return int(v.x.pieceBytes) }

// Codec returns the codec of the pieces' streams: Arith or Fast.
func (v *View) Codec() Codec {
	if v.x.inner == entropy.Arith {
		return Arith
	}
	return Fast
}

// CodedBytes returns the size of the pieces payload: header, index and
// streams.
func (v *View) CodedBytes() int { return piecesHead + 4*len(v.x.ends) + len(v.x.streams) }

// MemoryBytes returns what the view holds: the coded payload and the
// decoded pieces in its cache.
func (v *View) MemoryBytes() int {
	n := v.CodedBytes()
	for _, c := range v.cache {
		n += 8 * cap(c.words)
	}
	return n
}

// Decoded returns how many times a piece has been decoded.
func (v *View) Decoded() uint64 { return v.decoded }

// Filter decodes every piece into a bloom.Filter.
func (v *View) Filter() (*bloom.Filter, error) {
	words := make([]uint64, (v.m+63)/64)
	wpp := v.x.pieceBytes / 8
	for i := range uint64(len(v.x.ends)) {
		lo := i * wpp
		if err := v.x.decodePiece(words[lo:lo+(pieceBits(v.m, v.x.pieceBytes, i)+63)/64], v.m, i); err != nil {
			return nil, err
		}
	}
	h := v.header
	h.Codec = envelope.CodecRaw
	return bloom.FromWords(h, words)
}

// Patch applies a delta digest (see Patch) to the view: the base must be
// the view's version (sequence and checksum); only the pieces whose words
// the delta changes are decoded, changed and coded again. On any error
// the view is unchanged.
func (v *View) Patch(delta []byte, lim envelope.Limits) error {
	d, err := DecodeDelta(delta, lim)
	if err != nil {
		return err
	}
	switch {
	case d.Target != envelope.TypeBloom:
		return fmt.Errorf("%w: a delta of a %v, the view is a Bloom filter", ErrBase, d.Target)
	case d.BaseSequence != v.header.Sequence:
		return fmt.Errorf("%w: the delta's base is sequence %d, the view is %d", ErrBase, d.BaseSequence, v.header.Sequence)
	case d.Header.Seed != v.header.Seed || d.Header.Scheme != v.header.Scheme ||
		len(d.Header.Params) != len(v.header.Params) || string(d.Header.Params[:16]) != string(v.header.Params[:16]):
		return fmt.Errorf("%w: the delta's shape, seed or scheme differs from the view's", ErrBase)
	}
	// The base checksum, one piece at a time.
	wpp := v.x.pieceBytes / 8
	buf := make([]uint64, min(wpp, (v.m+63)/64))
	var crc uint32
	var raw [8]byte
	changed := make([]bool, len(v.x.ends))
	for i := range uint64(len(v.x.ends)) {
		nw := (pieceBits(v.m, v.x.pieceBytes, i) + 63) / 64
		if err := v.x.decodePiece(buf[:nw], v.m, i); err != nil {
			return err
		}
		for j, w := range buf[:nw] {
			binary.LittleEndian.PutUint64(raw[:], w)
			crc = envelope.UpdateChecksum(crc, raw[:])
			if d.XOR[i*wpp+uint64(j)] != 0 {
				changed[i] = true
			}
		}
	}
	if crc != d.BaseChecksum {
		return fmt.Errorf("%w: the delta's base checksum %08x, the view's %08x", ErrBase, d.BaseChecksum, crc)
	}
	// Recode the changed pieces; copy the others' streams as they are.
	streams := make([]byte, 0, len(v.x.streams))
	ends := make([]uint32, len(v.x.ends))
	for i := range uint64(len(v.x.ends)) {
		if !changed[i] {
			streams = append(streams, v.x.stream(i)...)
		} else {
			bits := pieceBits(v.m, v.x.pieceBytes, i)
			nw := (bits + 63) / 64
			if err := v.x.decodePiece(buf[:nw], v.m, i); err != nil {
				return err
			}
			for j := range buf[:nw] {
				buf[j] ^= d.XOR[i*wpp+uint64(j)]
			}
			if streams, err = entropy.EncodeBits(streams, buf[:nw], bits, v.x.inner); err != nil {
				return err
			}
		}
		if uint64(len(streams)) > math.MaxUint32 {
			return fmt.Errorf("%w: pieces larger than 4 GiB", ErrCodec)
		}
		ends[i] = uint32(len(streams))
	}
	h := d.Header
	h.Codec, h.Sequence = envelope.CodecPieces, d.Sequence
	v.header, v.x.ends, v.x.streams = h, ends, streams
	for j := range v.cache {
		if p := v.cache[j].piece; p < uint64(len(changed)) && changed[p] {
			v.cache[j].piece = math.MaxUint64
		}
	}
	return nil
}

// AppendBinary appends the view's frame (codec 3) to b.
func (v *View) AppendBinary(b []byte) ([]byte, error) {
	if v.m == 0 {
		return b, ErrEmpty
	}
	body := make([]byte, 0, v.CodedBytes())
	body = binary.LittleEndian.AppendUint32(body, uint32(v.x.pieceBytes))
	body = append(body, byte(innerEnvelope(v.x.inner)), 0, 0, 0)
	for _, e := range v.x.ends {
		body = binary.LittleEndian.AppendUint32(body, e)
	}
	body = append(body, v.x.streams...)
	h := v.header
	return appendFrame(b, &h, body)
}

// decodePiecesLimited decodes a whole pieces payload of an m-bit array
// after checking its decoded size against lim.
func decodePiecesLimited(body []byte, m uint64, lim envelope.Limits) ([]uint64, error) {
	nw := (m + 63) / 64
	if nw > math.MaxInt/8 || 8*nw > lim.Payload() {
		return nil, fmt.Errorf("%w: %d bits (limit %d bytes)", ErrTooLarge, m, lim.Payload())
	}
	if _, err := parsePieces(body, m); err != nil {
		return nil, err
	}
	words := make([]uint64, nw)
	return words, decodePieces(words, body, m)
}
