package parquet

import (
	"bufio"
	"bytes"
	"crypto/md5"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// text spells key v of a golden file's column as duckdb.cjs and
// crosscheck/crosscheck_test.go write it: s 'k'||v, i32 v·7919 − 10^6,
// i64 v·1000000007, f32 float32(v/7), f64 v/7, u md5(decimal v) as hex.
func text(col string, v int) string {
	switch col {
	case "s":
		return "k" + strconv.Itoa(v)
	case "i32":
		return strconv.Itoa(v*7919 - 1000000)
	case "i64":
		return strconv.FormatInt(int64(v)*1000000007, 10)
	case "f32":
		return strconv.FormatFloat(float64(float32(float64(v)/7)), 'g', -1, 32)
	case "f64":
		return strconv.FormatFloat(float64(v)/7, 'g', -1, 64)
	case "u":
		return fmt.Sprintf("%x", md5.Sum([]byte(strconv.Itoa(v))))
	}
	panic(col)
}

// readAnswers reads an answers file: per line a column, a space and one
// hex digit per key, the mask of row groups the writer's reader says may
// hold it.
func readAnswers(t *testing.T, path string) map[string]string {
	t.Helper()
	file, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(file)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		col, masks, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			t.Fatalf("%s: bad line", path)
		}
		out[col] = masks
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func openGolden(t *testing.T, name string) *File {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	f, err := OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// compareProbe probes every key of an answers file and counts the keys
// whose row groups differ from the writer's answers; present keys (the
// first half) must be in some row group.
//
// Columns in subsetOnly are held to less: the writer's reader there never
// excludes a row group, so bloomcast's row groups need only be among
// its.
func compareProbe(t *testing.T, f *File, answers map[string]string, subsetOnly ...string) (compared int) {
	t.Helper()
	for col, masks := range answers {
		subset := false
		for _, c := range subsetOnly {
			subset = subset || c == col
		}
		values := make([]string, len(masks))
		for v := range values {
			values[v] = text(col, v)
		}
		got, err := f.Probe(col, values)
		if err != nil {
			t.Fatal(err)
		}
		bad := 0
		for v, a := range got {
			m := 0
			for _, g := range a.RowGroups {
				m |= 1 << g
			}
			want, _ := strconv.ParseUint(masks[v:v+1], 16, 8)
			if v < len(masks)/2 && m == 0 {
				t.Errorf("%s: present key %d (%s) in no row group", col, v, values[v])
			}
			if m != int(want) && !(subset && m&^int(want) == 0) {
				bad++
				if bad < 5 {
					t.Errorf("%s: key %d (%s): row groups %v, the writer's reader says mask %x", col, v, values[v], a.RowGroups, want)
				}
			}
		}
		if bad > 0 {
			t.Errorf("%s: %d of %d answers differ", col, bad, len(values))
		}
		compared += len(values)
	}
	return compared
}

// TestGoldenDuckDB probes the file DuckDB wrote (testdata/duckdb.parquet,
// made by crosscheck/duckdb.cjs) for 1200 present and 1200 absent keys of
// each of its six columns (BYTE_ARRAY, INT32, INT64, FLOAT, DOUBLE and a
// UUID as FIXED_LEN_BYTE_ARRAY(16)) and answers as DuckDB's
// parquet_bloom_probe did; and every filter DuckDB wrote equals, bit for
// bit, the one bloomcast builds of the same size from its row group's keys.
//
// DuckDB 1.5.6's parquet_bloom_probe never excludes a row group for a UUID
// value (not one of the 1200 absent keys), though the filters it writes
// for the column are right (checkRebuilt); there bloomcast's answers need
// only be among DuckDB's.
func TestGoldenDuckDB(t *testing.T) {
	f := openGolden(t, "duckdb.parquet")
	answers := readAnswers(t, "testdata/duckdb.answers")
	if len(answers) != 6 {
		t.Fatalf("%d columns in duckdb.answers", len(answers))
	}
	n := compareProbe(t, f, answers, "u")
	t.Logf("%d answers compared with DuckDB's", n)
	checkRebuilt(t, f, 1200)
}

// TestGoldenParquetGo does the same with the file parquet-go wrote and
// parquet-go's own FileBloomFilter.Check answers.
func TestGoldenParquetGo(t *testing.T) {
	f := openGolden(t, "parquetgo.parquet")
	if n := compareProbe(t, f, readAnswers(t, "testdata/parquetgo.answers")); n != 6*2400 {
		t.Errorf("%d answers compared", n)
	}
	checkRebuilt(t, f, 1200)
}

// checkRebuilt rebuilds every filter of a golden file, whose row r holds
// key (r/2) mod keys, and compares it with the file's.
func checkRebuilt(t *testing.T, f *File, keys int) {
	t.Helper()
	first := map[string]int64{}
	for _, c := range f.Filters() {
		got, err := f.ReadFilter(c)
		if err != nil {
			t.Fatal(err)
		}
		want, err := New(got.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		for r := first[c.Column]; r < first[c.Column]+c.NumValues; r++ {
			p, err := Plain(c.Type, c.TypeLength, text(c.Column, int(r/2)%keys))
			if err != nil {
				t.Fatal(err)
			}
			want.Insert(p)
		}
		first[c.Column] += c.NumValues
		if !got.Equal(want) {
			t.Errorf("row group %d column %s: the file's filter differs from bloomcast's of the same keys", c.RowGroup, c.Column)
		}
	}
}

// TestGoldenStandalone decodes the standalone filter of keys k0..k999
// that parquet-go's bloom and thrift packages made, and builds the same
// bytes, header included.
func TestGoldenStandalone(t *testing.T) {
	data, err := os.ReadFile("testdata/parquetgo-n1000.bin")
	if err != nil {
		t.Fatal(err)
	}
	f, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewBlocks(f.Blocks())
	if err != nil {
		t.Fatal(err)
	}
	for v := 0; v < 1000; v++ {
		if !f.CheckString(text("s", v)) {
			t.Fatalf("k%d not found", v)
		}
		g.InsertString(text("s", v))
	}
	out, _ := g.MarshalBinary()
	if !bytes.Equal(out, data) {
		t.Errorf("bloomcast's encoding of the same keys differs from parquet-go's (%d and %d bytes)", len(out), len(data))
	}
	if !Sniff(data) || Sniff(data[3:]) || Sniff([]byte("PAR1")) {
		t.Error("Sniff wrong")
	}
}

func TestHashVectors(t *testing.T) {
	// xxHash64 seed 0 reference values (xxhsum -H64).
	for s, want := range map[string]uint64{"": 0xef46db3751d8e999, "a": 0xd24ec4f1a98c6e5b, "abc": 0x44bc2cf5ad770999} {
		if got := HashString(s); got != want || Hash([]byte(s)) != want {
			t.Errorf("xxHash64(%q) = %#x, want %#x", s, got, want)
		}
	}
	if HashInt32(-1) != Hash([]byte{0xff, 0xff, 0xff, 0xff}) || HashInt64(1) != Hash([]byte{1, 0, 0, 0, 0, 0, 0, 0}) {
		t.Error("integer hashes are not of little-endian bytes")
	}
	if HashFloat64(1) != HashInt64(0x3ff0000000000000) || HashFloat32(1) != HashInt32(0x3f800000) {
		t.Error("float hashes are not of the IEEE bits")
	}
}

// TestBitsOfOneValue spells out the spec's algorithm for one hash: block
// ((h>>32)·z)>>32, bit (x·salt[i])>>27 of word i.
func TestBitsOfOneValue(t *testing.T) {
	f, _ := NewBlocks(5)
	const h = 0x9abcdef012345678
	f.InsertHash(h)
	blk := int((uint64(0x9abcdef0) * 5) >> 32)
	w := f.Words()
	for i := 0; i < 8; i++ {
		bit := (uint32(0x12345678) * salt[i]) >> 27
		if w[8*blk+i] != 1<<bit {
			t.Errorf("word %d of block %d = %#x, want bit %d", i, blk, w[8*blk+i], bit)
		}
	}
	if f.Ones() != 8 || !f.CheckHash(h) || f.CheckHash(h^1) {
		t.Error("one value sets eight bits")
	}
}

// TestFoldExact builds filters of 2z and z blocks from the same values:
// folding the first gives the second, bit for bit, for even and odd z.
func TestFoldExact(t *testing.T) {
	for _, z := range []int{1, 3, 32, 125, 1000, 4096} {
		big, _ := NewBlocks(2 * z)
		small, _ := NewBlocks(z)
		for v := 0; v < 10*z; v++ {
			big.InsertInt64(int64(v) * 7)
			small.InsertInt64(int64(v) * 7)
		}
		if err := big.Fold(); err != nil {
			t.Fatal(err)
		}
		if !big.Equal(small) {
			t.Errorf("fold of %d blocks differs from the filter of %d", 2*z, z)
		}
		fourfold, _ := NewBlocks(4 * z)
		for v := 0; v < 10*z; v++ {
			fourfold.InsertInt64(int64(v) * 7)
		}
		if err := fourfold.FoldTo(z); err != nil || !fourfold.Equal(small) {
			t.Errorf("FoldTo(%d) from %d: %v", z, 4*z, err)
		}
	}
	odd, _ := NewBlocks(3)
	if err := odd.Fold(); !errors.Is(err, ErrFold) || odd.Blocks() != 3 {
		t.Errorf("Fold of 3 blocks: %v", err)
	}
	six, _ := NewBlocks(6)
	if err := six.FoldTo(2); !errors.Is(err, ErrFold) || six.Blocks() != 6 {
		t.Errorf("FoldTo(2) of 6 blocks: %v", err)
	}
	var zero Filter
	if err := zero.Fold(); !errors.Is(err, ErrFold) {
		t.Errorf("Fold of the zero Filter: %v", err)
	}
}

// TestEstimateNDV checks n̂ = −32·z·ln(1 − fill) against known counts
// within 5%, at fills from about 0.01 (800 bits per value) to 0.9 (3.5).
func TestEstimateNDV(t *testing.T) {
	for _, n := range []int{1000, 10000, 100000, 1000000} {
		for _, bitsPerValue := range []float64{3.5, 8, 16, 64, 800} {
			z := int(math.Ceil(float64(n) * bitsPerValue / 256))
			if n*int(bitsPerValue) > 1e7 {
				continue
			}
			f, err := NewBlocks(z)
			if err != nil {
				t.Fatal(err)
			}
			for v := 0; v < n; v++ {
				f.InsertInt64(int64(v))
			}
			est := f.EstimateNDV()
			if rel := math.Abs(est-float64(n)) / float64(n); rel > 0.05 {
				t.Errorf("n=%d, %d blocks (fill %.3f): estimate %.0f, off by %.1f%%", n, z, f.Fill(), est, 100*rel)
			}
		}
	}
	var zero Filter
	if zero.EstimateNDV() != 0 || zero.Fill() != 0 || zero.CheckString("x") {
		t.Error("zero Filter")
	}
}

func TestSizes(t *testing.T) {
	for _, c := range []struct {
		ndv  uint64
		p    float64
		want int
	}{
		{0, 0.01, 32}, {1, 0.01, 32}, {1000, 0.01, 2048}, {1024, 0.01, 2048},
		{100000, 0.01, 131072}, {1000000, 0.01, 2 << 20}, {1 << 40, 0.01, MaxBytes},
	} {
		got, err := NDVBytes(c.ndv, c.p)
		if err != nil || got != c.want {
			t.Errorf("NDVBytes(%d, %v) = %d, %v; want %d", c.ndv, c.p, got, err, c.want)
		}
	}
	if b := BitsPerValue(0.01); math.Abs(b-9.68) > 0.01 {
		t.Errorf("BitsPerValue(0.01) = %v", b)
	}
	for _, p := range []float64{0, 1, -1, math.NaN()} {
		if _, err := NewNDV(10, p); !errors.Is(err, ErrConfig) {
			t.Errorf("NewNDV(10, %v): %v", p, err)
		}
	}
	for _, n := range []int{0, 31, 33, MaxBytes + 32, -32} {
		if _, err := New(n); !errors.Is(err, ErrConfig) {
			t.Errorf("New(%d): %v", n, err)
		}
	}
	if _, err := NewBlocks(0); !errors.Is(err, ErrConfig) {
		t.Error("NewBlocks(0)")
	}
}

func TestTypedRoundTrip(t *testing.T) {
	f, _ := New(1024)
	f.Insert([]byte{1, 2, 3})
	f.InsertString("s")
	f.InsertInt32(-5)
	f.InsertInt64(1 << 40)
	f.InsertFloat32(1.5)
	f.InsertFloat64(-2.25)
	data, err := f.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var g Filter
	if err := g.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	if !g.Check([]byte{1, 2, 3}) || !g.CheckString("s") || !g.CheckInt32(-5) || !g.CheckInt64(1<<40) ||
		!g.CheckFloat32(1.5) || !g.CheckFloat64(-2.25) || g.Ones() != f.Ones() {
		t.Error("values lost in a round trip")
	}
	h := g.Clone()
	if err := h.Union(f); err != nil || !h.Equal(f) {
		t.Errorf("Union: %v", err)
	}
	small, _ := New(64)
	if err := h.Union(small); !errors.Is(err, ErrConfig) {
		t.Errorf("Union of different sizes: %v", err)
	}
	if _, err := (&Filter{}).MarshalBinary(); !errors.Is(err, ErrConfig) {
		t.Error("MarshalBinary of the zero Filter")
	}
}

func TestPlain(t *testing.T) {
	for _, c := range []struct {
		t      Type
		length int
		in     string
		want   []byte
	}{
		{ByteArray, 0, "héllo", []byte("héllo")},
		{Int32, 0, "-2", []byte{0xfe, 0xff, 0xff, 0xff}},
		{Int64, 0, "258", []byte{2, 1, 0, 0, 0, 0, 0, 0}},
		{Float, 0, "1", []byte{0, 0, 0x80, 0x3f}},
		{Double, 0, "1", []byte{0, 0, 0, 0, 0, 0, 0xf0, 0x3f}},
		{FixedLenByteArray, 3, "abc", []byte("abc")},
		{FixedLenByteArray, 2, "0x0aff", []byte{0x0a, 0xff}},
		{FixedLenByteArray, 16, "550e8400-e29b-41d4-a716-446655440000", []byte{0x55, 0x0e, 0x84, 0x00, 0xe2, 0x9b, 0x41, 0xd4, 0xa7, 0x16, 0x44, 0x66, 0x55, 0x44, 0x00, 0x00}},
		{Int96, 0, "000102030405060708090a0b", []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}},
	} {
		got, err := Plain(c.t, c.length, c.in)
		if err != nil || !bytes.Equal(got, c.want) {
			t.Errorf("Plain(%v, %d, %q) = %x, %v; want %x", c.t, c.length, c.in, got, err, c.want)
		}
	}
	for _, c := range []struct {
		t  Type
		in string
	}{{Int32, "2147483648"}, {Int32, "x"}, {Int64, "1.5"}, {Float, "one"}, {Double, ""}, {FixedLenByteArray, "abcd"}, {Boolean, "true"}} {
		if _, err := Plain(c.t, 3, c.in); err == nil {
			t.Errorf("Plain(%v, %q) accepted", c.t, c.in)
		}
	}
	if Boolean.String() != "BOOLEAN" || FixedLenByteArray.String() != "FIXED_LEN_BYTE_ARRAY" || Type(9).String() != "Type(9)" {
		t.Error("Type.String")
	}
}

// validHeader is the BloomFilterHeader of a 32-byte bitset, as parquet-go
// and appendHeader encode it.
func validHeader(t testing.TB) []byte {
	h, err := appendHeader(nil, 32)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestDecodeErrors: every malformed input gives one line wrapping
// ErrCorrupt or ErrUnsupported, without allocating for a claimed bitset.
func TestDecodeErrors(t *testing.T) {
	h := validHeader(t)
	if !bytes.Equal(h, []byte{0x15, 0x40, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0}) {
		t.Fatalf("header of 32 bytes encodes as % x", h)
	}
	valid := append(append([]byte{}, h...), make([]byte, 32)...)
	withNumBytes := func(varint []byte) []byte {
		return append(append(append([]byte{0x15}, varint...), h[2:]...), make([]byte, 32)...)
	}
	zigzag := func(v int64) []byte { return binary.AppendUvarint(nil, uint64(v<<1^v>>63)) }
	replace := func(old, new []byte) []byte {
		return bytes.Replace(append([]byte{}, valid...), old, new, 1)
	}
	corrupt := map[string][]byte{
		"empty":                  nil,
		"2^40 bytes":             withNumBytes(zigzag(1 << 40)),
		"2^31-1 bytes":           withNumBytes(zigzag(math.MaxInt32)),
		"negative bytes":         withNumBytes(zigzag(-32)),
		"33 bytes":               withNumBytes(zigzag(33)),
		"0 bytes":                withNumBytes(zigzag(0)),
		"truncated bitset":       valid[:len(valid)-1],
		"trailing bytes":         append(append([]byte{}, valid...), 0),
		"header only":            h,
		"truncated header":       h[:5],
		"numBytes as a string":   append([]byte{0x18, 0x02, 'h', 'i'}, h[2:]...),
		"no algorithm":           append([]byte{0x15, 0x40, 0x3c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0}, make([]byte, 32)...),
		"list of 2^31-1 structs": append([]byte{0x15, 0x40, 0x99, 0xfc, 0xff, 0xff, 0xff, 0x07}, h[2:]...),
		"deep nesting":           append([]byte{0x15, 0x40}, bytes.Repeat([]byte{0x1c}, 10000)...),
		"parquet file":           []byte("PAR1\x15\x00\x15\x02"),
		"guava stream":           {1, 3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1},
	}
	unsupported := map[string][]byte{
		"algorithm 2":      replace([]byte{0x1c, 0x1c, 0, 0, 0x1c}, []byte{0x1c, 0x2c, 0, 0, 0x1c}),
		"gzip compression": append(append([]byte{}, h[:10]...), append([]byte{0x1c, 0x2c, 0, 0, 0}, make([]byte, 32)...)...),
	}
	check := func(name string, data []byte, want error) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		f, err := Decode(data)
		runtime.ReadMemStats(&after)
		if !errors.Is(err, want) || f != nil {
			t.Errorf("%s: Decode = %v, %v; want %v", name, f, err, want)
			return
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %q spans lines", name, err)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 256<<10 {
			t.Errorf("%s: Decode allocated %d bytes", name, n)
		}
		if Sniff(data) && errors.Is(want, ErrUnsupported) {
			t.Errorf("%s: Sniff true", name)
		}
	}
	for name, data := range corrupt {
		check(name, data, ErrCorrupt)
	}
	for name, data := range unsupported {
		check(name, data, ErrUnsupported)
	}
	if _, err := Decode(valid); err != nil {
		t.Errorf("valid: %v", err)
	}
}

// TestOpenFileErrors: a file that is not Parquet, a footer length beyond
// the file, a truncated or garbled footer, an encrypted footer and a
// filter offset outside the file give one-line errors.
// emptyStructs appends a thrift compact list field (field header fh) of n
// structs with no fields, and the enclosing struct's end.
func emptyStructs(dst []byte, fh byte, n int) []byte {
	dst = append(dst, fh, 0xfc)
	dst = binary.AppendUvarint(dst, uint64(n))
	dst = append(dst, make([]byte, n)...)
	return append(dst, 0)
}

func TestOpenFileErrors(t *testing.T) {
	good, err := os.ReadFile("testdata/duckdb.parquet")
	if err != nil {
		t.Fatal(err)
	}
	footerLen := int(binary.LittleEndian.Uint32(good[len(good)-8:]))
	withFooter := func(footer []byte) []byte {
		out := append([]byte("PAR1"), footer...)
		out = binary.LittleEndian.AppendUint32(out, uint32(len(footer)))
		return append(out, "PAR1"...)
	}
	cases := map[string][]byte{
		"empty":             nil,
		"short":             []byte("PAR1PAR1"),
		"no magic":          append([]byte("XXXX"), good[4:]...),
		"footer too long":   append(append([]byte{}, good[:len(good)-8]...), 0xff, 0xff, 0xff, 0x7f, 'P', 'A', 'R', '1'),
		"zero footer":       withFooter(nil),
		"garbled footer":    withFooter(bytes.Repeat([]byte{0xff}, 40)),
		"cut footer":        withFooter(good[len(good)-8-footerLen : len(good)-8-footerLen/2]),
		"huge list":         withFooter([]byte{0x15, 0x02, 0x19, 0xfc, 0xff, 0xff, 0xff, 0x07, 0x00}),
		"not a file at all": []byte("just some text, longer than twelve bytes"),
		// Lists of empty structs: a byte each, hundreds decoded.
		"empty schema elements": withFooter(emptyStructs(nil, 0x29, 100000)),
		"empty row groups":      withFooter(emptyStructs(nil, 0x49, 100000)),
		"empty column chunks":   withFooter(append(emptyStructs([]byte{0x49, 0x1c}, 0x19, 100000), 0)),
	}
	for name, data := range cases {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		f, err := OpenFile(bytes.NewReader(data), int64(len(data)))
		runtime.ReadMemStats(&after)
		if !errors.Is(err, ErrCorrupt) || f != nil {
			t.Errorf("%s: OpenFile = %v, %v; want ErrCorrupt", name, f, err)
			continue
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %q spans lines", name, err)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
			t.Errorf("%s: OpenFile allocated %d bytes", name, n)
		}
	}
	enc := append(append([]byte{}, good[:len(good)-4]...), "PARE"...)
	if _, err := OpenFile(bytes.NewReader(enc), int64(len(enc))); !errors.Is(err, ErrUnsupported) {
		t.Errorf("encrypted footer: %v", err)
	}
	if _, err := OpenFile(nil, 100); !errors.Is(err, ErrConfig) {
		t.Errorf("nil reader: %v", err)
	}
	f := openGolden(t, "duckdb.parquet")
	if _, err := f.Probe("nope", []string{"1"}); !errors.Is(err, ErrConfig) {
		t.Errorf("unknown column: %v", err)
	}
	if _, err := f.Probe("i32", []string{"x"}); !errors.Is(err, ErrConfig) {
		t.Errorf("bad value: %v", err)
	}
	c := f.Filters()[0]
	c.Offset = 4
	if _, err := f.ReadFilter(c); !errors.Is(err, ErrCorrupt) {
		t.Errorf("filter at a wrong offset: %v", err)
	}
	var zero File
	if _, err := zero.Probe("s", nil); !errors.Is(err, ErrConfig) {
		t.Errorf("zero File: %v", err)
	}
	if _, err := zero.ReadFilter(Chunk{}); !errors.Is(err, ErrConfig) {
		t.Errorf("zero File: %v", err)
	}
}

func TestFileListing(t *testing.T) {
	f := openGolden(t, "duckdb.parquet")
	if f.RowGroups() != 2 || strings.Join(f.Columns(), ",") != "s,i32,i64,f32,f64,u" || len(f.Filters()) != 12 {
		t.Fatalf("%d row groups, columns %v, %d filters", f.RowGroups(), f.Columns(), len(f.Filters()))
	}
	reports, err := f.Reports()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range reports {
		// Row group 0 holds keys 0..1023, row group 1 keys 1024..1199
		// and 0..335: 1024 and 512 distinct values.
		want := 1024.0
		if r.RowGroup == 1 {
			want = 512
		}
		if math.Abs(r.EstimatedNDV-want)/want > 0.05 || r.Fill <= 0 || r.Fill >= 1 || r.Bytes != []int{2048, 1024}[r.RowGroup] {
			t.Errorf("%+v: want about %v distinct values", r, want)
		}
		if r.Column == "u" && (r.Type != FixedLenByteArray || r.TypeLength != 16) {
			t.Errorf("u: %v(%d)", r.Type, r.TypeLength)
		}
	}
	a, err := f.Probe("s", []string{"k0", "k500", "k1199", "absent"})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(a[0].RowGroups, a[1].RowGroups, a[2].RowGroups) != "[0 1] [0] [1]" || len(a[3].RowGroups) != 0 || a[0].Unfiltered != nil {
		t.Errorf("Probe: %+v", a)
	}
	if !SniffFile([]byte("PAR1\x15")) || SniffFile([]byte("PAR")) {
		t.Error("SniffFile")
	}
}

func FuzzDecode(f *testing.F) {
	if data, err := os.ReadFile("testdata/parquetgo-n1000.bin"); err == nil {
		f.Add(data)
	}
	f.Add(append(validHeader(f), make([]byte, 32)...))
	f.Add([]byte{0x15, 0x40, 0x1c, 0x2c, 0, 0, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := Decode(data)
		if err != nil {
			if g != nil || !(errors.Is(err, ErrCorrupt) || errors.Is(err, ErrUnsupported)) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("Decode = %v, %v", g, err)
			}
			return
		}
		if !Sniff(data) {
			t.Fatal("decoded but Sniff false")
		}
		out, err := g.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		h, err := Decode(out)
		if err != nil || !h.Equal(g) {
			t.Fatalf("re-encoding does not decode to the same filter: %v", err)
		}
		g.InsertString("fuzz")
		if !g.CheckString("fuzz") {
			t.Fatal("inserted value not found")
		}
	})
}

func FuzzOpenFile(f *testing.F) {
	for _, name := range []string{"duckdb.parquet", "parquetgo.parquet"} {
		if data, err := os.ReadFile(filepath.Join("testdata", name)); err == nil {
			// The footer and the filters, without the column data.
			n := int(binary.LittleEndian.Uint32(data[len(data)-8:]))
			f.Add(append([]byte("PAR1"), data[len(data)-8-n:]...))
			f.Add(data)
		}
	}
	f.Add([]byte("PAR1\x15\x02\x19\x1c\x00\x0b\x00\x00\x00PAR1"))
	columns := emptyStructs([]byte{0x49, 0x1c}, 0x19, 1000)
	f.Add(append(binary.LittleEndian.AppendUint32(append([]byte("PAR1"), columns...), uint32(len(columns))), "PAR1"...))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := OpenFile(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			if file != nil || strings.Contains(err.Error(), "\n") {
				t.Fatalf("OpenFile = %v, %v", file, err)
			}
			return
		}
		for _, c := range file.Filters() {
			flt, err := file.ReadFilter(c)
			if err != nil {
				if strings.Contains(err.Error(), "\n") {
					t.Fatal(err)
				}
				continue
			}
			flt.EstimateNDV()
		}
		for _, col := range file.Columns() {
			_, _ = file.Probe(col, []string{"1", "abc"})
		}
	})
}

// readBigAnswers reads testdata/duckdb-big.answers (written by
// crosscheck/duckdb.cjs golden-big): n, and the sets of present keys
// (0..n-1) that parquet_bloom_probe excluded and absent keys (n..2n-1)
// that it did not.
func readBigAnswers(t *testing.T, path string) (n int, excluded, maybe map[int]bool) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("%s: %d lines, want 3", path, len(lines))
	}
	if n, err = strconv.Atoi(strings.TrimPrefix(lines[0], "n ")); err != nil || n <= 0 {
		t.Fatalf("%s: first line %q", path, lines[0])
	}
	set := func(line, name string) map[int]bool {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] != name {
			t.Fatalf("%s: line %q does not start with %s", path, line, name)
		}
		out := map[int]bool{}
		for _, s := range f[1:] {
			v, err := strconv.Atoi(s)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			out[v] = true
		}
		return out
	}
	return n, set(lines[1], "present-excluded"), set(lines[2], "absent-maybe")
}

// TestGoldenDuckDBBig checks bloomcast against DuckDB on every one of 10^5
// present and 10^5 absent values: testdata/duckdb-big.sbbf is the filter
// DuckDB wrote for column s of a file of k0..k99999 (each twice, one row
// group), header and bitset as stored in the file; duckdb-big.answers
// holds what parquet_bloom_probe said for k0..k199999. Decoding the bytes
// and checking each value must give DuckDB's answer, and bloomcast's
// filter of the same values and size must encode to the same bytes.
// crosscheck's TestRealDuckDB checks, where node is installed, that DuckDB
// still writes these bytes and answers a sample of the values so.
func TestGoldenDuckDBBig(t *testing.T) {
	n, excluded, maybe := readBigAnswers(t, "testdata/duckdb-big.answers")
	data, err := os.ReadFile("testdata/duckdb-big.sbbf")
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	ours, err := NewBlocks(theirs.Blocks())
	if err != nil {
		t.Fatal(err)
	}
	for v := 0; v < n; v++ {
		ours.InsertString(text("s", v))
	}
	if out, _ := ours.MarshalBinary(); !bytes.Equal(out, data) {
		t.Errorf("bloomcast's filter of k0..k%d differs from DuckDB's (%d and %d bytes)", n-1, len(out), len(data))
	}
	disagree, fp := 0, 0
	for v := 0; v < 2*n; v++ {
		duck := v >= n && maybe[v] || v < n && !excluded[v]
		got := theirs.CheckString(text("s", v))
		if got != duck || v < n && !got {
			disagree++
			if disagree <= 5 {
				t.Errorf("k%d (present: %v): bloomcast %v, DuckDB's parquet_bloom_probe %v", v, v < n, got, duck)
			}
		}
		if v >= n && got {
			fp++
		}
	}
	if disagree > 0 {
		t.Errorf("%d of %d answers differ from DuckDB's", disagree, 2*n)
	}
	if len(excluded) > 0 {
		t.Errorf("DuckDB excluded %d present values", len(excluded))
	}
	t.Logf("%d present and %d absent values: %d disagreements with parquet_bloom_probe; %d absent values may be present (%.2f%%) in DuckDB's %d-byte filter", n, n, disagree, fp, 100*float64(fp)/float64(n), theirs.Bytes())
}
