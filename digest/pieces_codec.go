package digest

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/bloomcast/bloomcast/entropy"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/internal/readn"
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
	wpp := uint64(b / 8)
	return codePieces(m, b, inner, len(words), func(i, nw uint64) ([]uint64, error) {
		return words[i*wpp : i*wpp+nw], nil
	})
}

// codePieces codes an m-bit array in pieces of b bytes, asking piece(i,
// nw) for the nw words of piece i in turn; extra is room to reserve for
// the streams.
func codePieces(m uint64, b int, inner entropy.Codec, extra int, piece func(i, nw uint64) ([]uint64, error)) ([]byte, error) {
	n := pieceCount(m, uint64(b))
	if n > math.MaxUint32 {
		return nil, fmt.Errorf("%w: %d pieces", ErrCodec, n)
	}
	out := make([]byte, piecesHead+4*n, piecesHead+4*n+uint64(extra))
	binary.LittleEndian.PutUint32(out, uint32(b))
	out[4] = byte(innerEnvelope(inner))
	start := len(out)
	for i := range n {
		bits := pieceBits(m, uint64(b), i)
		words, err := piece(i, (bits+63)/64)
		if err != nil {
			return nil, err
		}
		if out, err = entropy.EncodeBits(out, words, bits, inner); err != nil {
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

// decodePiecesLimited decodes a whole pieces payload of an m-bit array
// after checking its decoded size against lim.
func decodePiecesLimited(body []byte, m uint64, lim envelope.Limits) ([]uint64, error) {
	nw := (m + 63) / 64
	if nw > math.MaxInt/8 || 8*nw > lim.Payload() {
		return nil, fmt.Errorf("%w: %d bits (limit %d bytes)", ErrTooLarge, m, lim.Payload())
	}
	x, err := parsePieces(body, m)
	if err != nil {
		return nil, err
	}
	// Grown piece by piece as each decodes, not made whole first: a few
	// bytes can claim an array up to the limit.
	words := make([]uint64, 0, min(nw, readn.Chunk/8))
	for i := range uint64(len(x.ends)) {
		bits := pieceBits(m, x.pieceBytes, i)
		r, err := entropy.NewBitReader(x.stream(i), bits, x.inner)
		if err == nil {
			words, err = appendWords(words, r, (bits+63)/64)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: piece %d: %w", ErrCorrupt, i, err)
		}
	}
	return words, nil
}
