package bloomier

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/hashing"
)

// paramsSize is the size of the bloomier parameter block (docs/FORMAT.md,
// "Bloomier filter (type 4)"): mode u8, r u8, c u8, reserved u8, segment
// length u32, windows u32, reserved u32, n u64, salt u64.
const paramsSize = 32

// Modes.
const (
	modeStatic    = 1
	modeUpdatable = 2
)

func (f *Filter) frameHeader() envelope.Header {
	p := make([]byte, paramsSize)
	p[0] = modeStatic
	if f.updatable {
		p[0] = modeUpdatable
	}
	p[1], p[2] = byte(f.r), byte(f.c)
	binary.LittleEndian.PutUint32(p[4:], uint32(f.segLen))
	binary.LittleEndian.PutUint32(p[8:], uint32(f.segCount))
	binary.LittleEndian.PutUint64(p[16:], f.n)
	binary.LittleEndian.PutUint64(p[24:], f.salt)
	return envelope.Header{
		Type:   envelope.TypeBloomier,
		Codec:  envelope.CodecRaw,
		Scheme: uint8(hashing.XXH3),
		Seed:   f.seed,
		Params: p,
	}
}

// payloadSize is the raw payload's length: the cell words, then (if
// updatable) the value words.
func (f *Filter) payloadSize() int { return 8 * (len(f.cells.Words()) + len(f.vals.Words())) }

// EncodedSize returns the length of the encoding.
func (f *Filter) EncodedSize() int {
	return envelope.HeaderSize + paramsSize + f.payloadSize() + envelope.TrailerSize
}

// AppendBinary appends the filter's encoding (the bloomcast frame, type 4,
// raw codec; docs/FORMAT.md) to b.
func (f *Filter) AppendBinary(b []byte) ([]byte, error) {
	if f.segLen == 0 {
		return b, errZero
	}
	return envelope.AppendWords(b, f.frameHeader(), f.cells.Words(), f.vals.Words())
}

// errZero is what the encoders of a zero Filter return.
var errZero = fmt.Errorf("%w: zero Filter (no cells); use Build or a decoder", ErrConfig)

// MarshalBinary returns the filter's encoding.
func (f *Filter) MarshalBinary() ([]byte, error) {
	return f.AppendBinary(make([]byte, 0, f.EncodedSize()))
}

// WriteTo writes the filter's encoding to w, streaming the tables.
func (f *Filter) WriteTo(w io.Writer) (int64, error) {
	if f.segLen == 0 {
		return 0, errZero
	}
	return envelope.WriteWords(w, f.frameHeader(), f.cells.Words(), f.vals.Words())
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

// ReadFrom replaces f with one encoded filter read from r, with the default
// envelope.Limits. It reads exactly the frame's bytes.
func (f *Filter) ReadFrom(r io.Reader) (int64, error) {
	g, n, err := Read(r, envelope.Limits{})
	if err == nil {
		*f = *g
	}
	return n, err
}

// Decode decodes a filter from data, which must hold exactly one frame.
// Input is treated as hostile: sizes are checked against the bytes present
// and lim before anything is allocated.
func Decode(data []byte, lim envelope.Limits) (*Filter, error) {
	return envelope.DecodeFrame(data, lim, "bloomier", FromFrame)
}

// Read reads one encoded filter from r and returns it with the number of
// bytes consumed.
func Read(r io.Reader, lim envelope.Limits) (*Filter, int64, error) {
	return envelope.ReadFrame(r, lim, "bloomier", FromFrame)
}

// FromFrame builds a filter from a parsed frame. It validates every field
// and the payload's length before allocating the tables.
func FromFrame(h envelope.Header, payload []byte) (*Filter, error) {
	f, err := parseParams(h)
	if err != nil {
		return nil, err
	}
	cells := f.Cells()
	w1, w2 := uint64(f.r+f.c), uint64(0)
	if f.updatable {
		w1, w2 = uint64(f.c+2), uint64(f.r)
	}
	n1, n2 := packedWords(cells, w1), packedWords(cells, w2)
	if uint64(len(payload)) != 8*(n1+n2) {
		return nil, corruptf("payload of %d bytes, %d cells need %d", len(payload), cells, 8*(n1+n2))
	}
	words := make([]uint64, n1+n2)
	for i := range words {
		words[i] = binary.LittleEndian.Uint64(payload[8*i:])
	}
	f.cells = packedOver(words[:n1:n1], int(w1))
	f.vals = packedOver(words[n1:], int(w2))
	for _, p := range []packed{f.cells, f.vals} {
		if !p.PaddingClear(cells) {
			return nil, corruptf("bits set past the last cell")
		}
	}
	return f, nil
}

func parseParams(h envelope.Header) (*Filter, error) {
	switch {
	case h.Type != envelope.TypeBloomier:
		return nil, corruptf("frame carries %s, not a Bloomier filter", h.Type)
	case h.Codec != envelope.CodecRaw:
		return nil, corruptf("codec %s is not supported by this build", h.Codec)
	case h.Scheme != uint8(hashing.XXH3):
		return nil, corruptf("hashing scheme %d; Bloomier filters use XXH3 (%d)", h.Scheme, hashing.XXH3)
	case len(h.Params) != paramsSize:
		return nil, corruptf("%d bytes of parameters, want %d", len(h.Params), paramsSize)
	}
	p := h.Params
	f := &Filter{
		r: int(p[1]), c: int(p[2]), updatable: p[0] == modeUpdatable, seed: h.Seed,
		segLen:   uint64(binary.LittleEndian.Uint32(p[4:])),
		segCount: uint64(binary.LittleEndian.Uint32(p[8:])),
		n:        binary.LittleEndian.Uint64(p[16:]),
		salt:     binary.LittleEndian.Uint64(p[24:]),
	}
	c := Config{ValueBits: f.r, CheckBits: f.c, Updatable: f.updatable}
	switch err := c.validate(); {
	case p[0] != modeStatic && p[0] != modeUpdatable:
		return nil, corruptf("unknown mode %d", p[0])
	case err != nil:
		return nil, corruptf("%v", err)
	case p[3] != 0 || binary.LittleEndian.Uint32(p[12:]) != 0:
		return nil, corruptf("reserved bytes are not zero")
	case f.segLen == 0 || f.segCount == 0 || f.Cells() > MaxCells:
		return nil, corruptf("%d windows of segments of %d cells", f.segCount, f.segLen)
	case f.n > f.Cells() || f.n > MaxKeys:
		return nil, corruptf("%d keys in %d cells", f.n, f.Cells())
	}
	return f, nil
}

func corruptf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}
