package hashing

import (
	"errors"
	"fmt"
)

// SchemeID names a hashing scheme in every bloomcast format.
// The zero value names no scheme: Lookup returns ErrUnknownScheme for it.
type SchemeID uint8

// The schemes bloomcast defines. IDs are part of the wire format and are
// never reused.
const (
	// XXH3 is XXH3-128 key hashing with enhanced double hashing (with a quadratic offset) and
	// multiply-shift reduction, the default.
	XXH3 SchemeID = 1
	// XXH3x64 is XXH3-64 key hashing, the high half derived from the
	// low one by a multiply and an xor-shift ([Sum64Seed]), with XXH3's
	// probes and block choice. It exists for speed: one avalanche and
	// half the folding of XXH3-128, which is most of a blocked query's
	// work in cache and what stands between one key's load and the next
	// out of it.
	XXH3x64 SchemeID = 3
)

// ErrUnknownScheme is returned for a scheme ID that this build does not know.
var ErrUnknownScheme = errors.New("hashing: unknown scheme")

// A Scheme turns keys into hashes and hashes into probe positions. The
// default, [Default], is what bloomcast formats use unless they record
// another ID; filters run it inline. Other schemes (Squid's cache digests,
// say) implement this interface and the layouts call it per probe.
//
// Implementations must be deterministic and safe for concurrent use.
//
// The zero value, nil, is no scheme; where bloom.Config, counting.Config or
// bloom.NewGeometry take one, nil means Default.
type Scheme interface {
	// ID is recorded in every format that uses the scheme.
	ID() SchemeID
	// Sum hashes a key with the given seed.
	Sum(key []byte, seed uint64) Hash128
	// SumString hashes a key given as a string.
	SumString(key string, seed uint64) Hash128
	// Block picks one of nblocks blocks for h (blocked and paged layouts).
	Block(h Hash128, nblocks uint64) uint64
	// Probe returns h's i-th probe position (0 ≤ i < k) in [0, n).
	Probe(h Hash128, i int, n uint64) uint64
}

// Default is the XXH3 scheme.
var Default Scheme = xxh3Scheme{}

// Fast64 is the XXH3x64 scheme: keys hashed by [Sum64Seed], probes and
// blocks as [Default]'s.
var Fast64 Scheme = xxh3x64Scheme{}

type xxh3Scheme struct{}

func (xxh3Scheme) ID() SchemeID                              { return XXH3 }
func (xxh3Scheme) Sum(key []byte, seed uint64) Hash128       { return SumSeed(key, seed) }
func (xxh3Scheme) SumString(key string, seed uint64) Hash128 { return SumStringSeed(key, seed) }
func (xxh3Scheme) Block(h Hash128, nblocks uint64) uint64    { return Block(h, nblocks) }
func (xxh3Scheme) Probe(h Hash128, i int, n uint64) uint64   { return Reduce(ProbeValue(h, i), n) }

// xxh3x64Scheme differs from xxh3Scheme in its key hash only.
type xxh3x64Scheme struct{ xxh3Scheme }

func (xxh3x64Scheme) ID() SchemeID                              { return XXH3x64 }
func (xxh3x64Scheme) Sum(key []byte, seed uint64) Hash128       { return Sum64Seed(key, seed) }
func (xxh3x64Scheme) SumString(key string, seed uint64) Hash128 { return SumString64Seed(key, seed) }

// ProbeValue returns the i-th probe value of h in closed form,
// Finalize(h1 + i·h2 + h3·i(i+1)/2 mod 2^64) (see [Probes], which computes
// the same sequence incrementally).
func ProbeValue(h Hash128, i int) uint64 {
	u := uint64(i)
	return Finalize(h.Lo + u*(h.Hi*StepMultiplier) + (h.Lo*OffsetMultiplier)*(u*(u+1)/2))
}

// InlineProbes reports whether scheme id derives probes and blocks as
// [XXH3] does ([ProbeValue], [Block]): XXH3 and XXH3x64, which differ in
// their key hash only. Filters run such probes inline, without a call
// through the Scheme interface a probe.
func InlineProbes(id SchemeID) bool { return id == XXH3 || id == XXH3x64 }

// Lookup returns the built-in scheme with the given ID.
func Lookup(id SchemeID) (Scheme, error) {
	switch id {
	case XXH3:
		return Default, nil
	case XXH3x64:
		return Fast64, nil
	case SquidMD5:
		return Squid, nil
	}
	return nil, fmt.Errorf("%w %d", ErrUnknownScheme, id)
}
