package squid

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/bloomcast/bloomcast/internal/readn"
)

// Limits bounds what a decoder accepts.
// The zero value is the defaults: masks up to DefaultMaxMask, full digests
// refused.
type Limits struct {
	// MaxMask is the largest mask_size accepted, in bytes; 0 means
	// DefaultMaxMask. It is checked before anything is allocated.
	MaxMask uint32
	// AllowFull accepts digests with more than MaxUsefulFill of their
	// bits set, which Squid refuses as useless.
	AllowFull bool
}

func (l Limits) maxMask() uint32 {
	if l.MaxMask == 0 {
		return DefaultMaxMask
	}
	return l.MaxMask
}

// ParseHeader decodes and validates the 128-byte header as Squid does
// (peer_digest.cc): the version window, positive sizes, mask_size equal to
// CalcMaskSize(capacity, bits_per_entry), exactly four hash functions,
// and the limit.
func ParseHeader(b []byte, lim Limits) (Header, error) {
	if len(b) < HeaderSize {
		return Header{}, fmt.Errorf("%w: %d bytes, the header alone is %d", ErrFormat, len(b), HeaderSize)
	}
	h := Header{
		Version:         binary.BigEndian.Uint16(b[0:]),
		RequiredVersion: binary.BigEndian.Uint16(b[2:]),
		Capacity:        binary.BigEndian.Uint32(b[4:]),
		Count:           binary.BigEndian.Uint32(b[8:]),
		DelCount:        binary.BigEndian.Uint32(b[12:]),
		MaskSize:        binary.BigEndian.Uint32(b[16:]),
		BitsPerEntry:    b[20],
		HashFuncCount:   b[21],
	}
	return h, h.validate(lim)
}

func (h Header) validate(lim Limits) error {
	switch {
	case h.RequiredVersion > CurrentVersion:
		return fmt.Errorf("%w: the digest requires version %d, this reader has %d", ErrVersion, h.RequiredVersion, CurrentVersion)
	case h.Version < RequiredVersion:
		return fmt.Errorf("%w: version %d is older than the required %d", ErrVersion, h.Version, RequiredVersion)
	case h.RequiredVersion > h.Version:
		return fmt.Errorf("%w: required version %d above current %d", ErrFormat, h.RequiredVersion, h.Version)
	case int32(h.MaskSize) <= 0 || int32(h.Capacity) <= 0 || h.BitsPerEntry == 0:
		return fmt.Errorf("%w: capacity %d, mask %d bytes, %d bits per entry (all must be positive)", ErrFormat, int32(h.Capacity), int32(h.MaskSize), h.BitsPerEntry)
	case h.MaskSize != MaskSize(h.Capacity, h.BitsPerEntry):
		return fmt.Errorf("%w: mask of %d bytes, capacity %d at %d bits per entry needs %d", ErrFormat, h.MaskSize, h.Capacity, h.BitsPerEntry, MaskSize(h.Capacity, h.BitsPerEntry))
	case h.HashFuncCount != HashFuncCount:
		return fmt.Errorf("%w: %d hash functions, Squid digests use %d", ErrFormat, h.HashFuncCount, HashFuncCount)
	case h.MaskSize > lim.maxMask():
		return fmt.Errorf("%w: mask of %d bytes (limit %d)", ErrTooBig, h.MaskSize, lim.maxMask())
	}
	return nil
}

// Decode decodes a digest body, which must be exactly 128 + mask_size
// bytes.
func Decode(b []byte, lim Limits) (*Digest, error) {
	h, err := ParseHeader(b, lim)
	if err != nil {
		return nil, err
	}
	if want := HeaderSize + int(h.MaskSize); len(b) != want {
		return nil, fmt.Errorf("%w: body of %d bytes, header says %d", ErrFormat, len(b), want)
	}
	return fromParts(h, b[HeaderSize:], lim)
}

// Read reads one digest body from r: the header, then exactly mask_size
// bytes. It validates the header first, and allocates the mask as its
// bytes arrive, so that a header claiming a large mask before a short
// stream costs what the stream holds.
func Read(r io.Reader, lim Limits) (*Digest, error) {
	head := make([]byte, HeaderSize)
	if _, err := io.ReadFull(r, head); err != nil {
		return nil, fmt.Errorf("%w: reading the header: %w", ErrFormat, err)
	}
	h, err := ParseHeader(head, lim)
	if err != nil {
		return nil, err
	}
	mask, err := readn.Append(nil, r, uint64(h.MaskSize))
	if err != nil {
		return nil, fmt.Errorf("%w: mask ends early: %w", ErrFormat, err)
	}
	return fromParts(h, mask, lim)
}

func fromParts(h Header, mask []byte, lim Limits) (*Digest, error) {
	f, err := newMaskFilter(h.MaskSize, mask)
	if err != nil {
		return nil, err
	}
	if fill := f.FillRatio(); fill > MaxUsefulFill && !lim.AllowFull {
		return nil, fmt.Errorf("%w: %.1f%% of bits set (Squid refuses more than %.0f%%)", ErrUseless, 100*fill, 100*MaxUsefulFill)
	}
	return &Digest{Header: h, Filter: f}, nil
}

// Sniff reports whether b looks like a Squid digest header (versions in a
// plausible range and four hash functions), for tools that accept several
// formats.
func Sniff(b []byte) bool {
	if len(b) < HeaderSize {
		return false
	}
	v, req := binary.BigEndian.Uint16(b[0:]), binary.BigEndian.Uint16(b[2:])
	return v >= 1 && v <= 64 && req >= 1 && req <= v && b[21] == HashFuncCount
}
