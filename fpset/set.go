package fpset

import "github.com/bloomcast/bloomcast/hashing"

// Resize policy: the table doubles before an insertion would fill more than
// 4/5 of its home slots (an unsuccessful search then reads about 3 slots)
// and halves after a removal leaves less than 1/5 filled, never below the
// size New chose.
const (
	minHome              = 16
	growNum, growDen     = 4, 5 // grow when n+1 > home·4/5
	shrinkNum, shrinkDen = 1, 5 // shrink when n < home·1/5
)

// slackFor returns the number of overflow slots after the home slots. The
// table does not wrap around: a run of fingerprints pushed past the last
// home slot spills into the slack, and a spill past the slack doubles the
// table. The expected spill at load 4/5 is about a dozen slots.
func slackFor(home uint64) uint64 { return min(256, 16+home/8) }

// Set is a dynamic set or multiset of fingerprints in an ordered
// linear-probing table (see the package documentation). The zero value is
// not usable; call [New]. It holds nothing, so its queries answer absent,
// but Add panics with a message naming the fix and the encoders return an
// error wrapping ErrConfig.
//
// Slot i holds a fingerprint (0 = empty) and, in a multiset, its count.
// Invariants: fingerprint f sits at or after its home slot
// Reduce(f·2^(64−Bits), home), every slot between its home and its
// position is occupied, and occupied slots increase from left to right.
// A Set is not safe for concurrent use.
type Set struct {
	shape
	home    uint64 // home slots; fingerprints are placed by value over [0, home)
	slots   uint64 // home + slack
	minHome uint64 // the table never shrinks below this
	fps     packed // slots fingerprints, Bits wide
	counts  packed // slots counts, CountBits wide (unused for a set)
	n       uint64 // occupied slots: distinct fingerprints
	total   uint64 // sum of the counts (n for a set)
}

// New returns an empty set (or multiset, with CountBits) for c.
func New(c Config) (*Set, error) {
	b, err := c.validate()
	if err != nil {
		return nil, err
	}
	home := max(minHome, c.N+c.N/4+1)
	return newSet(shape{bits: b, countBits: c.CountBits, seed: c.Seed}, home), nil
}

// FromHashes returns a set (or multiset, with c.CountBits) of the keys
// whose hashes under c.Seed are hs (hashing.SumSeed). With c.N 0 the set
// is sized for the distinct keys of hs: N is their number, at least 1
// (hashing.CountDistinct), so that C or P sets the width for the keys
// actually given. A multiset counts each of hs.
func FromHashes(c Config, hs []hashing.Hash128) (*Set, error) {
	if c.N == 0 {
		c.N = max(1, hashing.CountDistinct(hs))
	}
	s, err := New(c)
	if err != nil {
		return nil, err
	}
	for _, h := range hs {
		s.AddHash(h)
	}
	return s, nil
}

// MustNew is New for configurations known to be valid; it panics on error.
func MustNew(c Config) *Set {
	s, err := New(c)
	if err != nil {
		panic(err)
	}
	return s
}

func newSet(sh shape, home uint64) *Set {
	slots := home + slackFor(home)
	return &Set{
		shape: sh, home: home, slots: slots, minHome: home,
		fps:    newPacked(slots, sh.bits),
		counts: newPacked(slots, sh.countBits),
	}
}

// homeOf returns the home slot of fingerprint f, non-decreasing in f.
func (s *Set) homeOf(f uint64) uint64 { return hashing.Reduce(f<<(64-s.bits), s.home) }

// find returns the slot holding f, or the slot where f belongs if it is
// absent (s.slots if that is past the table).
func (s *Set) find(f uint64) (uint64, bool) {
	for i := s.homeOf(f); i < s.slots; i++ {
		if v := s.fps.Get(i); v == 0 || v >= f {
			return i, v == f
		}
	}
	return s.slots, false
}

// Add adds key.
func (s *Set) Add(key []byte) { s.AddHash(s.Hash(key)) }

// AddString adds key.
func (s *Set) AddString(key string) { s.AddHash(s.HashString(key)) }

// AddHash adds the key whose hash is h. In a set, adding a present
// fingerprint changes nothing; in a multiset it raises the count, which
// saturates at 2^CountBits − 1. It allocates only when the table resizes.
func (s *Set) AddHash(h hashing.Hash128) {
	f := s.Fingerprint(h)
	i, found := s.find(f)
	if found {
		if c := s.countAt(i); c < s.maxCount() {
			s.counts.Set(i, c+1)
			s.total++
		}
		return
	}
	if (s.n+1)*growDen > s.home*growNum {
		s.resize(2 * s.home)
		i, _ = s.find(f)
	}
	for !s.insertAt(i, f) {
		s.resize(2 * s.home)
		i, _ = s.find(f)
	}
	s.n++
	s.total++
}

// countAt returns the count in slot i: the stored count for a multiset,
// 1 for a set.
func (s *Set) countAt(i uint64) uint64 {
	if s.countBits == 0 {
		return 1
	}
	return s.counts.Get(i)
}

// insertAt puts f with count 1 at slot i, shifting the run that starts
// there one slot right. It reports false, changing nothing, if the run
// reaches the end of the table.
func (s *Set) insertAt(i, f uint64) bool {
	e := i
	for e < s.slots && s.fps.Get(e) != 0 {
		e++
	}
	if e == s.slots {
		return false
	}
	for ; e > i; e-- {
		s.fps.Set(e, s.fps.Get(e-1))
		if s.countBits > 0 {
			s.counts.Set(e, s.counts.Get(e-1))
		}
	}
	s.fps.Set(i, f)
	if s.countBits > 0 {
		s.counts.Set(i, 1)
	}
	return true
}

// Contains reports whether key's fingerprint is in the set: always for a
// key that was added (and not removed), and with probability
// FalsePositiveRate for any other key.
func (s *Set) Contains(key []byte) bool { return s.ContainsHash(s.Hash(key)) }

// ContainsString is Contains for a string key.
func (s *Set) ContainsString(key string) bool { return s.ContainsHash(s.HashString(key)) }

// ContainsHash is Contains for a hashed key. It allocates nothing.
func (s *Set) ContainsHash(h hashing.Hash128) bool {
	_, found := s.find(s.Fingerprint(h))
	return found
}

// Count returns how many times key's fingerprint was added and not
// removed: in a multiset its count (2^CountBits − 1 means at least that
// many), in a set 0 or 1.
func (s *Set) Count(key []byte) uint64 { return s.CountHash(s.Hash(key)) }

// CountString is Count for a string key.
func (s *Set) CountString(key string) uint64 { return s.CountHash(s.HashString(key)) }

// CountHash is Count for a hashed key. It allocates nothing.
func (s *Set) CountHash(h hashing.Hash128) uint64 {
	i, found := s.find(s.Fingerprint(h))
	if !found {
		return 0
	}
	return s.countAt(i)
}

// Remove removes one occurrence of key and reports whether its fingerprint
// was present. In a multiset the count falls by one and the fingerprint
// goes when it reaches zero; a saturated count stays as it is (it may
// stand for more adds than it shows). In a set the fingerprint goes, and
// with it any other key that shares it.
func (s *Set) Remove(key []byte) bool { return s.RemoveHash(s.Hash(key)) }

// RemoveString is Remove for a string key.
func (s *Set) RemoveString(key string) bool { return s.RemoveHash(s.HashString(key)) }

// RemoveHash is Remove for a hashed key. It allocates only when the table
// shrinks.
func (s *Set) RemoveHash(h hashing.Hash128) bool {
	i, found := s.find(s.Fingerprint(h))
	if !found {
		return false
	}
	switch c := s.countAt(i); {
	case s.countBits > 0 && c == s.maxCount():
		return true
	case c > 1:
		s.counts.Set(i, c-1)
		s.total--
		return true
	}
	s.deleteAt(i)
	s.n--
	s.total--
	if s.n*shrinkDen < s.home*shrinkNum && s.home/2 >= s.minHome {
		s.resize(s.home / 2)
	}
	return true
}

// deleteAt empties slot i and shifts left every following fingerprint of
// the run that is not at its home slot (Amble and Knuth's deletion, which
// keeps the table sorted and free of holes inside runs).
func (s *Set) deleteAt(i uint64) {
	j := i
	for ; j+1 < s.slots; j++ {
		v := s.fps.Get(j + 1)
		if v == 0 || s.homeOf(v) > j {
			break
		}
		s.fps.Set(j, v)
		if s.countBits > 0 {
			s.counts.Set(j, s.counts.Get(j+1))
		}
	}
	s.fps.Set(j, 0)
	if s.countBits > 0 {
		s.counts.Set(j, 0)
	}
}

// each calls fn with every fingerprint and its count, in increasing order.
func (s *Set) each(fn func(f, c uint64)) {
	for i := uint64(0); i < s.slots; i++ {
		if f := s.fps.Get(i); f != 0 {
			fn(f, s.countAt(i))
		}
	}
}

// resize rebuilds the table with home slots (doubling again in the
// unlikely case that the fingerprints spill past the slack). Since the
// table is sorted, the rebuild is one linear pass.
func (s *Set) resize(home uint64) {
	if s.bits == 0 {
		panic(zeroPanic)
	}
	for {
		t := newSet(s.shape, home)
		t.minHome = s.minHome
		if t.fill(s.each) {
			*s = *t
			return
		}
		home *= 2
	}
}

// fill places fingerprints given in increasing order into the empty table
// t, each at its home or just after the previous one. It reports false if
// they spill past the end.
func (t *Set) fill(each func(func(f, c uint64))) bool {
	next, ok := uint64(0), true
	each(func(f, c uint64) {
		i := max(t.homeOf(f), next)
		if !ok || i >= t.slots {
			ok = false
			return
		}
		t.fps.Set(i, f)
		if t.countBits > 0 {
			t.counts.Set(i, c)
		}
		next = i + 1
		t.n++
		t.total += c
	})
	return ok
}

// Len returns the number of distinct fingerprints held.
func (s *Set) Len() uint64 { return s.n }

// Total returns the sum of the counts: the number of adds not undone by
// removes, short of any that saturated counts absorbed. For a set it is
// Len.
func (s *Set) Total() uint64 { return s.total }

// Capacity returns the number of home slots; the table grows when Len
// would exceed 4/5 of it.
func (s *Set) Capacity() uint64 { return s.home }

// SizeBits returns the memory the table takes, in bits: every slot,
// including the overflow slots, times Bits + CountBits.
func (s *Set) SizeBits() uint64 { return s.slots * uint64(s.bits+s.countBits) }

// FalsePositiveRate returns the probability that a key never added is
// reported present, for the fingerprints now held: Len/(2^Bits − 1), as
// its fingerprint is uniform over 2^Bits − 1 values. For n keys added this
// is about [FalsePositive](n, Bits) ≤ n/(2^Bits − 1).
func (s *Set) FalsePositiveRate() float64 { return s.falsePositive(s.n) }

// Clear removes every fingerprint, keeping the table's size.
func (s *Set) Clear() {
	clear(s.fps.Words())
	clear(s.counts.Words())
	s.n, s.total = 0, 0
}

// Sorted returns the static sorted form of the set's fingerprints.
func (s *Set) Sorted() *Sorted {
	t := newSorted(s.shape, s.n)
	i := uint64(0)
	s.each(func(f, c uint64) {
		t.put(i, f, c)
		i++
	})
	t.total = s.total
	return t
}

// Compress returns the Golomb–Rice coded form of the set's fingerprints.
func (s *Set) Compress() *Compressed { return s.Sorted().Compress() }
