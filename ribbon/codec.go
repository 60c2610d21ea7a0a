package ribbon

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/hashing"
)

// paramsSize is the size of the ribbon parameter block (docs/FORMAT.md,
// "Ribbon filter (type 12)"): w u8, r u8, reserved u16 and u32, blocks
// u64, hi blocks u64, n u64, salt u64.
const paramsSize = 40

func (f *Filter) frameHeader() envelope.Header {
	p := make([]byte, paramsSize)
	p[0], p[1] = Width, byte(f.shape.Bits)
	binary.LittleEndian.PutUint64(p[8:], f.shape.Blocks)
	binary.LittleEndian.PutUint64(p[16:], f.shape.HiBlocks)
	binary.LittleEndian.PutUint64(p[24:], f.shape.Keys)
	binary.LittleEndian.PutUint64(p[32:], f.salt)
	return envelope.Header{
		Type:   envelope.TypeRibbon,
		Codec:  envelope.CodecRaw,
		Scheme: uint8(hashing.XXH3),
		Seed:   f.seed,
		Params: p,
	}
}

// EncodedSize returns the length of the encoding.
func (f *Filter) EncodedSize() int {
	return envelope.HeaderSize + paramsSize + 8*(len(f.main)+len(f.hi)) + envelope.TrailerSize
}

// errZero is what the encoders of a zero Filter return.
var errZero = fmt.Errorf("%w: zero Filter; use Build or a decoder", ErrConfig)

// AppendBinary appends the filter's encoding (the bloomcast frame, type
// 12, raw codec; docs/FORMAT.md) to b.
func (f *Filter) AppendBinary(b []byte) ([]byte, error) {
	if f.zero() {
		return b, errZero
	}
	return envelope.AppendWords(b, f.frameHeader(), f.main, f.hi)
}

// zero reports whether f is the zero Filter, which has no encoding (the
// empty filter that Build returns for no keys has one).
func (f *Filter) zero() bool { return !f.built }

// MarshalBinary returns the filter's encoding.
func (f *Filter) MarshalBinary() ([]byte, error) {
	return f.AppendBinary(make([]byte, 0, f.EncodedSize()))
}

// WriteTo writes the filter's encoding to w, streaming the solution.
func (f *Filter) WriteTo(w io.Writer) (int64, error) {
	if f.zero() {
		return 0, errZero
	}
	return envelope.WriteWords(w, f.frameHeader(), f.main, f.hi)
}

// UnmarshalBinary replaces f with the filter encoded in data, with the
// default envelope.Limits.
func (f *Filter) UnmarshalBinary(data []byte) error {
	g, err := Decode(data, envelope.Limits{})
	if err == nil {
		*f = *g
	}
	return err
}

// ReadFrom replaces f with one encoded filter read from r, with the
// default envelope.Limits. It reads exactly the frame's bytes.
func (f *Filter) ReadFrom(r io.Reader) (int64, error) {
	g, n, err := Read(r, envelope.Limits{})
	if err == nil {
		*f = *g
	}
	return n, err
}

// Decode decodes a filter from data, which must hold exactly one frame.
// Input is treated as hostile: sizes are checked against the bytes
// present and lim before anything is allocated.
func Decode(data []byte, lim envelope.Limits) (*Filter, error) {
	return envelope.DecodeFrame(data, lim, "ribbon", FromFrame)
}

// Read reads one encoded filter from r and returns it with the number of
// bytes consumed.
func Read(r io.Reader, lim envelope.Limits) (*Filter, int64, error) {
	return envelope.ReadFrame(r, lim, "ribbon", FromFrame)
}

// FromFrame builds a filter from a parsed frame. It validates every field
// and the payload's length before allocating the solution.
func FromFrame(h envelope.Header, payload []byte) (*Filter, error) {
	s, salt, err := parseParams(h)
	if err != nil {
		return nil, err
	}
	words := s.Blocks*uint64(s.Bits) + s.HiWords()
	if uint64(len(payload)) != 8*words {
		return nil, corruptf("payload of %d bytes, %s needs %d", len(payload), s, 8*words)
	}
	f := newFilter(s, h.Seed)
	f.salt = salt
	for i := range f.main {
		f.main[i] = binary.LittleEndian.Uint64(payload[8*i:])
	}
	payload = payload[8*len(f.main):]
	for i := range f.hi {
		f.hi[i] = binary.LittleEndian.Uint64(payload[8*i:])
	}
	return f, nil
}

func parseParams(h envelope.Header) (Shape, uint64, error) {
	var s Shape
	switch {
	case h.Type != envelope.TypeRibbon:
		return s, 0, corruptf("frame carries %s, not a ribbon filter", h.Type)
	case h.Codec != envelope.CodecRaw:
		return s, 0, corruptf("codec %s is not supported by this build", h.Codec)
	case h.Scheme != uint8(hashing.XXH3):
		return s, 0, corruptf("hashing scheme %d; ribbon filters use XXH3 (%d)", h.Scheme, hashing.XXH3)
	case len(h.Params) != paramsSize:
		return s, 0, corruptf("%d bytes of parameters, want %d", len(h.Params), paramsSize)
	}
	p := h.Params
	s = Shape{
		Bits:     int(p[1]),
		Blocks:   binary.LittleEndian.Uint64(p[8:]),
		HiBlocks: binary.LittleEndian.Uint64(p[16:]),
		Keys:     binary.LittleEndian.Uint64(p[24:]),
	}
	switch err := s.Validate(); {
	case p[0] != Width:
		return s, 0, corruptf("rows of %d bits; this build reads ribbons of %d", p[0], Width)
	case p[2] != 0 || p[3] != 0 || binary.LittleEndian.Uint32(p[4:]) != 0:
		return s, 0, corruptf("reserved bytes are not zero")
	case s.Blocks == 0 && s.Bits != 0:
		return s, 0, corruptf("an empty ribbon with %d-bit fingerprints", s.Bits)
	case err != nil:
		return s, 0, corruptf("%v", err)
	}
	return s, binary.LittleEndian.Uint64(p[32:]), nil
}

func corruptf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}
