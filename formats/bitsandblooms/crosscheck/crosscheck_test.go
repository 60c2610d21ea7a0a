package crosscheck

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/bits-and-blooms/bloom/v3"

	"github.com/bloomcast/bloomcast/formats/bitsandblooms"
)

var update = flag.Bool("update", false, "rewrite ../testdata from the real library")

// key returns the i-th test key: prefix, i in decimal, then i%17 filler
// bytes, so that every MurmurHash3 tail length occurs, and with it the
// 15-byte tail where bloom/v3's appended byte completes a block.
// bitsandblooms' own tests spell the same keys.
func key(prefix string, i int) []byte {
	k := []byte(fmt.Sprintf("%s%d", prefix, i))
	for j := 0; j < i%17; j++ {
		k = append(k, byte('a'+j))
	}
	return k
}

type shape struct{ m, k uint }

var shapes = []shape{{1, 1}, {63, 3}, {64, 4}, {1000, 7}, {8191, 5}, {100003, 10}}

// compare checks that both filters answer alike for the keys in0..in<n-1>,
// out0..out<n-1> and the empty key.
func compare(t *testing.T, name string, theirs *bloom.BloomFilter, ours *bitsandblooms.Filter, n int) {
	t.Helper()
	disagree := 0
	if theirs.Test(nil) != ours.Test(nil) {
		t.Errorf("%s: the empty key: bloom/v3 says %v, bitsandblooms says %v", name, theirs.Test(nil), ours.Test(nil))
	}
	for i := 0; i < n; i++ {
		for _, k := range [][]byte{key("in", i), key("out", i)} {
			if theirs.Test(k) != ours.Test(k) {
				disagree++
				if disagree < 5 {
					t.Errorf("%s: key %q: bloom/v3 says %v, bitsandblooms says %v", name, k, theirs.Test(k), ours.Test(k))
				}
			}
		}
	}
	if disagree > 0 {
		t.Fatalf("%s: %d of %d answers disagree", name, disagree, 2*n)
	}
}

func keysFor(s shape) int { return int(s.m/10) + 1 }

// TestRealToOurs builds filters with bloom/v3 and decodes their binary
// and JSON forms with bitsandblooms: every present and absent key gets
// the same answer, and re-encoding gives the same bytes.
func TestRealToOurs(t *testing.T) {
	for _, s := range shapes {
		name := fmt.Sprintf("m=%d,k=%d", s.m, s.k)
		theirs := bloom.New(s.m, s.k)
		n := keysFor(s)
		for i := 0; i < n; i++ {
			theirs.Add(key("in", i))
		}
		bin, err := theirs.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		ours, err := bitsandblooms.Decode(bin)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		compare(t, name+" binary", theirs, ours, 2*n)
		again, _ := ours.MarshalBinary()
		if !bytes.Equal(again, bin) {
			t.Errorf("%s: re-encoded binary differs", name)
		}

		js, err := json.Marshal(theirs)
		if err != nil {
			t.Fatal(err)
		}
		fromJSON, err := bitsandblooms.DecodeJSON(js)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		compare(t, name+" JSON", theirs, fromJSON, 2*n)
		againJS, _ := fromJSON.MarshalJSON()
		if !bytes.Equal(againJS, js) {
			t.Errorf("%s: re-encoded JSON differs:\n%s\n%s", name, againJS, js)
		}
	}
}

// TestOursToReal builds filters with bitsandblooms from the same keys:
// the bytes are identical to bloom/v3's, bloom/v3 decodes them (binary
// and JSON), and every key gets the same answer.
func TestOursToReal(t *testing.T) {
	for _, s := range append(shapes, shape{0, 0}) {
		name := fmt.Sprintf("m=%d,k=%d", s.m, s.k)
		want := bloom.New(s.m, s.k) // m=0, k=0 become 1, 1 there
		ours, err := bitsandblooms.New(uint64(want.Cap()), uint64(want.K()))
		if err != nil {
			t.Fatal(err)
		}
		if s.m == 0 { // bloom.New(0, k) keeps a bitset of length 0
			ours, err = bitsandblooms.Decode(mustBinary(t, want))
			if err != nil {
				t.Fatal(err)
			}
		}
		n := keysFor(s)
		for i := 0; i < n; i++ {
			want.Add(key("in", i))
			ours.Add(key("in", i))
		}
		bin, _ := ours.MarshalBinary()
		if !bytes.Equal(bin, mustBinary(t, want)) {
			t.Errorf("%s: binary differs from bloom/v3's for the same keys", name)
		}
		var theirs bloom.BloomFilter
		if err := theirs.UnmarshalBinary(bin); err != nil {
			t.Fatalf("%s: bloom/v3 rejects our binary: %v", name, err)
		}
		compare(t, name+" binary", &theirs, ours, 2*n)

		js, _ := ours.MarshalJSON()
		var fromJSON bloom.BloomFilter
		if err := json.Unmarshal(js, &fromJSON); err != nil {
			t.Fatalf("%s: bloom/v3 rejects our JSON: %v", name, err)
		}
		compare(t, name+" JSON", &fromJSON, ours, 2*n)
	}
}

func mustBinary(t *testing.T, f *bloom.BloomFilter) []byte {
	t.Helper()
	b, err := f.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// goldens are the files of ../testdata: each holds the keys key("in", i)
// for i < n, added by bloom/v3.
var goldens = []struct {
	name string
	m, k uint
	n    int
}{
	{"m1000-k7-n100", 1000, 7, 100},
	{"m64-k4-n6", 64, 4, 6},
	{"m8191-k5-n800", 8191, 5, 800},
}

// TestGolden checks that bloom/v3 still writes the committed golden files
// (and rewrites them with -update).
func TestGolden(t *testing.T) {
	for _, g := range goldens {
		f := bloom.New(g.m, g.k)
		for i := 0; i < g.n; i++ {
			f.Add(key("in", i))
		}
		bin := mustBinary(t, f)
		js, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		for ext, data := range map[string][]byte{".bin": bin, ".json": js} {
			path := filepath.Join("..", "testdata", g.name+ext)
			if *update {
				if err := os.WriteFile(path, data, 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			have, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(have, data) {
				t.Errorf("%s: bloom/v3 now writes different bytes (run go test -update)", path)
			}
		}
	}
}

// TestEstimatesMergeFold checks NewWithEstimates against bloom/v3's
// NewWithEstimates, Union against its Merge, and that a folded filter is
// byte for byte the filter bloom/v3 builds at half the size from the same
// keys.
func TestEstimatesMergeFold(t *testing.T) {
	for _, c := range []struct {
		n  uint
		fp float64
	}{{1, 0.5}, {100, 0.01}, {1000, 0.001}, {12345, 0.03}, {1 << 20, 1e-6}} {
		theirs := bloom.NewWithEstimates(c.n, c.fp)
		ours, err := bitsandblooms.NewWithEstimates(uint64(c.n), c.fp)
		if err != nil {
			t.Fatal(err)
		}
		if uint64(theirs.Cap()) != ours.M() || uint64(theirs.K()) != ours.K() {
			t.Errorf("n=%d fp=%v: bloom/v3 m=%d k=%d, bitsandblooms m=%d k=%d", c.n, c.fp, theirs.Cap(), theirs.K(), ours.M(), ours.K())
		}
	}
	for _, s := range []shape{{64, 4}, {1000, 7}, {8192, 5}, {100002, 10}} {
		name := fmt.Sprintf("m=%d,k=%d", s.m, s.k)
		a, b := bloom.New(s.m, s.k), bloom.New(s.m, s.k)
		half := bloom.New(s.m/2, s.k)
		oa, _ := bitsandblooms.New(uint64(s.m), uint64(s.k))
		ob, _ := bitsandblooms.New(uint64(s.m), uint64(s.k))
		n := keysFor(s)
		for i := 0; i < n; i++ {
			a.Add(key("in", i))
			oa.Add(key("in", i))
			b.Add(key("out", i))
			ob.Add(key("out", i))
			half.Add(key("in", i))
			half.Add(key("out", i))
		}
		if err := a.Merge(b); err != nil {
			t.Fatal(err)
		}
		if err := oa.Union(ob); err != nil {
			t.Fatal(err)
		}
		got, _ := oa.MarshalBinary()
		if !bytes.Equal(got, mustBinary(t, a)) {
			t.Errorf("%s: Union differs from bloom/v3's Merge", name)
		}
		if err := oa.Fold(); err != nil {
			t.Fatal(err)
		}
		got, _ = oa.MarshalBinary()
		if !bytes.Equal(got, mustBinary(t, half)) {
			t.Errorf("%s: the folded filter differs from bloom/v3's filter of m=%d with the same keys", name, s.m/2)
		}
	}
}
