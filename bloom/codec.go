package bloom

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/params"
)

// paramsSize is the size of the bloom parameter block (docs/FORMAT.md):
// layout u8, flags u8 (reserved in format version 1), k u16, block bits
// u32, m u64, count u64.
const paramsSize = 24

// flagEstimated, in the flags byte of format version 2, says that the
// count is an estimate from the bits.
const flagEstimated = 1

// FrameHeader returns the header of the filter's frame with the raw codec:
// what [Filter.AppendBinary] writes before the words. Package digest
// changes the codec and sequence and codes the words itself. A zero
// Filter's header has M = 0 and scheme 0, which no decoder accepts.
func (f *Filter) FrameHeader() envelope.Header {
	var scheme uint8
	if f.scheme != nil {
		scheme = uint8(f.scheme.ID())
	}
	p := make([]byte, paramsSize)
	p[0] = byte(f.layout)
	binary.LittleEndian.PutUint16(p[2:], uint16(f.k))
	binary.LittleEndian.PutUint32(p[4:], uint32(f.blockBits))
	binary.LittleEndian.PutUint64(p[8:], f.m)
	binary.LittleEndian.PutUint64(p[16:], f.count)
	var version uint16 // 0: version 1, what every reader takes
	if f.estimated {
		p[1], version = flagEstimated, 2
	}
	return envelope.Header{
		Version: version,
		Type:    envelope.TypeBloom,
		Codec:   envelope.CodecRaw,
		Scheme:  scheme,
		Seed:    f.seed,
		Params:  p,
	}
}

// EncodedSize returns the length of the raw encoding.
func (f *Filter) EncodedSize() int {
	return envelope.HeaderSize + paramsSize + 8*len(f.words) + envelope.TrailerSize
}

// AppendBinary appends the filter's encoding (the bloomcast frame with the
// raw codec, docs/FORMAT.md) to b.
func (f *Filter) AppendBinary(b []byte) ([]byte, error) {
	if f.scheme == nil {
		return b, ErrZero
	}
	return envelope.AppendWords(b, f.FrameHeader(), f.words)
}

// MarshalBinary returns the filter's encoding.
func (f *Filter) MarshalBinary() ([]byte, error) {
	return f.AppendBinary(make([]byte, 0, f.EncodedSize()))
}

// WriteTo writes the filter's encoding to w, streaming the bit array.
func (f *Filter) WriteTo(w io.Writer) (int64, error) {
	if f.scheme == nil {
		return 0, ErrZero
	}
	return envelope.WriteWords(w, f.FrameHeader(), f.words)
}

// UnmarshalBinary replaces f with the filter encoded in data, with the
// default envelope.Limits.
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

// Decode decodes a filter from data, which must hold exactly one frame.
// Input is treated as hostile: sizes are checked against the bytes present
// and lim before anything is allocated.
func Decode(data []byte, lim envelope.Limits) (*Filter, error) {
	return envelope.DecodeFrame(data, lim, "bloom", FromFrame)
}

// Read reads one encoded filter from r and returns it with the number of
// bytes consumed.
func Read(r io.Reader, lim envelope.Limits) (*Filter, int64, error) {
	return envelope.ReadFrame(r, lim, "bloom", FromFrame)
}

// FromFrame builds a filter from a parsed frame with the raw codec. It
// validates every field and the payload's length before allocating the bit
// array. Frames with other codecs are decoded by package digest.
func FromFrame(h envelope.Header, payload []byte) (*Filter, error) {
	if h.Codec != envelope.CodecRaw {
		return nil, fmt.Errorf("%w: codec %s: decode compressed frames with package digest", ErrCorrupt, h.Codec)
	}
	m, err := PayloadBits(h)
	if err != nil {
		return nil, err
	}
	if want := 8 * ((m + 63) / 64); uint64(len(payload)) != want {
		return nil, fmt.Errorf("%w: payload of %d bytes, %d bits need %d", ErrCorrupt, len(payload), m, want)
	}
	words := newWords(m)
	for i := range words {
		words[i] = binary.LittleEndian.Uint64(payload[8*i:])
	}
	return FromWords(h, words)
}

// PayloadBits validates the header of a bloom frame (type, parameters,
// hashing scheme; not the codec) and returns m, the number of bits its
// payload holds, so that a decoder can check the payload against its
// limits before allocating.
func PayloadBits(h envelope.Header) (uint64, error) {
	shape, err := FrameShape(h)
	return shape.M, err
}

// FrameShape validates the header of a bloom frame as PayloadBits does
// and returns the filter's shape, for a reader of the payload that keeps
// it coded (digest.Pieces).
func FrameShape(h envelope.Header) (params.Shape, error) {
	if h.Type != envelope.TypeBloom {
		return params.Shape{}, fmt.Errorf("%w: frame carries %s, not a bloom filter", ErrCorrupt, h.Type)
	}
	shape, _, _, err := parseParams(h.Params, h.Version)
	if err != nil {
		return params.Shape{}, err
	}
	if _, err := hashing.Lookup(hashing.SchemeID(h.Scheme)); err != nil {
		return params.Shape{}, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return shape, nil
}

// FromWords builds a filter from a bloom frame's header and its decoded bit
// array, which the filter adopts. words must hold exactly ⌈m/64⌉ words with
// no bit set past m. The codec byte is not looked at.
func FromWords(h envelope.Header, words []uint64) (*Filter, error) {
	if _, err := PayloadBits(h); err != nil {
		return nil, err
	}
	shape, count, estimated, _ := parseParams(h.Params, h.Version)
	scheme, _ := hashing.Lookup(hashing.SchemeID(h.Scheme))
	if want := (shape.M + 63) / 64; uint64(len(words)) != want {
		return nil, fmt.Errorf("%w: %d words, %d bits need %d", ErrCorrupt, len(words), shape.M, want)
	}
	if tail := shape.M % 64; tail != 0 && words[len(words)-1]>>tail != 0 {
		return nil, fmt.Errorf("%w: bits set past bit %d", ErrCorrupt, shape.M)
	}
	f := newFilterOver(shape, h.Seed, scheme, words)
	f.count, f.estimated = count, estimated
	return f, nil
}

// parseParams reads the parameter block of a frame of the given format
// version: the shape, the count and whether it is estimated.
func parseParams(p []byte, version uint16) (params.Shape, uint64, bool, error) {
	if len(p) != paramsSize {
		return params.Shape{}, 0, false, fmt.Errorf("%w: %d bytes of parameters, want %d", ErrCorrupt, len(p), paramsSize)
	}
	switch {
	case version < 2 && p[1] != 0:
		return params.Shape{}, 0, false, fmt.Errorf("%w: reserved byte %#x (format version %d has no flags)", ErrCorrupt, p[1], version)
	case p[1]&^flagEstimated != 0:
		return params.Shape{}, 0, false, fmt.Errorf("%w: unknown flags %#x", ErrCorrupt, p[1])
	}
	s := params.Shape{
		Layout:    Layout(p[0]),
		K:         int(binary.LittleEndian.Uint16(p[2:])),
		BlockBits: uint64(binary.LittleEndian.Uint32(p[4:])),
		M:         binary.LittleEndian.Uint64(p[8:]),
	}
	if err := s.Validate(); err != nil {
		return s, 0, false, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if s.M > MaxBits {
		return s, 0, false, fmt.Errorf("%w: %d bits exceeds the maximum of %d", ErrCorrupt, s.M, uint64(MaxBits))
	}
	return s, binary.LittleEndian.Uint64(p[16:]), p[1]&flagEstimated != 0, nil
}
