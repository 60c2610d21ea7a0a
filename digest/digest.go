package digest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/counting"
	"github.com/bloomcast/bloomcast/entropy"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/internal/readn"
	"github.com/bloomcast/bloomcast/scalable"
)

// Errors. Functions wrap them with details; test with errors.Is.
var (
	// ErrCodec: a codec that does not apply to the structure (arith for
	// counters), or an unknown codec name or value.
	ErrCodec = errors.New("digest: unsupported codec")
	// ErrCorrupt: a frame whose payload does not decode, or a frame of a
	// type this package does not carry.
	ErrCorrupt = errors.New("digest: corrupt digest")
	// ErrTooLarge: the payload would decode to more than the limit.
	ErrTooLarge = errors.New("digest: decoded size exceeds limit")
	// ErrBase: a delta for another base than the one given (another
	// sequence, checksum or shape); the caller needs a full digest.
	ErrBase = errors.New("digest: delta does not apply to this base")
	// ErrSequence: a delta whose sequence does not follow its base's.
	ErrSequence = errors.New("digest: sequence numbers must increase")
	// ErrDelta: a delta where a full digest was expected, or the reverse.
	ErrDelta = errors.New("digest: wrong kind of frame")
	// ErrEmpty: a Digest with neither a Bloom nor a counting filter.
	ErrEmpty = errors.New("digest: no structure")
)

// Codec is what an encoder is asked to use. The zero value is [Auto].
type Codec uint8

// Codecs.
const (
	Auto  Codec = iota // the smallest of the codecs that apply
	Raw                // envelope.CodecRaw
	Arith              // envelope.CodecArith: bit arrays only
	Fast               // envelope.CodecFast
)

var codecNames = [...]string{Auto: "auto", Raw: "raw", Arith: "arith", Fast: "fast"}

func (c Codec) String() string {
	if int(c) < len(codecNames) {
		return codecNames[c]
	}
	return fmt.Sprintf("codec(%d)", uint8(c))
}

// ParseCodec returns the codec named s: auto, raw, arith or fast.
func ParseCodec(s string) (Codec, error) {
	for c, name := range codecNames {
		if s == name {
			return Codec(c), nil
		}
	}
	return Auto, fmt.Errorf("%w: %q (want auto, raw, arith or fast)", ErrCodec, s)
}

// Digest is a structure as it travels: a Bloom filter, a counting filter
// or a scalable filter (exactly one is set) and the sequence number of its
// publication.
//
// The zero Digest holds no filter: its Filter is nil, and the encoders
// return ErrEmpty for it (and for a nil *Digest).
type Digest struct {
	Sequence uint64
	Bloom    *bloom.Filter
	Counting *counting.Filter
	// Scalable is a scalable Bloom filter, which travels as one digest
	// per layer (frame type 11).
	Scalable *scalable.Filter
	// Codec is how the digest was coded when it was decoded; encoders
	// ignore it (they take the codec as an argument).
	Codec envelope.Codec
}

// Filter returns the Bloom filter to query: the Bloom filter, or the
// counting filter's bit view. It is nil for a counting filter built
// without a view (counting.Config.NoBitView; decoded filters always have
// one).
func (d *Digest) Filter() *bloom.Filter {
	if d.Bloom != nil {
		return d.Bloom
	}
	if d.Counting != nil {
		return d.Counting.BitView()
	}
	return nil
}

// payload is a structure's words as the codecs see them.
type payload struct {
	header envelope.Header // the raw frame header (codec raw, sequence 0)
	words  []uint64
	bits   uint64 // the number of meaningful bits in words
	width  uint   // counter width; 0 for a bit array
}

func (d *Digest) payload() (payload, error) {
	switch {
	case d == nil:
		return payload{}, fmt.Errorf("%w: nil Digest", ErrEmpty)
	case d.Bloom != nil && d.Counting != nil, d.Scalable != nil && (d.Bloom != nil || d.Counting != nil):
		return payload{}, fmt.Errorf("%w: more than one structure set", ErrEmpty)
	case d.Scalable != nil:
		return payload{}, fmt.Errorf("%w: a scalable filter has no single payload (its layers have one each)", ErrCodec)
	case d.Bloom != nil:
		f := d.Bloom
		if f.Scheme() == nil {
			return payload{}, fmt.Errorf("%w: zero bloom.Filter", ErrEmpty)
		}
		return payload{header: f.FrameHeader(), words: f.Words(), bits: f.M()}, nil
	case d.Counting != nil:
		f := d.Counting
		if f.Counters() == nil {
			return payload{}, fmt.Errorf("%w: zero counting.Filter", ErrEmpty)
		}
		w := uint(f.Width())
		return payload{header: f.FrameHeader(), words: f.Counters(), bits: f.M() * uint64(w), width: w}, nil
	}
	return payload{}, ErrEmpty
}

// counters is the number of counters of a counting payload.
func (p payload) counters() uint64 { return p.bits / uint64(p.width) }

// Append appends d's frame with its payload coded by c ([Auto]: the
// smallest) and d.Sequence in the header.
func Append(dst []byte, d *Digest, c Codec) ([]byte, error) {
	if d != nil && d.Scalable != nil && d.Bloom == nil && d.Counting == nil {
		return appendScalable(dst, d, c)
	}
	p, err := d.payload()
	if err != nil {
		return dst, err
	}
	h := p.header
	h.Sequence = d.Sequence
	codec, body, err := p.encode(c)
	if err != nil {
		return dst, err
	}
	if codec == envelope.CodecRaw {
		return envelope.AppendWords(dst, h, p.words)
	}
	h.Codec = codec
	return appendFrame(dst, &h, body)
}

// Encode returns d's frame with its payload coded by c.
func Encode(d *Digest, c Codec) ([]byte, error) { return Append(nil, d, c) }

// Write writes d's frame with its payload coded by c to w and returns the
// number of bytes written.
func Write(w io.Writer, d *Digest, c Codec) (int64, error) {
	b, err := Append(nil, d, c)
	if err != nil {
		return 0, err
	}
	n, err := w.Write(b)
	return int64(n), err
}

// appendFrame appends a whole frame with the given payload.
func appendFrame(dst []byte, h *envelope.Header, body []byte) ([]byte, error) {
	start := len(dst)
	dst, err := envelope.AppendHeader(dst, h, uint64(len(body)))
	if err != nil {
		return dst, err
	}
	dst = append(dst, body...)
	return envelope.AppendTrailer(dst, start), nil
}

// encode codes the payload with c and returns the codec used and, for a
// coded payload, its bytes (nil for raw: the caller writes the words).
func (p payload) encode(c Codec) (envelope.Codec, []byte, error) {
	switch c {
	case Raw:
		return envelope.CodecRaw, nil, nil
	case Arith:
		if p.width != 0 {
			return 0, nil, fmt.Errorf("%w: the arithmetic coder codes bit arrays, not counters", ErrCodec)
		}
		b, err := entropy.EncodeBits(nil, p.words, p.bits, entropy.Arith)
		return envelope.CodecArith, b, err
	case Fast:
		if p.width == 16 {
			return envelope.CodecRaw, nil, nil // no coder for 16-bit counters
		}
		var b []byte
		var err error
		if p.width == 0 {
			b, err = entropy.EncodeBits(nil, p.words, p.bits, entropy.Fast)
		} else {
			b, err = entropy.EncodeCounters(nil, p.words, p.counters(), p.width)
		}
		return envelope.CodecFast, b, err
	case Auto:
		return p.smallest()
	}
	return 0, nil, fmt.Errorf("%w: %v", ErrCodec, c)
}

// smallest codes with every codec that applies and keeps the smallest,
// raw on a tie.
func (p payload) smallest() (envelope.Codec, []byte, error) {
	best, bestBody := envelope.CodecRaw, []byte(nil)
	bestSize := 8 * len(p.words)
	for _, c := range []Codec{Fast, Arith} {
		if c == Arith && p.width != 0 {
			continue
		}
		codec, body, err := p.encode(c)
		if err != nil {
			return 0, nil, err
		}
		if codec != envelope.CodecRaw && len(body) < bestSize {
			best, bestBody, bestSize = codec, body, len(body)
		}
	}
	return best, bestBody, nil
}

// Decode decodes a full digest (not a delta) from data, which must hold
// exactly one frame. The payload may be coded with any codec; lim bounds
// both the frame's payload and the array it decodes to.
func Decode(data []byte, lim envelope.Limits) (*Digest, error) {
	return envelope.DecodeFrame(data, lim, "digest", fromFrame(lim))
}

// Read reads one full digest from r and returns it with the number of
// bytes consumed. Limits as for Decode.
func Read(r io.Reader, lim envelope.Limits) (*Digest, int64, error) {
	return envelope.ReadFrame(r, lim, "digest", fromFrame(lim))
}

// fromFrame returns the builder of a digest from a parsed frame.
func fromFrame(lim envelope.Limits) func(envelope.Header, []byte) (*Digest, error) {
	return func(h envelope.Header, body []byte) (*Digest, error) { return FromFrame(h, body, lim) }
}

// FromFrame builds a digest from a parsed frame: a Bloom or counting
// filter with any codec, or a scalable filter whose layers have any
// codecs. lim bounds the size of the decoded array (of a scalable
// filter, of all its layers' arrays together).
func FromFrame(h envelope.Header, body []byte, lim envelope.Limits) (*Digest, error) {
	d := &Digest{Sequence: h.Sequence, Codec: h.Codec}
	switch h.Type {
	case envelope.TypeBloom:
		m, err := bloom.PayloadBits(h)
		if err != nil {
			return nil, err
		}
		var words []uint64
		if h.Codec == envelope.CodecPieces {
			words, err = decodePiecesLimited(body, m, lim)
		} else {
			words, err = decodeWords(h.Codec, body, payload{bits: m}, lim)
		}
		if err != nil {
			return nil, err
		}
		d.Bloom, err = bloom.FromWords(h, words)
		return d, err
	case envelope.TypeCounting:
		n, width, err := counting.PayloadCounters(h)
		if err != nil {
			return nil, err
		}
		words, err := decodeWords(h.Codec, body, payload{bits: n * uint64(width), width: width}, lim)
		if err != nil {
			return nil, err
		}
		d.Counting, err = counting.FromWords(h, words)
		return d, err
	case envelope.TypeScalable:
		return scalableFromFrame(h, body, lim)
	case envelope.TypeDelta:
		return nil, fmt.Errorf("%w: a delta digest; apply it to its base with Patch", ErrDelta)
	}
	return nil, fmt.Errorf("%w: a frame of type %v, not a Bloom, counting or scalable filter", ErrCorrupt, h.Type)
}

// decodeWords decodes a payload of p.bits bits (p.width-bit counters when
// p.width is not 0) coded with codec, after checking the decoded size
// against lim.
func decodeWords(codec envelope.Codec, body []byte, p payload, lim envelope.Limits) ([]uint64, error) {
	nw := p.bits/64 + min(p.bits%64, 1)
	if nw > math.MaxInt/8 || 8*nw > lim.Payload() {
		return nil, fmt.Errorf("%w: %d bits (limit %d bytes)", ErrTooLarge, p.bits, lim.Payload())
	}
	if codec == envelope.CodecRaw {
		if uint64(len(body)) != 8*nw {
			return nil, fmt.Errorf("%w: raw payload of %d bytes, %d bits need %d", ErrCorrupt, len(body), p.bits, 8*nw)
		}
		words := make([]uint64, nw)
		for i := range words {
			words[i] = binary.LittleEndian.Uint64(body[8*i:])
		}
		return words, nil
	}
	var r *entropy.BitReader
	var err error
	switch {
	case codec == envelope.CodecArith && p.width == 0:
		r, err = entropy.NewBitReader(body, p.bits, entropy.Arith)
	case codec == envelope.CodecFast && p.width == 0:
		r, err = entropy.NewBitReader(body, p.bits, entropy.Fast)
	case codec == envelope.CodecFast && p.width != 16:
		r, err = entropy.NewCounterReader(body, p.counters(), p.width)
	default:
		return nil, fmt.Errorf("%w: codec %v for this structure", ErrCodec, codec)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	words, err := appendWords(make([]uint64, 0, min(nw, readn.Chunk/8)), r, nw)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return words, nil
}

// appendWords appends the nw words of r to words, which grow, doubling,
// with the words decoded: a frame that claims a large array before a
// stream that breaks early costs about what the stream decoded, not the
// claim (a few bytes can claim up to the limit).
func appendWords(words []uint64, r *entropy.BitReader, nw uint64) ([]uint64, error) {
	const run = readn.Chunk / 8
	end := uint64(len(words)) + nw
	for n := uint64(len(words)); n < end; {
		step := min(end-n, run)
		if uint64(cap(words)) < n+step {
			grown := make([]uint64, n, min(max(2*uint64(cap(words)), n+step), end))
			copy(grown, words)
			words = grown
		}
		words = words[:n+step]
		if err := r.Read(words[n:]); err != nil {
			return nil, err
		}
		n += step
	}
	return words, nil
}
