package counting

import (
	"encoding/binary"
	"fmt"
	"github.com/bloomcast/bloomcast/internal/hugepage"
	"io"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/params"
)

// paramsSize is the size of the counting parameter block (docs/FORMAT.md,
// "Counting filter (type 2)"): layout u8, width u8, k u16, block bits
// u32, m u64, count u64, flags u8, 7 reserved bytes.
const paramsSize = 32

// flagMinimalIncrease marks a filter built with minimal increase.
const flagMinimalIncrease = 1

// FrameHeader returns the header of the filter's frame with the raw codec:
// what [Filter.AppendBinary] writes before the counters. Package digest
// changes the codec and sequence and codes the counters itself.
func (f *Filter) FrameHeader() envelope.Header {
	var scheme uint8 // a zero Filter's: its M = 0 makes the frame invalid anyway
	if s := f.Scheme(); s != nil {
		scheme = uint8(s.ID())
	}
	p := make([]byte, paramsSize)
	p[0] = byte(f.Layout())
	p[1] = byte(f.width)
	binary.LittleEndian.PutUint16(p[2:], uint16(f.K()))
	binary.LittleEndian.PutUint32(p[4:], uint32(f.geo.BlockBits()))
	binary.LittleEndian.PutUint64(p[8:], f.m)
	binary.LittleEndian.PutUint64(p[16:], f.count)
	if f.minInc {
		p[24] = flagMinimalIncrease
	}
	return envelope.Header{
		Type:   envelope.TypeCounting,
		Codec:  envelope.CodecRaw,
		Scheme: scheme,
		Seed:   f.Seed(),
		Params: p,
	}
}

// payloadSize is the raw payload's length: the counter words.
func (f *Filter) payloadSize() int { return 8 * len(f.counters) }

// EncodedSize returns the length of the raw encoding.
func (f *Filter) EncodedSize() int {
	return envelope.HeaderSize + paramsSize + f.payloadSize() + envelope.TrailerSize
}

// AppendBinary appends the filter's encoding (the bloomcast frame, type 2,
// raw codec; docs/FORMAT.md) to b. The bit view is not sent: it follows
// from the counters. A filter without a bit view (Config.NoBitView)
// encodes exactly as one with a view: the format does not record it.
func (f *Filter) AppendBinary(b []byte) ([]byte, error) {
	if f.counters == nil {
		return b, ErrZero
	}
	return envelope.AppendWords(b, f.FrameHeader(), f.counters)
}

// MarshalBinary returns the filter's encoding.
func (f *Filter) MarshalBinary() ([]byte, error) {
	return f.AppendBinary(make([]byte, 0, f.EncodedSize()))
}

// WriteTo writes the filter's encoding to w, streaming the counters.
func (f *Filter) WriteTo(w io.Writer) (int64, error) {
	if f.counters == nil {
		return 0, ErrZero
	}
	return envelope.WriteWords(w, f.FrameHeader(), f.counters)
}

// UnmarshalBinary replaces f with the filter encoded in data, with the
// default envelope.Limits. Like every decoder here it gives a filter with
// a bit view, whether or not f had one.
func (f *Filter) UnmarshalBinary(data []byte) error {
	g, err := Decode(data, envelope.Limits{})
	if err != nil {
		return err
	}
	*f = *g
	return nil
}

// ReadFrom replaces f with one encoded filter read from r, with the default
// envelope.Limits. It reads exactly the frame's bytes.
func (f *Filter) ReadFrom(r io.Reader) (int64, error) {
	g, n, err := Read(r, envelope.Limits{})
	if err != nil {
		return n, err
	}
	*f = *g
	return n, nil
}

// Decode decodes a counting filter from data, which must hold exactly one
// frame. Input is treated as hostile: sizes are checked against the bytes
// present and lim before anything is allocated, and nothing panics. The
// filter has a bit view: Config.NoBitView is a memory choice of the
// process that builds a filter, not part of the format.
func Decode(data []byte, lim envelope.Limits) (*Filter, error) {
	return envelope.DecodeFrame(data, lim, "counting", FromFrame)
}

// Read reads one encoded counting filter from r and returns it with the
// number of bytes consumed.
func Read(r io.Reader, lim envelope.Limits) (*Filter, int64, error) {
	return envelope.ReadFrame(r, lim, "counting", FromFrame)
}

// header is a validated counting parameter block.
type header struct {
	shape  params.Shape
	width  uint
	minInc bool
	count  uint64
}

// FromFrame builds a counting filter from a parsed frame with the raw
// codec. It validates every field and the payload's length before
// allocating, rebuilds the bit view from the counters, and starts with
// change tracking off. Frames with other codecs are decoded by package
// digest.
func FromFrame(h envelope.Header, payload []byte) (*Filter, error) {
	if h.Codec != envelope.CodecRaw {
		return nil, fmt.Errorf("%w: codec %s: decode compressed frames with package digest", ErrCorrupt, h.Codec)
	}
	n, width, err := PayloadCounters(h)
	if err != nil {
		return nil, err
	}
	words := (n*uint64(width) + 63) / 64
	if uint64(len(payload)) != 8*words {
		return nil, fmt.Errorf("%w: payload of %d bytes, %d %d-bit counters need %d",
			ErrCorrupt, len(payload), n, width, 8*words)
	}
	counters := hugepage.Words(words)
	for i := range counters {
		counters[i] = binary.LittleEndian.Uint64(payload[8*i:])
	}
	return FromWords(h, counters)
}

// PayloadCounters validates the header of a counting frame (type,
// parameters, hashing scheme; not the codec) and returns the number of
// counters and their width in bits, so that a decoder can check the payload
// against its limits before allocating. The counters fill
// ⌈n·width/64⌉ words.
func PayloadCounters(h envelope.Header) (n uint64, width uint, err error) {
	if h.Type != envelope.TypeCounting {
		return 0, 0, fmt.Errorf("%w: frame carries %s, not a counting filter", ErrCorrupt, h.Type)
	}
	p, err := parseParams(h.Params)
	if err != nil {
		return 0, 0, err
	}
	if _, err := hashing.Lookup(hashing.SchemeID(h.Scheme)); err != nil {
		return 0, 0, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return p.shape.M, p.width, nil
}

// FromWords builds a counting filter from a counting frame's header and its
// decoded counter words, which the filter adopts: exactly ⌈n·width/64⌉
// words, nothing set past the last counter. The bit view is rebuilt from
// the counters; change tracking starts off. The codec byte is not looked
// at.
func FromWords(h envelope.Header, counters []uint64) (*Filter, error) {
	if _, _, err := PayloadCounters(h); err != nil {
		return nil, err
	}
	p, _ := parseParams(h.Params)
	scheme, _ := hashing.Lookup(hashing.SchemeID(h.Scheme))
	bits := p.shape.M * uint64(p.width)
	if want := (bits + 63) / 64; uint64(len(counters)) != want {
		return nil, fmt.Errorf("%w: %d words, %d %d-bit counters need %d", ErrCorrupt, len(counters), p.shape.M, p.width, want)
	}
	if tail := bits % 64; tail != 0 && counters[len(counters)-1]>>tail != 0 {
		return nil, fmt.Errorf("%w: counters set past counter %d", ErrCorrupt, p.shape.M)
	}
	f, err := newFilterOver(p.shape, p.width, p.minInc, true, h.Seed, scheme, counters)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	f.count = p.count
	f.rebuildBits()
	return f, nil
}

func parseParams(b []byte) (header, error) {
	var p header
	if len(b) != paramsSize {
		return p, fmt.Errorf("%w: %d bytes of parameters, want %d", ErrCorrupt, len(b), paramsSize)
	}
	for i, c := range b[25:] {
		if c != 0 {
			return p, fmt.Errorf("%w: reserved byte %d is %#x", ErrCorrupt, 25+i, c)
		}
	}
	if b[24]&^flagMinimalIncrease != 0 {
		return p, fmt.Errorf("%w: unknown flags %#x", ErrCorrupt, b[24])
	}
	p.width, p.minInc = uint(b[1]), b[24]&flagMinimalIncrease != 0
	if p.width != 4 && p.width != 8 && p.width != 16 {
		return p, fmt.Errorf("%w: counter width %d", ErrCorrupt, p.width)
	}
	p.shape = params.Shape{
		Layout:    bloom.Layout(b[0]),
		K:         int(binary.LittleEndian.Uint16(b[2:])),
		BlockBits: uint64(binary.LittleEndian.Uint32(b[4:])),
		M:         binary.LittleEndian.Uint64(b[8:]),
	}
	if err := p.shape.Validate(); err != nil {
		return p, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if p.shape.M > bloom.MaxBits {
		return p, fmt.Errorf("%w: %d counters exceeds the maximum of %d", ErrCorrupt, p.shape.M, uint64(bloom.MaxBits))
	}
	p.count = binary.LittleEndian.Uint64(b[16:])
	return p, nil
}
