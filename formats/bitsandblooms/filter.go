// Package bitsandblooms reads, writes and queries the Bloom filters of
// github.com/bits-and-blooms/bloom/v3 without depending on it.
//
// The binary form is what that library's WriteTo and MarshalBinary write:
// three big-endian uint64 values m (bits), k (probes) and the bitset's
// length in bits, then ceil(length/64) big-endian uint64 words; bit i is
// bit i%64 of word i/64. The JSON form is {"m":M,"k":K,"b":"..."} where b
// is the bitset's binary form (length, then words) in padded URL-safe
// base64. A key is hashed as bloom/v3 hashes it: the four 64-bit halves
// of MurmurHash3 x64 128 (seed 0) of the key and of the key followed by
// the byte 0x01, combined by its location function and reduced modulo m.
//
// Decoding is bounded: the words must be present in the input before any
// are allocated, and m and k are capped (MaxBits, MaxK).
package bitsandblooms

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/bits"
)

const (
	// MaxBits is the largest m (and bitset length) accepted: 2^40 bits.
	MaxBits = 1 << 40
	// MaxK is the largest number of probes accepted.
	MaxK = 4096
	// headerSize is m, k and the bitset length, eight bytes each.
	headerSize = 24
)

var (
	// ErrCorrupt reports input that is not a bloom/v3 filter.
	ErrCorrupt = errors.New("bitsandblooms: corrupt encoding")
	// ErrConfig reports parameters New cannot build a filter from.
	ErrConfig = errors.New("bitsandblooms: invalid configuration")
)

// Filter is a bloom/v3 filter: m bits, k probes per key.
//
// The zero value has no bits and no probes: Add does nothing, Test reports
// every key as maybe present (as bloom/v3 does with k = 0) and its encodings
// do not decode. It is a target for UnmarshalBinary and UnmarshalJSON;
// otherwise make one with New.
type Filter struct {
	m, k   uint64
	length uint64   // bitset length in bits (m, or 0 for an empty m=1 filter)
	words  []uint64 // ceil(length/64) words
}

// New returns an empty filter of m bits and k probes, as bloom.New(m, k)
// builds it. m must be in [1, MaxBits] and k in [1, MaxK].
func New(m, k uint64) (*Filter, error) {
	if m < 1 || m > MaxBits {
		return nil, fmt.Errorf("%w: m=%d bits, want 1..%d", ErrConfig, m, uint64(MaxBits))
	}
	if k < 1 || k > MaxK {
		return nil, fmt.Errorf("%w: k=%d, want 1..%d", ErrConfig, k, MaxK)
	}
	if (m+63)/64 > math.MaxInt/8 {
		return nil, fmt.Errorf("%w: m=%d bits does not fit in memory on this platform", ErrConfig, m)
	}
	return &Filter{m: m, k: k, length: m, words: make([]uint64, (m+63)/64)}, nil
}

// M returns the number of bits.
func (f *Filter) M() uint64 { return f.m }

// K returns the number of probes per key.
func (f *Filter) K() uint64 { return f.k }

// Ones returns the number of set bits.
func (f *Filter) Ones() uint64 {
	var n uint64
	for _, w := range f.words {
		n += uint64(bits.OnesCount64(w))
	}
	return n
}

// Add sets the k bits of key, as bloom/v3's Add does.
func (f *Filter) Add(key []byte) {
	h := baseHashes(key)
	for i := uint64(0); i < f.k; i++ {
		b := location(h, i) % f.m
		if b >= f.length { // only an m=1 filter whose bitset is still empty
			f.length = b + 1
			for uint64(len(f.words)) < (f.length+63)/64 {
				f.words = append(f.words, 0)
			}
		}
		f.words[b/64] |= 1 << (b % 64)
	}
}

// Contains is Test under the name every filter of this module answers
// to (bloom.Filter.Contains); Test is bits-and-blooms' own name, kept for
// code written against it.
func (f *Filter) Contains(key []byte) bool { return f.Test(key) }

// Test reports whether key may have been added: false means it was not.
func (f *Filter) Test(key []byte) bool {
	h := baseHashes(key)
	for i := uint64(0); i < f.k; i++ {
		b := location(h, i) % f.m
		if b >= f.length || f.words[b/64]&(1<<(b%64)) == 0 {
			return false
		}
	}
	return true
}

// bitsetSize is the size of the bitset's binary form.
func (f *Filter) bitsetSize() int { return 8 + 8*len(f.words) }

func (f *Filter) appendBitset(dst []byte) []byte {
	dst = binary.BigEndian.AppendUint64(dst, f.length)
	for _, w := range f.words {
		dst = binary.BigEndian.AppendUint64(dst, w)
	}
	return dst
}

// MarshalBinary returns the filter in bloom/v3's binary form, the bytes
// its WriteTo and MarshalBinary write.
func (f *Filter) MarshalBinary() ([]byte, error) {
	dst := make([]byte, 0, 16+f.bitsetSize())
	dst = binary.BigEndian.AppendUint64(dst, f.m)
	dst = binary.BigEndian.AppendUint64(dst, f.k)
	return f.appendBitset(dst), nil
}

// MarshalJSON returns the filter in bloom/v3's JSON form.
func (f *Filter) MarshalJSON() ([]byte, error) {
	b := base64.URLEncoding.EncodeToString(f.appendBitset(make([]byte, 0, f.bitsetSize())))
	return fmt.Appendf(nil, `{"m":%d,"k":%d,"b":%q}`, f.m, f.k, b), nil
}

// check validates m, k and the bitset length read from an encoding.
func check(m, k, length uint64) error {
	if m < 1 || m > MaxBits {
		return fmt.Errorf("%w: m=%d bits, want 1..%d", ErrCorrupt, m, uint64(MaxBits))
	}
	if k < 1 || k > MaxK {
		return fmt.Errorf("%w: k=%d, want 1..%d", ErrCorrupt, k, MaxK)
	}
	if length != m && !(m == 1 && length == 0) {
		return fmt.Errorf("%w: bitset of %d bits for m=%d", ErrCorrupt, length, m)
	}
	return nil
}

// decodeBitset reads the bitset's binary form, which must fill data.
func decodeBitset(m, k uint64, data []byte) (*Filter, error) {
	if len(data) < 8 {
		return nil, fmt.Errorf("%w: %d bytes, want at least 8 for the bitset length", ErrCorrupt, len(data))
	}
	length := binary.BigEndian.Uint64(data)
	if err := check(m, k, length); err != nil {
		return nil, err
	}
	nw := (length + 63) / 64
	if have := uint64(len(data)-8) / 8; have != nw || (len(data)-8)%8 != 0 {
		return nil, fmt.Errorf("%w: bitset of %d bits needs %d bytes of words, have %d", ErrCorrupt, length, 8*nw, len(data)-8)
	}
	f := &Filter{m: m, k: k, length: length, words: make([]uint64, nw)}
	for i := range f.words {
		f.words[i] = binary.BigEndian.Uint64(data[8+8*i:])
	}
	return f, nil
}

// UnmarshalBinary decodes bloom/v3's binary form. The input must hold
// exactly one filter: missing or trailing bytes are errors.
func (f *Filter) UnmarshalBinary(data []byte) error {
	g, err := Decode(data)
	if err != nil {
		return err
	}
	*f = *g
	return nil
}

// Decode decodes bloom/v3's binary form (WriteTo, MarshalBinary). The
// input must hold exactly one filter.
func Decode(data []byte) (*Filter, error) {
	if len(data) < headerSize {
		return nil, fmt.Errorf("%w: %d bytes, want at least %d", ErrCorrupt, len(data), headerSize)
	}
	return decodeBitset(binary.BigEndian.Uint64(data), binary.BigEndian.Uint64(data[8:]), data[16:])
}

// DecodeJSON decodes bloom/v3's JSON form (MarshalJSON).
func DecodeJSON(data []byte) (*Filter, error) {
	var j struct {
		M *uint64 `json:"m"`
		K *uint64 `json:"k"`
		B *string `json:"b"`
	}
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, fmt.Errorf("%w: JSON: %w", ErrCorrupt, err)
	}
	if j.M == nil || j.K == nil || j.B == nil {
		return nil, fmt.Errorf(`%w: JSON needs "m", "k" and "b"`, ErrCorrupt)
	}
	raw, err := base64.URLEncoding.DecodeString(*j.B)
	if err != nil {
		return nil, fmt.Errorf("%w: JSON \"b\": %w", ErrCorrupt, err)
	}
	return decodeBitset(*j.M, *j.K, raw)
}

// UnmarshalJSON decodes bloom/v3's JSON form.
func (f *Filter) UnmarshalJSON(data []byte) error {
	g, err := DecodeJSON(data)
	if err != nil {
		return err
	}
	*f = *g
	return nil
}

// Sniff reports which bloom/v3 form data looks like: "binary" when its
// header is consistent with its size, "json" when it is a JSON object
// with the three fields, and "" otherwise. It does not decode the words.
func Sniff(data []byte) string {
	if len(data) >= headerSize {
		m, k, length := binary.BigEndian.Uint64(data), binary.BigEndian.Uint64(data[8:]), binary.BigEndian.Uint64(data[16:])
		if check(m, k, length) == nil && uint64(len(data)) == headerSize+8*((length+63)/64) {
			return "binary"
		}
	}
	if len(data) > 0 && (data[0] == '{' || data[0] == ' ' || data[0] == '\n' || data[0] == '\t' || data[0] == '\r') {
		var j map[string]json.RawMessage
		if json.Unmarshal(data, &j) == nil && len(j) == 3 && j["m"] != nil && j["k"] != nil && j["b"] != nil {
			return "json"
		}
	}
	return ""
}
