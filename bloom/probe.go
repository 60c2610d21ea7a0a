package bloom

import (
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/internal/xxh3asm"
	"github.com/bloomcast/bloomcast/params"
)

// Add inserts key.
func (f *Filter) Add(key []byte) {
	if f.keyPath == keyBlocked && !f.readOnly && xxh3asm.Fits(len(key)) {
		f.count++
		f.blockSetKey(key)
		return
	}
	if f.keyPath == keyBlocked64 && !f.readOnly && xxh3asm.Fits(len(key)) {
		f.count++
		f.blockSetKey64(key)
		return
	}
	if f.blockedInline && !f.hash64 && !f.readOnly {
		f.addBlockedHash(hashing.SumSeed(key, f.seed))
		return
	}
	f.AddHash(f.Hash(key))
}

// AddString inserts key.
func (f *Filter) AddString(key string) {
	if f.keyPath == keyBlocked && !f.readOnly && xxh3asm.Fits(len(key)) {
		f.count++
		f.blockSetKeyString(key)
		return
	}
	if f.keyPath == keyBlocked64 && !f.readOnly && xxh3asm.Fits(len(key)) {
		f.count++
		f.blockSetKey64String(key)
		return
	}
	if f.blockedInline && !f.hash64 && !f.readOnly {
		f.addBlockedHash(hashing.SumStringSeed(key, f.seed))
		return
	}
	f.AddHash(f.HashString(key))
}

// Contains reports whether key may be in the set: false means certainly not.
func (f *Filter) Contains(key []byte) bool {
	switch {
	case f.keyPath == keyBlocked && xxh3asm.Fits(len(key)):
		return f.blockAllSetKey(key)
	case f.keyPath == keyBlocked64 && xxh3asm.Fits(len(key)):
		return f.blockAllSetKey64(key)
	case f.keyPath == keyRange && xxh3asm.Fits(len(key)):
		return f.rangeHasKey(key, f.rangeStep())
	case f.hash64:
		return f.ContainsHash(f.Hash(key))
	case f.blockedInline:
		return f.containsBlockedKeyed(hashing.SumSeed(key, f.seed))
	case f.fast:
		return f.containsRange(hashing.SumSeed(key, f.seed))
	}
	return f.containsLocated(f.Hash(key))
}

// ContainsString is Contains for a string key.
func (f *Filter) ContainsString(key string) bool {
	switch {
	case f.keyPath == keyBlocked && xxh3asm.Fits(len(key)):
		return f.blockAllSetKeyString(key)
	case f.keyPath == keyBlocked64 && xxh3asm.Fits(len(key)):
		return f.blockAllSetKey64String(key)
	case f.keyPath == keyRange && xxh3asm.Fits(len(key)):
		return f.rangeHasKeyString(key, f.rangeStep())
	case f.hash64:
		return f.ContainsHash(f.HashString(key))
	case f.blockedInline:
		return f.containsBlockedKeyed(hashing.SumStringSeed(key, f.seed))
	case f.fast:
		return f.containsRange(hashing.SumStringSeed(key, f.seed))
	}
	return f.containsLocated(f.HashString(key))
}

// TestAndAdd inserts key and reports whether it may have been present before.
func (f *Filter) TestAndAdd(key []byte) bool { return f.TestAndAddHash(f.Hash(key)) }

// TestAndAddString is TestAndAdd for a string key.
func (f *Filter) TestAndAddString(key string) bool { return f.TestAndAddHash(f.HashString(key)) }

// AddHash inserts the key whose hash is h.
func (f *Filter) AddHash(h hashing.Hash128) {
	f.mustWrite("Add")
	switch {
	case f.blockedInline:
		f.addBlockedHash(h)
		return
	case !f.fast:
		f.addLocated(h)
	case f.layout == Classic:
		f.addClassic(h)
	case f.layout == Partitioned:
		f.addPartitioned(h)
	default:
		f.addPaged(h)
	}
	f.count++
}

// ContainsHash reports whether the key whose hash is h may be in the set.
func (f *Filter) ContainsHash(h hashing.Hash128) bool {
	switch {
	case f.blockedInline:
		return f.containsBlocked(h)
	case !f.fast:
		return f.containsLocated(h)
	}
	return f.containsRange(h)
}

// The key methods above go straight from the hash to the probe loop under
// the default scheme, two calls fewer than through HashString and
// ContainsHash. A call is about a nanosecond of the ~20 a key costs in
// cache, but out of cache a query that ends early costs a branch
// misprediction, and the next key's load leaves only once the CPU has
// run through everything before it again: by string key at 2·10^7 keys,
// p = 1%, going through the two calls made non-members 30–44% slower in
// the classic, partitioned and paged layouts (members 3–6%), and 8–11% of
// everything at 10^5 keys. (Out of cache such figures move with any change
// to the code between two keys' loads, not only with its length: in
// counting, forms of one loop that differed only in their calls ranged
// over 30% on non-members. They are this machine's, a shared 2-vCPU VM.)
//
// In the blocked layout with AVX-512, a key of 17 to 128 bytes goes to one
// assembly routine that hashes it and answers (blockAllSetKey) or sets its
// bits (blockSetKey), with no call and no spilled register between the
// hash and the block (internal/xxh3asm says why that counts). Against
// hashing.SumSeed and then containsBlockedKeyed, by 45-byte key, medians
// of 40 interleaved rounds, one run: at 2·10^7 keys, p = 1%, 124 against
// 197 ns per member and 125 against 140 per non-member; p = 0.1%, 118
// against 156 and 118 against 126; at 10^5 keys 5–20% faster. Adds by key
// were 3–8% faster.
//
// The classic and partitioned layouts do the same on every amd64 CPU
// (rangeHasKey: the macro, then containsRange's probes, scalar). There a
// query waits for several lines, and the gain is smaller: same test, 2–11%
// in both layouts, members and non-members, at 10^5 and 2·10^7 keys
// (classic at 2·10^7, p = 1%: 307 against 329 ns per member, 202 against
// 213 per non-member).

// containsBlockedKeyed is containsBlocked for a hash just computed from a
// key. In and near the cache it runs the AVX-512 form where the CPU has it:
// after hashing a key the scalar units are busy, and the vector form's
// probes overlap the next key's hash. Measured by string key at 10^5 keys
// (in cache): 21 against 23 ns per member and 21 against 24 per non-member
// at p = 1%, 23 against 27 and 23 against 28 at p = 0.1%. A loop of
// ContainsHash alone did as well or better with the scalar form in cache
// (13 against 16 ns in one run), so containsBlocked keeps it there.
//
// Beyond branchFreeBits (4 MiB) it takes the early exit, as a CPU without
// AVX-512 does: there a query by key waits for one line from memory, and
// the predicted exit let the CPU run ahead sooner. Three runs by string key
// (medians of six rounds each, ns per key, early exit against AVX-512):
// 4·10^6 keys at p = 1% (5 MB), 109 against 148 per member and 109 against
// 132 per non-member; 2·10^7 at p = 1%, 124 against 134 and 114 against
// 128 (150 against 162 and 128 against 180 under more load); 2·10^7 at
// p = 0.1%, 169 against 158 and 120 against 148.
func (f *Filter) containsBlockedKeyed(h hashing.Hash128) bool {
	switch {
	case f.m > branchFreeBits:
		return blockHas(f.block(h), h, f.k)
	case hasAVX512:
		return blockAllSetAVX512(f.block(h), h.Lo, h.Hi, f.k)
	}
	return f.containsBlocked(h)
}

// addBlockedHash is AddHash for the default blocked layout.
func (f *Filter) addBlockedHash(h hashing.Hash128) {
	f.count++
	setBlock(f.block(h), h, f.k)
}

// setBlock sets h's k probes in its block w in AVX-512 where the CPU has
// it, else with the scalar loop. By precomputed hash at p = 1%
// (BenchmarkBlockSetForms, medians of six interleaved rounds), AVX-512
// took 9.1 against 10.0 ns in cache (10^5 keys) and 55 against 77–124
// out of it (2·10^7): one read and one write of the block where the
// loop makes k of each, and about two thirds of its instructions between
// one insert's line and the next.
func setBlock(w *[8]uint64, h hashing.Hash128, k int) {
	if hasAVX512 {
		blockSetAVX512(w, h.Lo, h.Hi, k)
		return
	}
	blockSet(w, h, k)
}

// TestAndAddHash inserts h and reports whether it may have been present.
func (f *Filter) TestAndAddHash(h hashing.Hash128) bool {
	f.mustWrite("TestAndAdd")
	var buf [params.MaxK]uint64
	present := true
	for _, b := range f.Positions(h, &buf) {
		w, mask := &f.words[b>>6], uint64(1)<<(b&63)
		present = present && *w&mask != 0
		*w |= mask
	}
	f.count++
	return present
}

// block returns the 512-bit block of h in a Blocked filter. The array
// conversion lets the compiler drop bounds checks in the probe loops.
func (f *Filter) block(h hashing.Hash128) *[8]uint64 {
	i := hashing.Block(h, f.span) * 8
	return (*[8]uint64)(f.words[i : i+8])
}

// containsBlocked picks the probe loop by the array's size and the CPU.
// Each was measured on members and non-members, by precomputed hash and by
// string key, from 10^5 to 2·10^7 keys at p = 1% (docs/BENCHMARKS.md):
//
//   - In cache, blockAllSet: an early exit costs a misprediction on almost
//     every non-member (they leave after one to k probes at random), and
//     testing all k bits without a branch is up to twice as fast on them
//     and as fast on members. By hash it matched or beat the AVX-512 form
//     there (12.6 against 16.4 ns in one run, within the noise in
//     another).
//   - Beyond, blockAllSetAVX512 where the CPU has it: the block's load
//     leaves at once, and one predictable branch per sixteen probes
//     lets the CPU run ahead into the next queries (by hash at 2·10^7 keys: 41
//     against 82 ns per member, 47 against 60 per non-member).
//   - Without AVX-512, blockHas out of cache: the predicted exit lets the
//     CPU run ahead while the line is on its way, which the branch-free
//     loop's longer chain does not (56 against 80 ns per non-member);
//     the two were even at 4·10^6 keys (5 MB).
func (f *Filter) containsBlocked(h hashing.Hash128) bool {
	w := f.block(h)
	switch {
	case f.m <= inCacheBits:
		return blockAllSet(w, h, f.k)
	case hasAVX512:
		return blockAllSetAVX512(w, h.Lo, h.Hi, f.k)
	case f.m <= branchFreeBits:
		return blockAllSet(w, h, f.k)
	}
	return blockHas(w, h, f.k)
}

const (
	// inCacheBits is the largest Blocked filter (512 KiB) queried with
	// blockAllSet whatever the CPU: measured faster than the AVX-512 form
	// at 125 KB, slower at 1.2 MB.
	inCacheBits = 1 << 22
	// branchFreeBits is the largest Blocked filter (4 MiB) queried with
	// blockAllSet on a CPU without AVX-512, and the largest queried by key
	// with the AVX-512 form where the CPU has it (containsBlockedKeyed).
	branchFreeBits = 1 << 25
)

// blockSet sets h's k probes in its block w. Probe value v picks bit
// v>>55 of the block (Reduce(v, 512), the top nine bits): word v>>61, bit
// v>>55&63 of it. Reading the word straight from the top three bits saves
// an instruction per probe over (v>>55)>>6, and the compiler sees it is
// below 8.
func blockSet(w *[8]uint64, h hashing.Hash128, k int) {
	_ = w[7] // one nil check here, not one per probe
	p := hashing.NewProbes(h)
	var v uint64
	for i := k; i > 0; i-- {
		v, p = p.Advance()
		w[v>>61] |= 1 << (v >> 55 & 63)
	}
}

// blockHas tests h's k probes in its block w one by one and stops at the
// first zero.
func blockHas(w *[8]uint64, h hashing.Hash128, k int) bool {
	_ = w[7]
	p := hashing.NewProbes(h)
	var v uint64
	for i := k; i > 0; i-- {
		v, p = p.Advance()
		if w[v>>61]&(1<<(v>>55&63)) == 0 {
			return false
		}
	}
	return true
}

// blockAllSet is blockHas without a branch per probe: it gathers the
// complements of the k probed bits into one word's low bit. It is the
// in-cache form of the query, and the batch's, whose lines were
// prefetched.
func blockAllSet(w *[8]uint64, h hashing.Hash128, k int) bool {
	_ = w[7]
	p := hashing.NewProbes(h)
	var v, missing uint64
	for i := k; i > 0; i-- {
		v, p = p.Advance()
		missing |= ^w[v>>61] >> (v >> 55 & 63)
	}
	return missing&1 == 0
}

// The loops below copy the filter's fields into locals: Go does not hoist
// loop-invariant loads, and a pointer field reread on every probe costs.

func (f *Filter) addClassic(h hashing.Hash128) {
	words, m := f.words, f.m
	p := hashing.NewProbes(h)
	var v uint64
	for i := f.k; i > 0; i-- {
		v, p = p.Advance()
		b := hashing.Reduce(v, m)
		words[b>>6] |= 1 << (b & 63)
	}
}

func (f *Filter) addPartitioned(h hashing.Hash128) {
	words, m, s := f.words, f.m, f.span
	p := hashing.NewProbes(h)
	var v uint64
	for base := uint64(0); base < m; base += s {
		v, p = p.Advance()
		b := base + hashing.Reduce(v, s)
		words[b>>6] |= 1 << (b & 63)
	}
}

func (f *Filter) addPaged(h hashing.Hash128) {
	words, bb := f.words, f.blockBits
	base := hashing.Block(h, f.span) * bb
	p := hashing.NewProbes(h)
	var v uint64
	for i := f.k; i > 0; i-- {
		v, p = p.Advance()
		b := base + hashing.Reduce(v, bb)
		words[b>>6] |= 1 << (b & 63)
	}
}

// containsRange is ContainsHash for the layouts whose probes fall on
// several lines (Classic, Partitioned, Paged) under the default scheme:
// probe i is at base + i·step + Reduce(v_i, r) (Geometry.ProbeRange).
//
// It reads the words of the first two probes before testing either. About
// half of a filter's bits are set, so a non-member has one of its first
// two bits clear three times in four and leaves after the pair; testing
// probe by probe, it leaves after the first probe or the second at random,
// a branch the CPU mispredicts about half the time, and each misprediction
// costs as much as an in-cache query's probes. (Reading four words first
// cost a non-member more loads than it saved: 13% slower than the pair at
// 2·10^7 keys, classic layout.) By string key, medians of 31 interleaved
// rounds of the same keys, against the probe-by-probe loop, in the three
// layouts at p = 1%: at 10^5 keys (in cache) non-members 17–31% faster,
// members the same (±3%); at 2·10^7 (out of cache) non-members 5–8%
// faster, members the same.
func (f *Filter) containsRange(h hashing.Hash128) bool {
	words, k := f.words, f.k
	base, step, r := f.ProbeRange(h)
	p := hashing.NewProbes(h)
	var v, w uint64
	if k >= 2 {
		v, p = p.Advance()
		w, p = p.Advance()
		b0 := base + hashing.Reduce(v, r)
		b1 := base + step + hashing.Reduce(w, r)
		if words[b0>>6]>>(b0&63)&(words[b1>>6]>>(b1&63))&1 == 0 {
			return false
		}
		base += 2 * step
		k -= 2
	}
	for ; k > 0; k-- {
		v, p = p.Advance()
		b := base + hashing.Reduce(v, r)
		base += step
		if words[b>>6]&(1<<(b&63)) == 0 {
			return false
		}
	}
	return true
}

func (f *Filter) addLocated(h hashing.Hash128) {
	var buf [params.MaxK]uint64
	for _, b := range f.locate(h, &buf) {
		f.words[b>>6] |= 1 << (b & 63)
	}
}

func (f *Filter) containsLocated(h hashing.Hash128) bool {
	var buf [params.MaxK]uint64
	for _, b := range f.locate(h, &buf) {
		if f.words[b>>6]&(1<<(b&63)) == 0 {
			return false
		}
	}
	return true
}
