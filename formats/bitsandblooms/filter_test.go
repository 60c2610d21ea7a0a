package bitsandblooms

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// key spells crosscheck's test keys: prefix, i in decimal, i%17 filler bytes.
func key(prefix string, i int) []byte {
	k := []byte(fmt.Sprintf("%s%d", prefix, i))
	for j := 0; j < i%17; j++ {
		k = append(k, byte('a'+j))
	}
	return k
}

// goldens were written by the real bloom/v3 (crosscheck's TestGolden
// -update): keys key("in", i), i < n, added to bloom.New(m, k).
var goldens = []struct {
	name string
	m, k uint64
	n    int
}{
	{"m1000-k7-n100", 1000, 7, 100},
	{"m64-k4-n6", 64, 4, 6},
	{"m8191-k5-n800", 8191, 5, 800},
}

// TestGolden decodes files written by bloom/v3 and checks that adding the
// same keys to New(m, k) gives the same bytes, binary and JSON, and that
// every added key tests present.
func TestGolden(t *testing.T) {
	for _, g := range goldens {
		bin, err := os.ReadFile(filepath.Join("testdata", g.name+".bin"))
		if err != nil {
			t.Fatal(err)
		}
		js, err := os.ReadFile(filepath.Join("testdata", g.name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		fromBin, err := Decode(bin)
		if err != nil {
			t.Fatalf("%s: %v", g.name, err)
		}
		fromJSON, err := DecodeJSON(js)
		if err != nil {
			t.Fatalf("%s: %v", g.name, err)
		}
		if Sniff(bin) != "binary" || Sniff(js) != "json" {
			t.Errorf("%s: Sniff says %q and %q", g.name, Sniff(bin), Sniff(js))
		}
		built, err := New(g.m, g.k)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < g.n; i++ {
			built.Add(key("in", i))
		}
		for i := 0; i < g.n; i++ {
			if !fromBin.Test(key("in", i)) || !fromJSON.Test(key("in", i)) {
				t.Fatalf("%s: added key %q tests absent", g.name, key("in", i))
			}
		}
		if b, _ := built.MarshalBinary(); !bytes.Equal(b, bin) {
			t.Errorf("%s: our binary for the same keys differs from bloom/v3's", g.name)
		}
		if j, _ := built.MarshalJSON(); !bytes.Equal(j, js) {
			t.Errorf("%s: our JSON for the same keys differs from bloom/v3's:\n%s\n%s", g.name, j, js)
		}
		if fromBin.M() != g.m || fromBin.K() != g.k || fromBin.Ones() != built.Ones() {
			t.Errorf("%s: m=%d k=%d ones=%d, want %d %d %d", g.name, fromBin.M(), fromBin.K(), fromBin.Ones(), g.m, g.k, built.Ones())
		}
	}
}

// TestFalsePositiveRate checks that absent keys test present at about
// the rate theory gives: a wrong location function would not.
func TestFalsePositiveRate(t *testing.T) {
	const n, m, k = 1000, 9586, 7 // p = 1% by the usual estimate
	f, _ := New(m, k)
	for i := 0; i < n; i++ {
		f.Add(key("in", i))
	}
	fp := 0
	for i := 0; i < 100000; i++ {
		if f.Test(key("out", i)) {
			fp++
		}
	}
	if fp < 500 || fp > 1600 {
		t.Errorf("%d false positives in 100000, want about 1000", fp)
	}
}

func header(m, k, length uint64) []byte {
	b := binary.BigEndian.AppendUint64(nil, m)
	b = binary.BigEndian.AppendUint64(b, k)
	return binary.BigEndian.AppendUint64(b, length)
}

// TestHostile checks that malformed input gives a one-line ErrCorrupt,
// without a panic or an allocation larger than the input.
func TestHostile(t *testing.T) {
	cases := map[string][]byte{
		"empty":            nil,
		"short header":     make([]byte, 20),
		"m zero":           header(0, 3, 0),
		"k zero":           append(header(64, 0, 64), make([]byte, 8)...),
		"k huge":           append(header(64, 1<<40, 64), make([]byte, 8)...),
		"claims 2^40 bits": header(1<<40, 3, 1<<40),
		"claims 2^63 bits": header(1<<63, 3, 1<<63),
		"length != m":      append(header(64, 3, 128), make([]byte, 16)...),
		"truncated words":  append(header(1000, 3, 1000), make([]byte, 120)...),
		"trailing bytes":   append(header(64, 3, 64), make([]byte, 9)...),
		"json bad base64":  []byte(`{"m":64,"k":3,"b":"!!"}`),
		"json missing b":   []byte(`{"m":64,"k":3}`),
		"json negative m":  []byte(`{"m":-1,"k":3,"b":""}`),
	}
	for name, data := range cases {
		var err error
		if strings.HasPrefix(name, "json") {
			_, err = DecodeJSON(data)
		} else {
			_, err = Decode(data)
		}
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: err = %v, want ErrCorrupt", name, err)
			continue
		}
		if msg := err.Error(); !strings.HasPrefix(msg, "bitsandblooms: ") || strings.Contains(msg, "\n") {
			t.Errorf("%s: error %q is not one package-prefixed line", name, msg)
		}
	}
	// Rejecting a header that claims 2^40 bits (128 GiB) must not allocate
	// for them. Bytes rather than allocation counts: the race detector
	// adds allocations of its own.
	hostile := header(1<<40, 3, 1<<40)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 10 {
		_, _ = Decode(hostile)
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("rejecting a 2^40-bit header 10 times allocated %d bytes", n)
	}
}

func TestNewValidates(t *testing.T) {
	for _, c := range [][2]uint64{{0, 1}, {1, 0}, {MaxBits + 1, 1}, {64, MaxK + 1}} {
		if _, err := New(c[0], c[1]); !errors.Is(err, ErrConfig) {
			t.Errorf("New(%d, %d): err = %v, want ErrConfig", c[0], c[1], err)
		}
	}
}

// TestEmptyM1 covers bloom.New(0, k), which writes m=1 with an empty
// bitset that grows to one bit on the first Add.
func TestEmptyM1(t *testing.T) {
	f, err := Decode(header(1, 1, 0))
	if err != nil {
		t.Fatal(err)
	}
	if f.Test([]byte("x")) {
		t.Fatal("empty filter tests present")
	}
	f.Add([]byte("x"))
	if !f.Test([]byte("x")) {
		t.Fatal("added key tests absent")
	}
	want := append(header(1, 1, 1), 0, 0, 0, 0, 0, 0, 0, 1)
	if got, _ := f.MarshalBinary(); !bytes.Equal(got, want) {
		t.Errorf("got %x, want %x", got, want)
	}
}

// FuzzDecode feeds arbitrary bytes to both decoders: no panic, and what
// decodes re-encodes to the same binary form.
func FuzzDecode(f *testing.F) {
	for _, g := range goldens {
		for _, ext := range []string{".bin", ".json"} {
			if b, err := os.ReadFile(filepath.Join("testdata", g.name+ext)); err == nil {
				f.Add(b)
			}
		}
	}
	f.Add(header(1, 1, 0))
	f.Add(header(1<<40, 3, 1<<40))
	f.Fuzz(func(t *testing.T, data []byte) {
		if g, err := Decode(data); err == nil {
			out, _ := g.MarshalBinary()
			if !bytes.Equal(out, data) {
				t.Fatalf("re-encoding changed the bytes")
			}
			g.Add(data)
			if !g.Test(data) {
				t.Fatal("added key tests absent")
			}
		}
		if g, err := DecodeJSON(data); err == nil {
			js, _ := g.MarshalJSON()
			h, err := DecodeJSON(js)
			if err != nil {
				t.Fatalf("our JSON does not decode: %v", err)
			}
			a, _ := g.MarshalBinary()
			b, _ := h.MarshalBinary()
			if !bytes.Equal(a, b) {
				t.Fatal("JSON round trip changed the filter")
			}
		}
		_ = Sniff(data)
	})
}
