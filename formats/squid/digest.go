// Package squid reads and writes Squid Cache Digests (version 5), the
// Bloom-filter summaries Squid caches exchange (Fan, Cao, Almeida and
// Broder, "Summary cache", 2000; Rousskov and Wessels, "Cache digests",
// 1998), so a bloomcast node and a Squid can use each other's digests.
//
// A digest body is a 128-byte header, all integers big-endian:
//
//	int16  current version (5)      int16  required version (3)
//	int32  capacity                 int32  count
//	int32  del_count                int32  mask_size (bytes)
//	uint8  bits_per_entry           uint8  hash_func_count (4)
//	2 + 104 reserved zero bytes
//
// followed by exactly mask_size bytes of bit mask, bit b being
// mask[b>>3] & (1 << (b&7)). A key is Squid's store key, MD5(method byte
// ‖ URL) (see StoreKey), and its four bit positions are the key's four
// big-endian 32-bit words modulo mask_size·8 (hashing.SquidMD5). The mask
// is held as a bloom.Filter of the classic layout with that scheme, so it
// can be queried, combined and encoded like any filter.
package squid

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/params"
)

// Format constants.
const (
	HeaderSize      = 128
	CurrentVersion  = 5 // the version this package writes
	RequiredVersion = 3 // the oldest version a reader must support to use ours
	HashFuncCount   = 4
	// MaxUsefulFill is the fraction of set bits above which Squid
	// declares a peer's digest useless (peer_digest.cc: bit utilisation
	// over 65%).
	MaxUsefulFill = 0.65
	// DefaultMaxMask bounds the mask a decoder accepts unless told
	// otherwise: 64 MiB, a digest of ~100 million entries at 5 bits each.
	DefaultMaxMask = 64 << 20
)

// Errors, wrapped with details.
var (
	ErrFormat  = errors.New("squid: invalid cache digest")
	ErrVersion = errors.New("squid: incompatible cache digest version")
	ErrTooBig  = errors.New("squid: cache digest exceeds limit")
	ErrUseless = errors.New("squid: cache digest too full to be useful")
	ErrConfig  = errors.New("squid: invalid digest configuration")
)

// Header is the fixed part of a Cache Digest.
// The zero Header is not a valid digest's: ParseHeader rejects version 0
// with ErrVersion.
type Header struct {
	Version         uint16
	RequiredVersion uint16
	Capacity        uint32
	Count           uint32
	DelCount        uint32
	MaskSize        uint32
	BitsPerEntry    uint8
	HashFuncCount   uint8
}

// Digest is a Squid Cache Digest: its header and its mask as a filter.
// The zero Digest has no mask: ContainsKey and Contains report false, AddKey
// panics, and Add and the encoders return an error wrapping ErrConfig; make
// one with New, Decode or Read.
type Digest struct {
	Header Header
	Filter *bloom.Filter // classic layout, m = MaskSize·8, k = 4, scheme hashing.Squid
}

// MaskSize is Squid's CacheDigest::CalcMaskSize: the bytes of mask for a
// capacity and bits per entry.
func MaskSize(capacity uint32, bitsPerEntry uint8) uint32 {
	return uint32((uint64(capacity)*uint64(bitsPerEntry) + 7) / 8)
}

// New returns an empty digest for capacity entries at bitsPerEntry bits
// each (Squid's default is 5).
func New(capacity uint32, bitsPerEntry uint8) (*Digest, error) {
	if capacity == 0 || bitsPerEntry == 0 {
		return nil, fmt.Errorf("%w: capacity %d, %d bits per entry (both must be positive)", ErrConfig, capacity, bitsPerEntry)
	}
	mask := MaskSize(capacity, bitsPerEntry)
	if mask > 1<<31-1 {
		return nil, fmt.Errorf("%w: mask of %d bytes does not fit Squid's int32", ErrConfig, mask)
	}
	f, err := newMaskFilter(mask, nil)
	if err != nil {
		return nil, err
	}
	h := Header{Version: CurrentVersion, RequiredVersion: RequiredVersion, Capacity: capacity,
		MaskSize: mask, BitsPerEntry: bitsPerEntry, HashFuncCount: HashFuncCount}
	return &Digest{Header: h, Filter: f}, nil
}

// Shape returns the bloom shape of a mask of maskSize bytes.
func Shape(maskSize uint32) params.Shape {
	return params.Shape{Layout: params.Classic, M: uint64(maskSize) * 8, K: HashFuncCount}
}

// newMaskFilter makes the filter for a mask, filled from mask bytes if
// given.
func newMaskFilter(maskSize uint32, mask []byte) (*bloom.Filter, error) {
	f, err := bloom.New(bloom.Config{M: uint64(maskSize) * 8, K: HashFuncCount, Scheme: hashing.Squid})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if mask != nil {
		if err := f.SetBitBytes(mask); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrFormat, err)
		}
	}
	return f, nil
}

// errZero is what the methods of a zero Digest that can return an error
// return.
var errZero = fmt.Errorf("%w: zero Digest (no mask); use New, Decode or Read", ErrConfig)

// Add records a URL requested with method (its store key).
func (d *Digest) Add(m Method, url string) error {
	if d.Filter == nil {
		return errZero
	}
	key, err := StoreKey(m, url)
	if err != nil {
		return err
	}
	d.AddKey(key)
	return nil
}

// AddKey records a store key. It panics on a zero Digest.
func (d *Digest) AddKey(key [16]byte) {
	if d.Filter == nil {
		panic("squid: AddKey on a zero Digest; use New, Decode or Read")
	}
	d.Filter.AddHash(hashing.MD5Hash128(key))
	d.Header.Count++
}

// Contains reports whether the digest may hold the URL for method.
func (d *Digest) Contains(m Method, url string) (bool, error) {
	key, err := StoreKey(m, url)
	if err != nil {
		return false, err
	}
	return d.ContainsKey(key), nil
}

// ContainsKey reports whether the digest may hold a store key (false
// for a zero Digest, which holds nothing).
func (d *Digest) ContainsKey(key [16]byte) bool {
	if d.Filter == nil {
		return false
	}
	return d.Filter.ContainsHash(hashing.MD5Hash128(key))
}

// EncodedSize is the size of the digest body: 128 + mask_size.
func (d *Digest) EncodedSize() int { return HeaderSize + int(d.Header.MaskSize) }

// AppendHeader appends the 128-byte header.
func (d *Digest) AppendHeader(b []byte) []byte {
	h := &d.Header
	b = binary.BigEndian.AppendUint16(b, h.Version)
	b = binary.BigEndian.AppendUint16(b, h.RequiredVersion)
	b = binary.BigEndian.AppendUint32(b, h.Capacity)
	b = binary.BigEndian.AppendUint32(b, h.Count)
	b = binary.BigEndian.AppendUint32(b, h.DelCount)
	b = binary.BigEndian.AppendUint32(b, h.MaskSize)
	b = append(b, h.BitsPerEntry, h.HashFuncCount)
	return append(b, make([]byte, HeaderSize-22)...)
}

// AppendMask appends the mask bytes (none for a zero Digest).
func (d *Digest) AppendMask(b []byte) []byte {
	if d.Filter == nil {
		return b
	}
	return d.Filter.AppendBitBytes(b)
}

// AppendBinary appends the digest body (header and mask).
func (d *Digest) AppendBinary(b []byte) ([]byte, error) {
	if d.Filter == nil {
		return b, errZero
	}
	return d.AppendMask(d.AppendHeader(b)), nil
}

// MarshalBinary returns the digest body.
func (d *Digest) MarshalBinary() ([]byte, error) {
	return d.AppendBinary(make([]byte, 0, d.EncodedSize()))
}

// WriteTo writes the digest body.
func (d *Digest) WriteTo(w io.Writer) (int64, error) {
	b, err := d.MarshalBinary()
	if err != nil {
		return 0, err
	}
	n, err := w.Write(b)
	return int64(n), err
}
