// Package envelope is the versioned frame around every bloomcast structure
// on disk or on the wire: magic, format version, structure type, codec,
// hashing scheme and seed, a sequence number, the structure's own
// parameters, the payload and a CRC-32C of everything before it.
//
// The frame is little-endian on every platform. docs/FORMAT.md gives the
// bytes. Decoders treat input as hostile: every length is checked against
// the bytes present and against [Limits] before anything is allocated, and
// every failure is an error that names the problem, never a panic.
package envelope

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// Magic opens every bloomcast frame.
const Magic = "BLMC"

// Version is the newest format version. Decoders accept every version
// from 1 to Version. Version 2 differs from 1 only inside the Bloom
// filter's parameters (type 1: a flags byte where version 1 has a reserved
// zero). A writer writes the oldest version that holds what it writes
// (Header.Version; zero means 1), so readers that know only version 1
// keep reading every frame that needs nothing newer.
const Version = 2

// HeaderSize is the size of the fixed part of the frame, before the
// structure parameters.
const HeaderSize = 36

// TrailerSize is the size of the CRC-32C that closes a frame.
const TrailerSize = 4

// MaxParams bounds the structure-parameter block.
const MaxParams = 1024

// Type names the structure a frame carries. Values are part of the format
// and never reused.
// The zero value names no structure: every decoder refuses a frame of type
// 0.
type Type uint8

// Structure types.
const (
	TypeBloom     Type = 1  // a bloom.Filter, any layout
	TypeCounting  Type = 2  // a counting.Filter: packed counters, any layout
	TypeFPSet     Type = 3  // an fpset set of fingerprints: sorted or Rice-coded
	TypeBloomier  Type = 4  // a bloomier.Filter: a static function with false positives
	TypeDelta     Type = 5  // a digest delta: the XOR of two versions of a structure
	TypeMHT       Type = 6  // an mht.Table: a multilevel hash table's buckets
	TypeMHTInterp Type = 7  // an mht interpolation-search summary
	TypeMHTFilter Type = 8  // an mht single-filter summary (plain or counting) or Song et al. counters
	TypeMHTMBF    Type = 9  // an mht multiple-Bloom-filter summary (plain or counting)
	TypeDeletion  Type = 10 // a counting.DeletionFilter: two Bloom filters, added and removed
	TypeScalable  Type = 11 // a scalable.Filter: its configuration, then each layer's Bloom filter frame
	TypeRibbon    Type = 12 // a ribbon.Filter: a static filter, the solution of a banded linear system
	TypeStatic    Type = 13 // a static digest: a ribbon full digest, or the Bloom filters of keys added and removed since one
)

func (t Type) String() string {
	switch t {
	case TypeBloom:
		return "bloom"
	case TypeCounting:
		return "counting"
	case TypeFPSet:
		return "fpset"
	case TypeBloomier:
		return "bloomier"
	case TypeDelta:
		return "delta"
	case TypeMHT:
		return "mht"
	case TypeMHTInterp:
		return "mht-interp"
	case TypeMHTFilter:
		return "mht-filter"
	case TypeMHTMBF:
		return "mht-mbf"
	case TypeDeletion:
		return "deletion"
	case TypeScalable:
		return "scalable"
	case TypeRibbon:
		return "ribbon"
	case TypeStatic:
		return "static"
	}
	return fmt.Sprintf("type(%d)", uint8(t))
}

// Codec names how a payload is coded. Values are part of the format.
// The zero value is CodecRaw.
type Codec uint8

// Codecs.
const (
	CodecRaw    Codec = 0 // the structure's words, little-endian, uncompressed
	CodecArith  Codec = 1 // an entropy.Arith stream of the structure's bits
	CodecFast   Codec = 2 // an entropy stream from the fast coders (RANS, Const, Raw; Order0 for counters)
	CodecPieces Codec = 3 // a bit array in pieces, each coded on its own, behind an index (Bloom filters)
	CodecGaps   Codec = 4 // a sparse bit array as the gaps between its ones, an entropy.Gaps stream (deltas)
)

func (c Codec) String() string {
	switch c {
	case CodecRaw:
		return "raw"
	case CodecArith:
		return "arith"
	case CodecFast:
		return "fast"
	case CodecPieces:
		return "pieces"
	case CodecGaps:
		return "gaps"
	}
	return fmt.Sprintf("codec(%d)", uint8(c))
}

// Errors. Decoders wrap them with details; test with errors.Is.
var (
	ErrMagic     = errors.New("envelope: not a bloomcast frame (bad magic)")
	ErrVersion   = errors.New("envelope: unsupported format version")
	ErrTruncated = errors.New("envelope: truncated input")
	ErrTooLarge  = errors.New("envelope: size exceeds limit")
	ErrChecksum  = errors.New("envelope: checksum mismatch")
	ErrTrailing  = errors.New("envelope: trailing bytes after frame")
	ErrInvalid   = errors.New("envelope: invalid field")
)

// Header is the fixed part of a frame plus the structure parameters. The
// zero Header is a valid value (type 0, no parameters) that the decoders
// of bloom, counting and digest refuse.
type Header struct {
	Version  uint16 // set by the decoder; the encoder writes it, 1 when zero
	Type     Type
	Codec    Codec
	Scheme   uint8  // hashing.SchemeID
	Flags    uint8  // reserved, zero
	Seed     uint64 // hashing seed
	Sequence uint64 // publication sequence number (0 when unused)
	Params   []byte // structure-specific parameters, at most MaxParams bytes
}

// DefaultMaxPayload is the payload limit used when Limits.MaxPayload is 0.
const DefaultMaxPayload = 1 << 30

// Limits bounds what a decoder accepts from untrusted input.
// The zero value is the default limits: payloads up to DefaultMaxPayload.
type Limits struct {
	// MaxPayload is the largest payload, in bytes, a decoder accepts;
	// 0 means DefaultMaxPayload.
	MaxPayload uint64
}

// Payload returns the effective payload limit.
func (l Limits) Payload() uint64 {
	if l.MaxPayload == 0 {
		return DefaultMaxPayload
	}
	return l.MaxPayload
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Checksum returns the CRC-32C (Castagnoli) of b, the frame's checksum.
func Checksum(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// UpdateChecksum extends a running CRC-32C with b.
func UpdateChecksum(crc uint32, b []byte) uint32 { return crc32.Update(crc, castagnoli, b) }

// AppendHeader appends the fixed header and parameters of a frame whose
// payload will be payloadLen bytes. The caller appends exactly payloadLen
// bytes of payload and then calls [AppendTrailer] with the offset where the
// frame began.
func AppendHeader(dst []byte, h *Header, payloadLen uint64) ([]byte, error) {
	if h == nil {
		return dst, fmt.Errorf("%w: nil Header", ErrInvalid)
	}
	if len(h.Params) > MaxParams {
		return dst, fmt.Errorf("%w: %d bytes of parameters (max %d)", ErrTooLarge, len(h.Params), MaxParams)
	}
	version := h.Version
	if version == 0 {
		version = 1
	}
	if version > Version {
		return dst, fmt.Errorf("%w: format version %d (newest %d)", ErrInvalid, h.Version, Version)
	}
	dst = append(dst, Magic...)
	dst = binary.LittleEndian.AppendUint16(dst, version)
	dst = append(dst, byte(h.Type), byte(h.Codec), h.Scheme, h.Flags)
	dst = binary.LittleEndian.AppendUint16(dst, uint16(len(h.Params)))
	dst = binary.LittleEndian.AppendUint64(dst, h.Seed)
	dst = binary.LittleEndian.AppendUint64(dst, h.Sequence)
	dst = binary.LittleEndian.AppendUint64(dst, payloadLen)
	return append(dst, h.Params...), nil
}

// AppendTrailer appends the CRC-32C of frame[start:].
func AppendTrailer(frame []byte, start int) []byte {
	return binary.LittleEndian.AppendUint32(frame, Checksum(frame[start:]))
}

// fixed holds the parsed fixed header.
type fixed struct {
	header     Header
	paramsLen  int
	payloadLen uint64
}

func parseFixed(b []byte, lim Limits) (fixed, error) {
	var f fixed
	if len(b) < HeaderSize {
		return f, fmt.Errorf("%w: %d bytes, the header alone is %d", ErrTruncated, len(b), HeaderSize)
	}
	if string(b[:4]) != Magic {
		return f, fmt.Errorf("%w: % x", ErrMagic, b[:4])
	}
	h := &f.header
	h.Version = binary.LittleEndian.Uint16(b[4:])
	if h.Version == 0 || h.Version > Version {
		return f, fmt.Errorf("%w %d (this build reads 1 to %d)", ErrVersion, h.Version, Version)
	}
	h.Type, h.Codec, h.Scheme, h.Flags = Type(b[6]), Codec(b[7]), b[8], b[9]
	if h.Flags != 0 {
		return f, fmt.Errorf("%w: flags %#x, must be zero", ErrInvalid, h.Flags)
	}
	f.paramsLen = int(binary.LittleEndian.Uint16(b[10:]))
	if f.paramsLen > MaxParams {
		return f, fmt.Errorf("%w: %d bytes of parameters (max %d)", ErrTooLarge, f.paramsLen, MaxParams)
	}
	h.Seed = binary.LittleEndian.Uint64(b[12:])
	h.Sequence = binary.LittleEndian.Uint64(b[20:])
	f.payloadLen = binary.LittleEndian.Uint64(b[28:])
	if f.payloadLen > lim.Payload() {
		return f, fmt.Errorf("%w: payload of %d bytes (limit %d)", ErrTooLarge, f.payloadLen, lim.Payload())
	}
	return f, nil
}

// Parse decodes a whole frame held in b. It returns the header and the
// payload, which aliases b. Bytes after the frame are an error; use
// [ParsePrefix] to read one frame from a longer buffer.
func Parse(b []byte, lim Limits) (Header, []byte, error) {
	h, payload, n, err := ParsePrefix(b, lim)
	if err == nil && n != len(b) {
		err = fmt.Errorf("%w: %d bytes", ErrTrailing, len(b)-n)
	}
	return h, payload, err
}

// ParsePrefix decodes the frame at the start of b and returns its header,
// its payload (aliasing b) and the frame's length.
func ParsePrefix(b []byte, lim Limits) (Header, []byte, int, error) {
	f, err := parseFixed(b, lim)
	if err != nil {
		return Header{}, nil, 0, err
	}
	total := uint64(HeaderSize) + uint64(f.paramsLen) + f.payloadLen + TrailerSize
	if uint64(len(b)) < total {
		return Header{}, nil, 0, fmt.Errorf("%w: frame of %d bytes, %d present", ErrTruncated, total, len(b))
	}
	n := int(total)
	if err := verify(b[:n-TrailerSize], b[n-TrailerSize:n]); err != nil {
		return Header{}, nil, 0, err
	}
	h := f.header
	h.Params = b[HeaderSize : HeaderSize+f.paramsLen]
	return h, b[HeaderSize+f.paramsLen : n-TrailerSize], n, nil
}

func verify(body, trailer []byte) error {
	want := binary.LittleEndian.Uint32(trailer)
	if got := Checksum(body); got != want {
		return fmt.Errorf("%w: computed %08x, frame says %08x", ErrChecksum, got, want)
	}
	return nil
}

// Sniff reports whether b starts with the bloomcast magic.
func Sniff(b []byte) bool { return len(b) >= len(Magic) && string(b[:len(Magic)]) == Magic }
