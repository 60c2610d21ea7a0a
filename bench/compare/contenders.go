package compare

import (
	"fmt"
	"unsafe"

	xorfilter "github.com/FastFilter/xorfilter"
	bitsbloom "github.com/bits-and-blooms/bloom/v3"
	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/ribbon"
	holiman "github.com/holiman/bloomfilter/v2"
	cuckoo "github.com/seiflotfy/cuckoofilter"
	boom "github.com/tylertreat/BoomFilters"
	"github.com/zeebo/xxh3"
)

// Set is one structure under test, holding (after AddAll) a fixed key set.
// Its methods take whole passes of keys so that the loops over keys run on
// concrete types: one interface call per pass, none per key, which would
// otherwise add the same few nanoseconds to every row.
type Set interface {
	// AddAll inserts keys. For a static structure it builds it from keys.
	AddAll(keys []string) error
	// CountHits returns how many of keys the structure reports present.
	CountHits(keys []string) int
	// Bits is the size of the structure's table in memory, in bits.
	Bits() uint64
	// K is the number of probes per key, or 0 where that means nothing.
	K() int
}

// Batcher is a Set with a batch query path (bloomcast only).
type Batcher interface {
	Set
	// CountHitsBatch is CountHits through the batch API: keys are hashed
	// group at a time, then queried with one batch call per group.
	CountHitsBatch(keys []string, group int) int
}

// Contender describes one row of the comparison.
type Contender struct {
	Name string
	// Short is a name without spaces or slashes, for sub-benchmarks.
	Short string
	// Target is the false-positive rate the structure is built for: p for
	// the Bloom filters, the fixed design rate for fuse and cuckoo.
	Target func(p float64) float64
	// New returns an empty structure for n keys at rate p.
	New func(n int, p float64) (Set, error)
	// Floor marks the hash-only row, which stores nothing: it has no rate,
	// no size and no notion of a false negative.
	Floor bool
	// Note says how the contender is configured, for the report.
	Note string
}

// fuseRate is the rate of an 8-bit binary fuse filter, 2^-8.
const fuseRate = 1.0 / 256

// cuckooRate bounds the rate of a cuckoo filter with 4-slot buckets and
// 8-bit fingerprints that avoid 0: 2·4/255 at full load (Fan et al. 2014).
const cuckooRate = 8.0 / 255

// cuckooLoad is the load the cuckoo filter's capacity is sized for: 4-way
// buckets fill to about 95% before insertions fail, and this library
// rounds the capacity up to a power of two on top.
const cuckooLoad = 0.95

// Contenders returns every row, bloomcast first, the hash-only floor last.
func Contenders() []Contender {
	same := func(p float64) float64 { return p }
	cs := []Contender{}
	for _, l := range []bloom.Layout{bloom.Classic, bloom.Partitioned, bloom.Blocked, bloom.Paged} {
		cs = append(cs, Contender{
			Name: "bloomcast " + l.String(), Short: l.String(), Target: same, New: newBloomcast(l),
			Note: "bloom.New(Config{Layout, N, P}); AddString / ContainsString; batch: HashString + ContainsBatch",
		})
	}
	cs = append(cs, Contender{
		Name: NameBlocked64, Short: "blocked64", Target: same, New: newBloomcastScheme(bloom.Blocked, hashing.Fast64),
		Note: "as bloomcast blocked, with Config.Scheme hashing.Fast64 (scheme 3: XXH3-64 keys)",
	})
	return append(cs,
		Contender{Name: "bits-and-blooms/bloom/v3", Short: "bitsandblooms", Target: same, New: newBitsAndBlooms,
			Note: "NewWithEstimates(n, p); Add/Test on the key's bytes (no copy)"},
		Contender{Name: "greatroar/blobloom", Short: "blobloom", Target: same, New: newBlobloom,
			Note: "NewOptimized(Config{n, p}); Add/Has of xxh3.HashString(key); k counts the block choice"},
		Contender{Name: "greatroar/blobloom, blocked's bits", Short: "blobloomeq", Target: same, New: newBlobloomEqualBits,
			Note: "Optimize(Config{n, p, MaxBits: bloomcast blocked's M}): the same memory as bloomcast blocked"},
		Contender{Name: "holiman/bloomfilter/v2", Short: "holiman", Target: same, New: newHoliman,
			Note: "NewOptimal(n, p); AddHash/ContainsHash of xxh3.HashString(key)"},
		Contender{Name: "tylertreat/BoomFilters", Short: "boom", Target: same, New: newBoom,
			Note: "NewBloomFilter(n, p) (classic, FNV-64); Add/Test on the key's bytes (no copy)"},
		Contender{Name: NameRibbon, Short: "ribbon", Target: same, New: newRibbon,
			Note: "static: add = HashString of every key + ribbon.BuildHashes(Config{Rate: p}); ContainsString"},
		Contender{Name: "FastFilter binary fuse 8", Short: "fuse8", Target: func(float64) float64 { return fuseRate }, New: newFuse,
			Note: "static: add = xxh3 64 of every key + PopulateBinaryFuse8; rate fixed at 2^-8"},
		Contender{Name: "FastFilter xor 8", Short: "xor8", Target: func(float64) float64 { return fuseRate }, New: newXor,
			Note: "static: add = xxh3 64 of every key + Populate; rate fixed at 2^-8"},
		Contender{Name: "seiflotfy/cuckoofilter", Short: "cuckoo", Target: func(float64) float64 { return cuckooRate }, New: newCuckoo,
			Note: fmt.Sprintf("NewFilter(n/%.2f); Insert/Lookup on the key's bytes (no copy); rate fixed near 8/255", cuckooLoad)},
		Contender{Name: "floor: hash only", Short: "floor", Floor: true, Target: func(float64) float64 { return 0 }, New: newFloor,
			Note: "xxh3-128 of the key and nothing else: what every string-key query pays at least"},
	)
}

// bytesOf returns s's bytes without copying. The libraries below only read
// their []byte argument, and a copy per key would charge them an allocation
// that a caller holding []byte keys would not pay.
func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// --- bloomcast ---

type bloomcastSet struct {
	f   *bloom.Filter
	hs  []hashing.Hash128
	out []bool
}

func newBloomcast(l bloom.Layout) func(int, float64) (Set, error) {
	return newBloomcastScheme(l, nil)
}

// newBloomcastScheme is newBloomcast under a hashing scheme (nil: the
// default).
func newBloomcastScheme(l bloom.Layout, scheme hashing.Scheme) func(int, float64) (Set, error) {
	return func(n int, p float64) (Set, error) {
		f, err := bloom.New(bloom.Config{Layout: l, N: uint64(n), P: p, Scheme: scheme})
		if err != nil {
			return nil, err
		}
		return &bloomcastSet{f: f}, nil
	}
}

func (s *bloomcastSet) AddAll(keys []string) error {
	for _, k := range keys {
		s.f.AddString(k)
	}
	return nil
}

func (s *bloomcastSet) CountHits(keys []string) int {
	hits := 0
	for _, k := range keys {
		if s.f.ContainsString(k) {
			hits++
		}
	}
	return hits
}

func (s *bloomcastSet) CountHitsBatch(keys []string, group int) int {
	if len(s.hs) < group {
		s.hs, s.out = make([]hashing.Hash128, group), make([]bool, group)
	}
	hits := 0
	for len(keys) > 0 {
		g := min(group, len(keys))
		hs, out := s.hs[:g], s.out[:g]
		for i, k := range keys[:g] {
			hs[i] = s.f.HashString(k)
		}
		s.f.ContainsBatch(hs, out)
		for _, ok := range out {
			if ok {
				hits++
			}
		}
		keys = keys[g:]
	}
	return hits
}

func (s *bloomcastSet) Bits() uint64 { return uint64(s.f.SizeBytes()) * 8 }
func (s *bloomcastSet) K() int       { return s.f.K() }

// --- bits-and-blooms/bloom/v3 ---

type bitsAndBloomsSet struct{ f *bitsbloom.BloomFilter }

func newBitsAndBlooms(n int, p float64) (Set, error) {
	return &bitsAndBloomsSet{bitsbloom.NewWithEstimates(uint(n), p)}, nil
}

func (s *bitsAndBloomsSet) AddAll(keys []string) error {
	for _, k := range keys {
		s.f.Add(bytesOf(k))
	}
	return nil
}

func (s *bitsAndBloomsSet) CountHits(keys []string) int {
	hits := 0
	for _, k := range keys {
		if s.f.Test(bytesOf(k)) {
			hits++
		}
	}
	return hits
}

func (s *bitsAndBloomsSet) Bits() uint64 { return uint64(len(s.f.BitSet().Words())) * 64 }
func (s *bitsAndBloomsSet) K() int       { return int(s.f.K()) }

// --- holiman/bloomfilter/v2 ---

// holimanSet feeds the filter xxh3's 64-bit hash of each key. It calls
// AddHash(h) rather than Add(hash.Hash64): the library documents them as
// identical, and the interface form would add a call through a boxed
// hasher per key.
type holimanSet struct{ f *holiman.Filter }

func newHoliman(n int, p float64) (Set, error) {
	f, err := holiman.NewOptimal(uint64(n), p)
	if err != nil {
		return nil, err
	}
	return &holimanSet{f}, nil
}

func (s *holimanSet) AddAll(keys []string) error {
	for _, k := range keys {
		s.f.AddHash(xxh3.HashString(k))
	}
	return nil
}

func (s *holimanSet) CountHits(keys []string) int {
	hits := 0
	for _, k := range keys {
		if s.f.ContainsHash(xxh3.HashString(k)) {
			hits++
		}
	}
	return hits
}

// Bits rounds M up to the 64-bit words the filter allocates.
func (s *holimanSet) Bits() uint64 { return (s.f.M() + 63) / 64 * 64 }
func (s *holimanSet) K() int       { return int(s.f.K()) }

// --- tylertreat/BoomFilters ---

type boomSet struct{ f *boom.BloomFilter }

func newBoom(n int, p float64) (Set, error) { return &boomSet{boom.NewBloomFilter(uint(n), p)}, nil }

func (s *boomSet) AddAll(keys []string) error {
	for _, k := range keys {
		s.f.Add(bytesOf(k))
	}
	return nil
}

func (s *boomSet) CountHits(keys []string) int {
	hits := 0
	for _, k := range keys {
		if s.f.Test(bytesOf(k)) {
			hits++
		}
	}
	return hits
}

// Bits rounds the capacity up to the bytes its one-bit buckets occupy.
func (s *boomSet) Bits() uint64 { return (uint64(s.f.Capacity()) + 7) / 8 * 8 }
func (s *boomSet) K() int       { return int(s.f.K()) }

// --- FastFilter binary fuse 8 ---

type fuseSet struct{ f *xorfilter.BinaryFuse8 }

func newFuse(int, float64) (Set, error) { return &fuseSet{}, nil }

// AddAll builds the filter. Hashing the keys into a fresh slice is part of
// the cost, as every other row's add pass hashes its keys; the slice is
// fresh also because the builder may reorder it to drop duplicates.
func (s *fuseSet) AddAll(keys []string) error {
	hs := make([]uint64, len(keys))
	for i, k := range keys {
		hs[i] = xxh3.HashString(k)
	}
	f, err := xorfilter.PopulateBinaryFuse8(hs)
	if err != nil {
		return fmt.Errorf("binary fuse 8: %w", err)
	}
	s.f = f
	return nil
}

func (s *fuseSet) CountHits(keys []string) int {
	hits := 0
	for _, k := range keys {
		if s.f.Contains(xxh3.HashString(k)) {
			hits++
		}
	}
	return hits
}

func (s *fuseSet) Bits() uint64 {
	if s.f == nil {
		return 0
	}
	return uint64(len(s.f.Fingerprints)) * 8
}
func (s *fuseSet) K() int { return 0 }

// --- bloomcast ribbon ---

type ribbonSet struct {
	f *ribbon.Filter
	p float64
}

func newRibbon(_ int, p float64) (Set, error) { return &ribbonSet{p: p}, nil }

// AddAll builds the filter from the keys' XXH3-128 hashes, hashing
// included, as the fuse row does.
func (s *ribbonSet) AddAll(keys []string) error {
	hs := make([]hashing.Hash128, len(keys))
	for i, k := range keys {
		hs[i] = hashing.SumString(k)
	}
	f, err := ribbon.BuildHashes(ribbon.Config{Rate: s.p}, hs)
	if err != nil {
		return err
	}
	s.f = f
	return nil
}

func (s *ribbonSet) CountHits(keys []string) int {
	hits := 0
	for _, k := range keys {
		if s.f.ContainsString(k) {
			hits++
		}
	}
	return hits
}

func (s *ribbonSet) Bits() uint64 {
	if s.f == nil {
		return 0
	}
	return s.f.SizeBits()
}
func (s *ribbonSet) K() int { return 0 }

// --- FastFilter xor 8 ---

type xorSet struct{ f *xorfilter.Xor8 }

func newXor(int, float64) (Set, error) { return &xorSet{}, nil }

// AddAll builds the filter, hashing included, as the fuse row does.
func (s *xorSet) AddAll(keys []string) error {
	hs := make([]uint64, len(keys))
	for i, k := range keys {
		hs[i] = xxh3.HashString(k)
	}
	f, err := xorfilter.Populate(hs)
	if err != nil {
		return fmt.Errorf("xor 8: %w", err)
	}
	s.f = f
	return nil
}

func (s *xorSet) CountHits(keys []string) int {
	hits := 0
	for _, k := range keys {
		if s.f.Contains(xxh3.HashString(k)) {
			hits++
		}
	}
	return hits
}

func (s *xorSet) Bits() uint64 {
	if s.f == nil {
		return 0
	}
	return uint64(len(s.f.Fingerprints)) * 8
}
func (s *xorSet) K() int { return 0 }

// --- seiflotfy/cuckoofilter ---

type cuckooSet struct{ f *cuckoo.Filter }

func newCuckoo(n int, _ float64) (Set, error) {
	return &cuckooSet{cuckoo.NewFilter(uint(float64(n)/cuckooLoad + 1))}, nil
}

// AddAll reports failed insertions: a full cuckoo filter drops keys, which
// would show up as false negatives.
func (s *cuckooSet) AddAll(keys []string) error {
	failed := 0
	for _, k := range keys {
		if !s.f.Insert(bytesOf(k)) {
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("cuckoo filter: %d of %d insertions failed", failed, len(keys))
	}
	return nil
}

func (s *cuckooSet) CountHits(keys []string) int {
	hits := 0
	for _, k := range keys {
		if s.f.Lookup(bytesOf(k)) {
			hits++
		}
	}
	return hits
}

// Bits counts the table: Encode returns one byte per slot, 4 slots per
// bucket, which is exactly the bucket array.
func (s *cuckooSet) Bits() uint64 { return uint64(len(s.f.Encode())) * 8 }
func (s *cuckooSet) K() int       { return 0 }

// --- floor ---

// floorSet only hashes. The hashes are folded into sink so the compiler
// cannot drop the work.
type floorSet struct{ sink uint64 }

func newFloor(int, float64) (Set, error) { return &floorSet{}, nil }

func (s *floorSet) AddAll(keys []string) error {
	s.CountHits(keys)
	return nil
}

// CountHits reports every key present: the floor answers nothing, and the
// harness ignores its counts.
func (s *floorSet) CountHits(keys []string) int {
	var x uint64
	for _, k := range keys {
		h := hashing.SumString(k)
		x ^= h.Lo ^ h.Hi
	}
	s.sink ^= x
	return len(keys)
}

func (s *floorSet) Bits() uint64 { return 0 }
func (s *floorSet) K() int       { return 0 }
