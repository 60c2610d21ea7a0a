package bloomier

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/bloomcast/bloomcast/hashing"
)

func key(i int) string { return fmt.Sprintf("key-%d", i) }

// entries returns n keys and random values of r bits, from a fixed seed.
func entries(n, r int, seed uint64) ([]string, []uint64) {
	rng := rand.New(rand.NewPCG(seed, 99))
	keys, values := make([]string, n), make([]uint64, n)
	for i := range n {
		keys[i] = key(i)
		values[i] = rng.Uint64() >> (64 - r)
	}
	return keys, values
}

func mustBuild(t testing.TB, c Config, keys []string, values []uint64) *Filter {
	t.Helper()
	f, err := BuildStrings(c, keys, values)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestConfig(t *testing.T) {
	bad := []Config{
		{ValueBits: -1},
		{ValueBits: 65},
		{ValueBits: 8, CheckBits: -1},
		{ValueBits: 8, CheckBits: 57},
		{ValueBits: 64, CheckBits: 63, Updatable: true},
		{ValueBits: 8, MaxAttempts: -1},
		// The sum ValueBits + CheckBits overflows int.
		{ValueBits: 8, CheckBits: math.MaxInt},
		{CheckBits: math.MaxInt},
	}
	for _, c := range bad {
		if _, err := BuildStrings(c, []string{"a"}, []uint64{1}); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: %v, want ErrConfig", c, err)
		}
	}
	if _, err := BuildStrings(Config{ValueBits: 8}, []string{"a"}, nil); !errors.Is(err, ErrConfig) {
		t.Errorf("length mismatch: %v", err)
	}
	_, err := BuildStrings(Config{ValueBits: 4}, []string{"a", "b"}, []uint64{3, 16})
	if !errors.Is(err, ErrValue) {
		t.Errorf("value of 5 bits in 4: %v", err)
	}
}

// TestValueBitsOfValues checks that ValueBits 0 takes the width of the
// widest value, and that a *ValueError names the widest entry.
func TestValueBitsOfValues(t *testing.T) {
	for _, c := range []struct {
		values []uint64
		bits   int
	}{
		{nil, 1},
		{[]uint64{0, 0}, 1},
		{[]uint64{1, 300, 7}, 9},
		{[]uint64{1 << 63, 1}, 64},
	} {
		keys := make([]string, len(c.values))
		for i := range keys {
			keys[i] = fmt.Sprint("k", i)
		}
		f, err := BuildStrings(Config{}, keys, c.values)
		if err != nil {
			t.Fatalf("%v: %v", c.values, err)
		}
		if f.ValueBits() != c.bits {
			t.Errorf("%v: %d bits, want %d", c.values, f.ValueBits(), c.bits)
		}
		for i, k := range keys {
			if v, ok := f.GetString(k); !ok || v != c.values[i] {
				t.Errorf("%v: %s = %d, %v", c.values, k, v, ok)
			}
		}
	}
	if _, err := BuildStrings(Config{CheckBits: 60}, []string{"a"}, []uint64{300}); !errors.Is(err, ErrConfig) {
		t.Errorf("9 + 60 bits static: %v, want ErrConfig", err)
	}
	_, err := BuildStrings(Config{ValueBits: 8}, []string{"a", "b", "c", "d"}, []uint64{256, 1, 1000, 1000})
	var ve *ValueError
	if !errors.As(err, &ve) || !errors.Is(err, ErrValue) || *ve != (ValueError{Index: 2, Value: 1000, Bits: 10, ValueBits: 8}) {
		t.Errorf("values 256, 1, 1000, 1000 in 8 bits: %v", err)
	}
}

// TestLayout checks the table size: at most 1.23n + 35 cells, and about
// 1.13n for a million keys.
func TestLayout(t *testing.T) {
	for _, n := range []uint64{0, 1, 2, 10, 1000, 10_000, 100_000, 1_000_000, 10_000_000, MaxKeys} {
		l, s := layout(n)
		cells := (s + 2) * l
		if cells > n*123/100+35 || cells < n {
			t.Errorf("n = %d: %d cells (%d windows of %d)", n, cells, s, l)
		}
	}
	l, s := layout(1_000_000)
	if got := float64((s+2)*l) / 1e6; got > 1.135 {
		t.Errorf("a million keys take %.4f cells per key", got)
	}
}

func TestGetReturnsValues(t *testing.T) {
	configs := []Config{
		{ValueBits: 8, CheckBits: 8, Seed: 1},
		{ValueBits: 1},
		{ValueBits: 64},
		{ValueBits: 20, CheckBits: 44, Seed: 2},
		{ValueBits: 64, CheckBits: 62, Updatable: true},
		{ValueBits: 5, Updatable: true, Seed: 3},
		{ValueBits: 13, CheckBits: 7, Updatable: true, Seed: 4},
	}
	for _, c := range configs {
		for _, n := range []int{0, 1, 2, 10, 1000, 30_000} {
			keys, values := entries(n, c.ValueBits, uint64(n))
			f := mustBuild(t, c, keys, values)
			for i, k := range keys {
				if v, ok := f.GetString(k); !ok || v != values[i] {
					t.Fatalf("%+v, n = %d: key %d gives %d, %v; want %d", c, n, i, v, ok, values[i])
				}
			}
			if f.Len() != uint64(n) {
				t.Fatalf("Len %d, want %d", f.Len(), n)
			}
		}
	}
}

// TestFalsePositiveRate measures the check with fixed seeds: 50 000 keys,
// 400 000 absent keys, within five standard deviations of 2^−c (static)
// and (3/4)·2^−c (updatable).
func TestFalsePositiveRate(t *testing.T) {
	const n, q = 50_000, 400_000
	for _, c := range []Config{{ValueBits: 8, CheckBits: 8, Seed: 5}, {ValueBits: 3, CheckBits: 6, Updatable: true, Seed: 6}} {
		keys, values := entries(n, c.ValueBits, 7)
		f := mustBuild(t, c, keys, values)
		hits := 0
		for i := n; i < n+q; i++ {
			if _, ok := f.GetString(key(i)); ok {
				hits++
			}
		}
		p := f.FalsePositiveRate()
		sigma := math.Sqrt(q * p * (1 - p))
		if d := math.Abs(float64(hits) - q*p); d > 5*sigma {
			t.Errorf("%+v: %d false positives of %d, expected %.0f ± %.0f", c, hits, q, q*p, sigma)
		}
		t.Logf("check %d, updatable %v: measured %.5f, bound %.5f", c.CheckBits, c.Updatable, float64(hits)/q, p)
	}
}

// TestSpace checks the size per key against 1.23·(r + c) at 200 000 keys.
func TestSpace(t *testing.T) {
	keys, values := entries(200_000, 8, 8)
	f := mustBuild(t, Config{ValueBits: 8, CheckBits: 8}, keys, values)
	if bound := 1.23 * 16; f.BitsPerKey() > bound {
		t.Errorf("%.3f bits per key, above 1.23·(r + c) = %.2f", f.BitsPerKey(), bound)
	}
	u := mustBuild(t, Config{ValueBits: 8, CheckBits: 8, Updatable: true}, keys, values)
	if bound := 1.23 * 18; u.BitsPerKey() > bound || u.CellBits() != 18 {
		t.Errorf("updatable: %.3f bits per key, above 1.23·(r + c + 2) = %.2f", u.BitsPerKey(), bound)
	}
	t.Logf("static %.3f, updatable %.3f bits per key", f.BitsPerKey(), u.BitsPerKey())
}

func TestUpdate(t *testing.T) {
	keys, values := entries(5000, 12, 9)
	f := mustBuild(t, Config{ValueBits: 12, CheckBits: 20, Updatable: true}, keys, values)
	for i := 0; i < len(keys); i += 2 {
		values[i] ^= 0xabc
		if err := f.UpdateString(keys[i], values[i]); err != nil {
			t.Fatal(err)
		}
	}
	for i, k := range keys {
		if v, ok := f.GetString(k); !ok || v != values[i] {
			t.Fatalf("key %d: %d, %v; want %d", i, v, ok, values[i])
		}
	}
	if err := f.UpdateString("absent", 1); !errors.Is(err, ErrAbsent) {
		t.Errorf("updating an absent key: %v", err)
	}
	if err := f.UpdateString(keys[1], 1<<12); !errors.Is(err, ErrValue) {
		t.Errorf("updating with a 13-bit value: %v", err)
	}
	s := mustBuild(t, Config{ValueBits: 12}, keys, values)
	if err := s.UpdateString(keys[0], 1); !errors.Is(err, ErrStatic) {
		t.Errorf("updating a static filter: %v", err)
	}
}

// TestUpdateHashes: all or nothing; a refused batch leaves every value
// as it was.
func TestUpdateHashes(t *testing.T) {
	keys, values := entries(3000, 10, 4)
	f := mustBuild(t, Config{ValueBits: 10, CheckBits: 30, Updatable: true}, keys, values)
	hs := []hashing.Hash128{f.HashString(keys[0]), f.HashString("absent-1"), f.HashString(keys[5]), f.HashString("absent-2")}
	absent, err := f.UpdateHashes(hs, []uint64{1, 2, 3, 4})
	if !errors.Is(err, ErrAbsent) || !slices.Equal(absent, []int{1, 3}) {
		t.Fatalf("absent keys: %v, %v", absent, err)
	}
	for _, i := range []int{0, 5} {
		if v, _ := f.GetString(keys[i]); v != values[i] {
			t.Errorf("a refused batch changed key %d: %d, want %d", i, v, values[i])
		}
	}
	if _, err := f.UpdateHashes(hs[:1], []uint64{1 << 10}); !errors.Is(err, ErrValue) {
		t.Errorf("an 11-bit value: %v", err)
	}
	if _, err := f.UpdateHashes(hs, nil); !errors.Is(err, ErrConfig) {
		t.Errorf("lengths differ: %v", err)
	}
	hs = []hashing.Hash128{f.HashString(keys[0]), f.HashString(keys[7]), f.HashString(keys[0])}
	if absent, err := f.UpdateHashes(hs, []uint64{1, 2, 3}); err != nil || absent != nil {
		t.Fatalf("keys of the set: %v, %v", absent, err)
	}
	if a, _ := f.GetString(keys[0]); a != 3 {
		t.Errorf("key 0 = %d, want the last value, 3", a)
	}
	if b, _ := f.GetString(keys[7]); b != 2 {
		t.Errorf("key 7 = %d, want 2", b)
	}
	s := mustBuild(t, Config{ValueBits: 10}, keys, values)
	if _, err := s.UpdateHashes(hs, []uint64{1, 2, 3}); !errors.Is(err, ErrStatic) {
		t.Errorf("a static filter: %v", err)
	}
}

func TestDuplicates(t *testing.T) {
	f, err := BuildStrings(Config{ValueBits: 8, CheckBits: 8}, []string{"a", "b", "a", "c", "a"}, []uint64{1, 2, 1, 3, 1})
	if err != nil || f.Len() != 3 {
		t.Fatalf("repeats with equal values: %v", err)
	}
	for k, want := range map[string]uint64{"a": 1, "b": 2, "c": 3} {
		if v, ok := f.GetString(k); !ok || v != want {
			t.Errorf("%s = %d, %v", k, v, ok)
		}
	}
	_, err = BuildStrings(Config{ValueBits: 8}, []string{"x", "a", "b", "a"}, []uint64{0, 1, 2, 5})
	var ce *ConflictError
	if !errors.Is(err, ErrConflict) || !errors.As(err, &ce) || ce.First != 1 || ce.Second != 3 {
		t.Fatalf("conflicting repeats: %v", err)
	}
}

// TestBuildGivesUp forces a table too small to peel: construction must stop
// after MaxAttempts salts with ErrBuild.
func TestBuildGivesUp(t *testing.T) {
	keys, values := entries(100, 4, 10)
	hs := make([]hashing.Hash128, len(keys))
	for i, k := range keys {
		hs[i] = hashing.SumStringSeed(k, 0)
	}
	_, err := build(Config{ValueBits: 4, MaxAttempts: 5}, hs, values, 10, 3)
	if !errors.Is(err, ErrBuild) {
		t.Fatalf("error %v, want ErrBuild", err)
	}
	t.Log(err)
}

func TestQueriesDoNotAllocate(t *testing.T) {
	keys, values := entries(1000, 10, 11)
	f := mustBuild(t, Config{ValueBits: 10, CheckBits: 10, Updatable: true}, keys, values)
	h := f.HashString(keys[3])
	if a := testing.AllocsPerRun(100, func() { f.GetHash(h); f.UpdateHash(h, 7) }); a != 0 {
		t.Errorf("%v allocations per Get and Update", a)
	}
}

// TestSmallSets builds every size up to 300 keys, where the layouts are
// at their tightest relative to n.
func TestSmallSets(t *testing.T) {
	for n := range 301 {
		keys, values := entries(n, 4, uint64(n)+100)
		f := mustBuild(t, Config{ValueBits: 4, CheckBits: 4, Seed: uint64(n)}, keys, values)
		for i, k := range keys {
			if v, ok := f.GetString(k); !ok || v != values[i] {
				t.Fatalf("n = %d: key %d gives %d, %v", n, i, v, ok)
			}
		}
	}
}

// TestConcurrentGet checks the Filter's documented claim that Get is safe
// for concurrent use, static and updatable (run with -race).
func TestConcurrentGet(t *testing.T) {
	keys := make([]string, 1000)
	values := make([]uint64, len(keys))
	for i := range keys {
		keys[i], values[i] = key(i), uint64(i)
	}
	for _, updatable := range []bool{false, true} {
		f, err := BuildStrings(Config{Updatable: updatable}, keys, values)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i, k := range keys {
					if v, ok := f.GetString(k); !ok || v != values[i] {
						t.Errorf("updatable %v: Get(%q) = %d, %v; want %d", updatable, k, v, ok, values[i])
						return
					}
				}
			}()
		}
		wg.Wait()
	}
}
