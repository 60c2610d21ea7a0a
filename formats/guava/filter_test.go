package guava

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// The keys GuavaCheck.java generates (see its comment).
const golden = 0x9E3779B97F4A7C15

func strKey(present bool, i int) string {
	if !present {
		return "absent-" + strconv.Itoa(i)
	}
	if i%7 == 0 {
		return "present-" + strconv.Itoa(i) + "-é✓𝄞"
	}
	return "present-" + strconv.Itoa(i)
}

func longKey(present bool, i int) int64 {
	v := int64(uint64(i) * golden)
	if !present {
		v++
	}
	return v
}

// answers returns f's answers for n present and a absent keys of kind
// ("str" or "long") as GuavaCheck.java records them: a bitmap, bit j in
// bit j%8 of byte j/8.
func answers(f *Filter, kind string, n, a int) []byte {
	out := make([]byte, (n+a+7)/8)
	for j := 0; j < n+a; j++ {
		present, i := j < n, j
		if !present {
			i = j - n
		}
		var ok bool
		if kind == "str" {
			ok = f.TestString(strKey(present, i))
		} else {
			ok = f.TestLong(longKey(present, i))
		}
		if ok {
			out[j/8] |= 1 << (j % 8)
		}
	}
	return out
}

// fill adds the n present keys of kind.
func fill(f *Filter, kind string, n int) {
	for i := 0; i < n; i++ {
		if kind == "str" {
			f.AddString(strKey(true, i))
		} else {
			f.AddLong(longKey(true, i))
		}
	}
}

// compareAnswers reports every key on which got and want differ, and
// checks that every present key is reported present.
func compareAnswers(t *testing.T, name string, got, want []byte, n, a int) {
	t.Helper()
	bad := 0
	for j := 0; j < n+a; j++ {
		g, w := got[j/8]>>(j%8)&1, want[j/8]>>(j%8)&1
		if j < n && g == 0 {
			t.Errorf("%s: present key %d reported absent", name, j)
		}
		if g != w {
			bad++
			if bad <= 5 {
				t.Errorf("%s: key %d (present=%v): bloomcast %d, Guava %d", name, j, j < n, g, w)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d answers differ from Guava's", name, bad, n+a)
	}
}

// goldenSpec parses a testdata name such as "str-mitz64-n10000-p0.01".
func goldenSpec(t *testing.T, name string) (kind string, s Strategy, n int, fpp float64) {
	t.Helper()
	var strategyName string
	parts := strings.Split(name, "-")
	if len(parts) != 4 {
		t.Fatalf("%s: want KIND-STRATEGY-nN-pFPP", name)
	}
	kind, strategyName = parts[0], parts[1]
	n, err := strconv.Atoi(strings.TrimPrefix(parts[2], "n"))
	if err != nil {
		t.Fatal(err)
	}
	if fpp, err = strconv.ParseFloat(strings.TrimPrefix(parts[3], "p"), 64); err != nil {
		t.Fatal(err)
	}
	s = Murmur128Mitz64
	if strategyName == "mitz32" {
		s = Murmur128Mitz32
	}
	return kind, s, n, fpp
}

// TestGolden decodes the filters Guava wrote (testdata, made by
// crosscheck/generate.sh), answers for their 10^4 present and 10^4 absent
// keys exactly as Guava's mightContain did, and builds byte-identical
// filters from the same keys.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.bin")
	if err != nil || len(files) < 4 {
		t.Fatalf("golden filters: %v %v", files, err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".bin")
		t.Run(name, func(t *testing.T) {
			kind, s, n, fpp := goldenSpec(t, name)
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(strings.TrimSuffix(file, ".bin") + ".answers")
			if err != nil {
				t.Fatal(err)
			}
			f, err := Decode(data)
			if err != nil {
				t.Fatal(err)
			}
			if f.Strategy() != s {
				t.Errorf("strategy %v, want %v", f.Strategy(), s)
			}
			compareAnswers(t, name, answers(f, kind, n, n), want, n, n)

			sized, err := New(int64(n), fpp)
			if err != nil {
				t.Fatal(err)
			}
			if sized.Bits() != f.Bits() || sized.K() != f.K() {
				t.Errorf("New(%d, %v): %d bits, k=%d; Guava %d bits, k=%d", n, fpp, sized.Bits(), sized.K(), f.Bits(), f.K())
			}
			g, err := NewSized(s, int64(f.Bits()), f.K())
			if err != nil {
				t.Fatal(err)
			}
			fill(g, kind, n)
			out, _ := g.MarshalBinary()
			if !bytes.Equal(out, data) {
				t.Errorf("filter built from the same keys differs from Guava's (%d bytes, Guava %d)", len(out), len(data))
			}
		})
	}
}

// TestNewSizesAsGuava checks that New picks the words and k that Guava's
// BloomFilter.create picks (testdata/sizes.txt), and refuses where it
// refuses.
func TestNewSizesAsGuava(t *testing.T) {
	file, err := os.Open("testdata/sizes.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	lines := 0
	for sc.Scan() {
		lines++
		fields := strings.Fields(sc.Text())
		n, _ := strconv.ParseInt(fields[0], 10, 64)
		p, _ := strconv.ParseFloat(fields[1], 64)
		f, err := New(n, p)
		if fields[2] == "error" {
			if !errors.Is(err, ErrConfig) {
				t.Errorf("New(%d, %v) = %v, want ErrConfig as Guava refuses", n, p, err)
			}
			continue
		}
		words, _ := strconv.ParseUint(fields[2], 10, 64)
		k, _ := strconv.Atoi(fields[3])
		if err != nil {
			t.Errorf("New(%d, %v): %v", n, p, err)
			continue
		}
		if f.Bits() != 64*words || f.K() != k {
			t.Errorf("New(%d, %v): %d bits, k=%d; Guava %d bits, k=%d", n, p, f.Bits(), f.K(), 64*words, k)
		}
	}
	if lines < 5 {
		t.Fatalf("sizes.txt has %d lines", lines)
	}
}

func TestNewRefuses(t *testing.T) {
	for _, c := range []struct {
		n int64
		p float64
	}{{-1, 0.01}, {10, 0}, {10, 1}, {10, -0.5}, {10, 2}} {
		if _, err := New(c.n, c.p); !errors.Is(err, ErrConfig) {
			t.Errorf("New(%d, %v) = %v, want ErrConfig", c.n, c.p, err)
		}
	}
	for _, c := range []struct {
		s Strategy
		m int64
		k int
	}{{2, 64, 1}, {1, 0, 1}, {1, 64, 0}, {1, 64, 256}, {0, 64*MaxWords + 1, 3}} {
		if _, err := NewSized(c.s, c.m, c.k); !errors.Is(err, ErrConfig) {
			t.Errorf("NewSized(%d, %d, %d) = %v, want ErrConfig", c.s, c.m, c.k, err)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	for _, s := range []Strategy{Murmur128Mitz32, Murmur128Mitz64} {
		f, err := NewSized(s, 1000, 5)
		if err != nil {
			t.Fatal(err)
		}
		if f.Bits() != 1024 {
			t.Errorf("1000 bits rounded to %d, want 1024", f.Bits())
		}
		f.Add([]byte("bytes"))
		f.AddString("string")
		f.AddLong(-42)
		data, _ := f.MarshalBinary()
		var g Filter
		if err := g.UnmarshalBinary(data); err != nil {
			t.Fatal(err)
		}
		if !g.Test([]byte("bytes")) || !g.TestString("string") || !g.TestLong(-42) {
			t.Errorf("%v: added keys not found after a round trip", s)
		}
		if g.Ones() != f.Ones() || g.Ones() == 0 || g.Ones() > 15 {
			t.Errorf("%v: %d ones after a round trip, %d before", s, g.Ones(), f.Ones())
		}
		if !Sniff(data) || Sniff(data[1:]) {
			t.Errorf("%v: Sniff wrong", s)
		}
	}
}

// TestDecodeErrors: every malformed stream gives one ErrCorrupt line, and
// a header that claims more words than the input holds allocates nothing.
func TestDecodeErrors(t *testing.T) {
	header := func(s, k byte, words int32) []byte {
		return binary.BigEndian.AppendUint32([]byte{s, k}, uint32(words))
	}
	valid := append(header(1, 3, 2), make([]byte, 16)...)
	cases := map[string][]byte{
		"empty":              nil,
		"short header":       valid[:5],
		"strategy 2":         append(header(2, 3, 2), make([]byte, 16)...),
		"strategy -1":        append(header(0xff, 3, 2), make([]byte, 16)...),
		"k 0":                append(header(1, 0, 2), make([]byte, 16)...),
		"0 words":            header(1, 3, 0),
		"negative words":     header(1, 3, -1),
		"2^31-1 words, none": header(1, 3, MaxWords),
		"truncated":          valid[:len(valid)-1],
		"trailing":           append(append([]byte{}, valid...), 0),
	}
	for name, data := range cases {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		f, err := Decode(data)
		runtime.ReadMemStats(&after)
		if !errors.Is(err, ErrCorrupt) || f != nil {
			t.Errorf("%s: Decode = %v, %v; want ErrCorrupt", name, f, err)
			continue
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %q spans lines", name, err)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 64<<10 {
			t.Errorf("%s: Decode allocated %d bytes", name, n)
		}
	}
	if _, err := Decode(valid); err != nil {
		t.Errorf("valid stream: %v", err)
	}
}

func TestStrategyString(t *testing.T) {
	for s, want := range map[Strategy]string{0: "MURMUR128_MITZ_32", 1: "MURMUR128_MITZ_64", 9: "Strategy(9)"} {
		if got := fmt.Sprint(s); got != want {
			t.Errorf("%d: %q, want %q", s, got, want)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, name := range []string{"str-mitz32-n10000-p0.03.bin", "long-mitz64-n10000-p0.01.bin"} {
		if data, err := os.ReadFile(filepath.Join("testdata", name)); err == nil {
			f.Add(data[:min(len(data), 6+8*4)])
		}
	}
	f.Add([]byte{1, 3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1})
	f.Add([]byte{0, 255, 0x7f, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := Decode(data)
		if err != nil {
			if g != nil || !errors.Is(err, ErrCorrupt) || Sniff(data) {
				t.Fatalf("Decode = %v, %v; Sniff %v", g, err, Sniff(data))
			}
			return
		}
		if !Sniff(data) {
			t.Fatal("decoded but Sniff false")
		}
		out, _ := g.MarshalBinary()
		if !bytes.Equal(out, data) {
			t.Fatal("re-encoding differs from the input")
		}
		g.AddString("fuzz")
		if !g.TestString("fuzz") {
			t.Fatal("added key not found")
		}
		g.TestLong(int64(len(data)))
	})
}
