package hashing

import (
	"bufio"
	"encoding/hex"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/zeebo/xxh3"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

// The XXH3-128 reference value of the empty input with seed 0
// (xxhsum -H2 of an empty file: 99aa06d3014798d86001c324468d497f).
func TestSumEmptyMatchesReference(t *testing.T) {
	got := Sum(nil)
	want := Hash128{Hi: 0x99aa06d3014798d8, Lo: 0x6001c324468d497f}
	if got != want {
		t.Fatalf("Sum(nil) = %#x, want %#x", got, want)
	}
}

func TestSumStringMatchesSum(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 300; n++ {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		seed := r.Uint64()
		if SumSeed(b, seed) != SumStringSeed(string(b), seed) {
			t.Fatalf("length %d: SumSeed and SumStringSeed differ", n)
		}
	}
	if Sum([]byte("x")) == SumSeed([]byte("x"), 1) {
		t.Fatal("the seed does not change the hash")
	}
}

func TestProbesMatchClosedForm(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 1000; trial++ {
		h := Hash128{Lo: r.Uint64(), Hi: r.Uint64()}
		p, q := NewProbes(h), NewProbes(h)
		var v uint64
		for i := 0; i < 64; i++ {
			if got, want := p.Next(), ProbeValue(h, i); got != want {
				t.Fatalf("probe %d of %#x: incremental %#x, closed form %#x", i, h, got, want)
			}
			if v, q = q.Advance(); v != ProbeValue(h, i) {
				t.Fatalf("probe %d of %#x: Advance %#x, closed form %#x", i, h, v, ProbeValue(h, i))
			}
		}
	}
}

func TestReduceHalves(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 100000; trial++ {
		x, n := r.Uint64(), 2*(1+r.Uint64N(1<<40))
		if Reduce(x, n/2) != Reduce(x, n)/2 {
			t.Fatalf("Reduce(%#x, %d/2) != Reduce(%#x, %d)/2", x, n, x, n)
		}
		if v := Reduce(x, n); v >= n {
			t.Fatalf("Reduce(%#x, %d) = %d out of range", x, n, v)
		}
	}
}

func TestReduceIsUniform(t *testing.T) {
	// Chi-squared over 97 buckets (a prime, not a power of two) with
	// XXH3-hashed sequential keys; df = 96, the 99.99% point is about 155.
	const buckets, keys = 97, 97 * 2000
	var counts [buckets]int
	for i := 0; i < keys; i++ {
		counts[Reduce(SumString(strconv.Itoa(i)).Lo, buckets)]++
	}
	checkUniform(t, counts[:])
}

// checkUniform fails t unless counts, over 97 buckets, pass a
// chi-squared test: df = 96, the 99.99% point is about 155.
func checkUniform(t *testing.T, counts []int) {
	t.Helper()
	keys := 0
	for _, c := range counts {
		keys += c
	}
	want := float64(keys) / float64(len(counts))
	chi := 0.0
	for _, c := range counts {
		d := float64(c) - want
		chi += d * d / want
	}
	if len(counts) != 97 || chi > 155 {
		t.Fatalf("chi-squared %.1f over %d buckets (want 97, at most 155)", chi, len(counts))
	}
}

// TestSum64 checks the XXH3x64 key hash: Lo is XXH3-64 (the byte and
// string forms agree), and the blocks chosen from the derived Hi are
// uniform (chi-squared over 97 blocks, as for the default scheme above).
func TestSum64(t *testing.T) {
	const keys, buckets = 200000, 97
	counts := make([]int, buckets)
	for i := range keys {
		key := "http://www.example.com/" + strconv.Itoa(i)
		h := SumString64Seed(key, uint64(i%3))
		if h != Sum64Seed([]byte(key), uint64(i%3)) || h.Lo != xxh3.HashStringSeed(key, uint64(i%3)) {
			t.Fatalf("key %q: %+v", key, h)
		}
		counts[Block(h, buckets)]++
	}
	checkUniform(t, counts)
}

func TestLookup(t *testing.T) {
	s, err := Lookup(XXH3)
	if err != nil || s.ID() != XXH3 {
		t.Fatalf("Lookup(XXH3) = %v, %v", s, err)
	}
	if s, err := Lookup(XXH3x64); err != nil || s != Fast64 || s.ID() != XXH3x64 {
		t.Fatalf("Lookup(XXH3x64) = %v, %v", s, err)
	}
	if _, err := Lookup(200); err == nil || !strings.HasPrefix(err.Error(), "hashing: ") {
		t.Fatalf("Lookup(200) error = %v", err)
	}
}

// vectorRow is one line of testdata/vectors.tsv.
type vectorRow struct {
	key       []byte
	seed      uint64
	h         Hash128
	m         uint64
	k         int
	positions []uint64
	nblocks   uint64
	block     uint64
}

func goldenKeys() [][]byte {
	keys := [][]byte{nil, []byte("a"), []byte("abc"), []byte("http://www.example.com/"),
		[]byte("http://www.example.com/index.html?q=bloom+filter&lang=en")}
	long := make([]byte, 300)
	for i := range long {
		long[i] = byte(i)
	}
	return append(keys, long[:16], long[:17], long[:128], long[:129], long[:240], long[:241], long)
}

func makeVectors(scheme Scheme) []vectorRow {
	var rows []vectorRow
	shapes := []struct {
		m       uint64
		k       int
		nblocks uint64
	}{{1, 1, 1}, {64, 3, 2}, {1000, 7, 17}, {1 << 20, 10, 1 << 11}, {9585059, 7, 18721}, {1<<40 + 3, 16, 1<<31 - 1}}
	seeds := []uint64{0, 1, 0x9E3779B97F4A7C15}
	for _, key := range goldenKeys() {
		for _, seed := range seeds {
			for _, s := range shapes {
				h := scheme.Sum(key, seed)
				pos := make([]uint64, s.k)
				p := NewProbes(h)
				for i := range pos {
					pos[i] = Reduce(p.Next(), s.m)
				}
				rows = append(rows, vectorRow{key, seed, h, s.m, s.k, pos, s.nblocks, Block(h, s.nblocks)})
			}
		}
	}
	return rows
}

const vectorsHeader = "# bloomcast hashing golden vectors (docs/FORMAT.md, \"Hashing\").\n" +
	"# key_hex\tseed\thash_lo\thash_hi\tm\tk\tpositions\tnblocks\tblock\n"

func formatVector(r vectorRow) string {
	pos := make([]string, len(r.positions))
	for i, p := range r.positions {
		pos[i] = strconv.FormatUint(p, 10)
	}
	return fmt.Sprintf("%s\t%d\t%016x\t%016x\t%d\t%d\t%s\t%d\t%d\n", hex.EncodeToString(r.key), r.seed,
		r.h.Lo, r.h.Hi, r.m, r.k, strings.Join(pos, ","), r.nblocks, r.block)
}

// TestGoldenVectors pins each scheme's key hash, probe derivation and
// block choice. Run with -update only when the wire contract deliberately
// changes (and bump the format version).
func TestGoldenVectors(t *testing.T) {
	for _, c := range []struct {
		path   string
		scheme Scheme
	}{{"testdata/vectors.tsv", Default}, {"testdata/vectors-xxh3x64.tsv", Fast64}} {
		var want strings.Builder
		want.WriteString(vectorsHeader)
		for _, r := range makeVectors(c.scheme) {
			want.WriteString(formatVector(r))
		}
		if *update {
			if err := os.WriteFile(c.path, []byte(want.String()), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		f, err := os.Open(c.path)
		if err != nil {
			t.Fatal(err)
		}
		checkVectorFile(t, bufio.NewScanner(f), c.scheme)
		f.Close()
	}
}

// checkVectorFile recomputes every row from its inputs alone, as a program
// in another language would.
func checkVectorFile(t *testing.T, sc *bufio.Scanner, scheme Scheme) {
	rows := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 9 {
			t.Fatalf("bad row %q", line)
		}
		key, _ := hex.DecodeString(f[0])
		seed, _ := strconv.ParseUint(f[1], 10, 64)
		m, _ := strconv.ParseUint(f[4], 10, 64)
		k, _ := strconv.Atoi(f[5])
		nblocks, _ := strconv.ParseUint(f[7], 10, 64)
		h := scheme.Sum(key, seed)
		pos := make([]string, k)
		for i := range pos {
			pos[i] = strconv.FormatUint(scheme.Probe(h, i, m), 10)
		}
		got := fmt.Sprintf("%016x\t%016x\t%s\t%d", h.Lo, h.Hi, strings.Join(pos, ","), scheme.Block(h, nblocks))
		want := strings.Join([]string{f[2], f[3], f[6], f[8]}, "\t")
		if got != want {
			t.Errorf("key %q seed %d m %d k %d:\n got %s\nwant %s", f[0], seed, m, k, got, want)
		}
		rows++
	}
	if rows < 100 {
		t.Fatalf("only %d vector rows", rows)
	}
}

func BenchmarkSumString45(b *testing.B) {
	key := "http://www.example.com/path/to/object-000001"
	b.SetBytes(int64(len(key)))
	var sink Hash128
	for b.Loop() {
		sink = SumString(key)
	}
	_ = sink
}

// A key whose step is (nearly) zero must still spread its probes over a
// 512-bit block; plain double hashing would put all of them on one bit.
func TestDegenerateStepStillSpreads(t *testing.T) {
	inv := uint64(0) // the multiplicative inverse of StepMultiplier mod 2^64
	for x := uint64(1); ; {
		// Newton's iteration for the inverse of an odd number.
		x *= 2 - StepMultiplier*x
		if x*StepMultiplier == 1 {
			inv = x
			break
		}
	}
	for _, step := range []uint64{0, 1, 1 << 63, 1<<64 - 1, 1 << 55} {
		h := Hash128{Lo: 12345, Hi: step * inv}
		seen := map[uint64]bool{}
		p := NewProbes(h)
		for i := 0; i < 8; i++ {
			seen[Reduce(p.Next(), 512)] = true
		}
		if len(seen) < 7 {
			t.Errorf("step %#x: only %d distinct positions of 8 in a 512-bit block", step, len(seen))
		}
	}
}

// Within a 512-bit block the k probes of random keys must collide with each
// other no more often than k independent uniform positions would.
func TestDistinctProbesWithinBlock(t *testing.T) {
	const k, B, keys = 8, 512, 200000
	total := 0
	for n := 0; n < keys; n++ {
		p := NewProbes(SumString(strconv.Itoa(n)))
		var seen [B / 64]uint64
		for i := 0; i < k; i++ {
			b := Reduce(p.Next(), B)
			if seen[b>>6]&(1<<(b&63)) == 0 {
				total++
			}
			seen[b>>6] |= 1 << (b & 63)
		}
	}
	// Expected distinct positions of k uniform probes: B·(1 − (1 − 1/B)^k).
	mean := float64(total) / keys
	if mean < 7.94 {
		t.Fatalf("mean distinct probes %.4f, independent probes give 7.9454", mean)
	}
}

func TestCountDistinct(t *testing.T) {
	hs := []Hash128{{Hi: 3, Lo: 1}, {Hi: 1, Lo: 1}, {Hi: 3, Lo: 2}, {Hi: 2}}
	if n := CountDistinct(hs); n != 3 {
		t.Errorf("CountDistinct: %d, want 3 (two hashes share their high half)", n)
	}
	if n := CountDistinct(nil); n != 0 {
		t.Errorf("CountDistinct(nil): %d", n)
	}
	if hs[0] != (Hash128{Hi: 3, Lo: 1}) {
		t.Error("CountDistinct reordered its argument")
	}
}
