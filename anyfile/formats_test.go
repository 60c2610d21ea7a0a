package anyfile_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/bloomcast/bloomcast/anyfile"
	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/formats/bitsandblooms"
	"github.com/bloomcast/bloomcast/formats/guava"
	"github.com/bloomcast/bloomcast/formats/parquet"
	"github.com/bloomcast/bloomcast/formats/squid"
)

// golden reads a golden file of a format package.
func golden(t testing.TB, pkg, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "formats", pkg, "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// foreignFiles are encodings of other programs' filters: golden files
// written by Guava and by bloom/v3, and the format each is in.
func foreignFiles(t testing.TB) map[anyfile.Format][]byte {
	return map[anyfile.Format][]byte{
		anyfile.FormatGuava:             golden(t, "guava", "str-mitz64-n10000-p0.01.bin"),
		anyfile.FormatBitsAndBlooms:     golden(t, "bitsandblooms", "m1000-k7-n100.bin"),
		anyfile.FormatBitsAndBloomsJSON: golden(t, "bitsandblooms", "m1000-k7-n100.json"),
		anyfile.FormatParquetSBBF:       golden(t, "parquet", "parquetgo-n1000.bin"),
	}
}

func read(t *testing.T, b []byte, opt anyfile.Options) *anyfile.File {
	t.Helper()
	f, err := anyfile.Read(bytes.NewReader(b), opt)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestForeignDetectedAndWrittenBack: every foreign golden file is
// detected as its format, answers as its program did for a key it holds,
// and is written back byte for byte; forcing its format reads it too,
// forcing another refuses it.
func TestForeignDetectedAndWrittenBack(t *testing.T) {
	present := map[anyfile.Format]string{
		anyfile.FormatGuava:             "present-1",
		anyfile.FormatBitsAndBlooms:     "in1a",
		anyfile.FormatBitsAndBloomsJSON: "in1a",
		anyfile.FormatParquetSBBF:       "k1",
	}
	for format, b := range foreignFiles(t) {
		f := read(t, b, anyfile.Options{})
		if f.Format() != format || !f.Foreign() || f.Size != int64(len(b)) {
			t.Errorf("%v: read as %v (foreign %t), %d bytes", format, f.Format(), f.Foreign(), f.Size)
		}
		if in, err := f.Contains([]byte(present[format])); !in || err != nil {
			t.Errorf("%v: a key it holds: %t, %v", format, in, err)
		}
		if out := bytesOf(t, f); !bytes.Equal(out, b) {
			t.Errorf("%v: written back differs", format)
		}
		if g := read(t, b, anyfile.Options{Format: format}); g.Format() != format {
			t.Errorf("%v forced: read as %v", format, g.Format())
		}
		for _, other := range anyfile.Formats() {
			if other.String() == format.String() {
				continue
			}
			if _, err := anyfile.Read(bytes.NewReader(b), anyfile.Options{Format: other}); err == nil {
				t.Errorf("%v read as %v", format, other)
			}
		}
		if s := f.Stats(); s.Format != format || s.Bits == 0 || s.SetBits == 0 || s.EstimatedCount <= 0 {
			t.Errorf("%v: stats %+v", format, s)
		}
	}
	if _, err := anyfile.Read(bytes.NewReader([]byte("junk junk")), anyfile.Options{}); !errors.Is(err, anyfile.ErrMagic) {
		t.Errorf("junk: %v", err)
	}
}

// TestGuavaKeys: Guava filters hash keys as strings or, with KeyLong,
// as longs, answering as Guava did (the golden answers' first key);
// the other formats refuse KeyLong.
func TestGuavaKeys(t *testing.T) {
	long := golden(t, "guava", "long-mitz64-n10000-p0.01.bin")
	f := read(t, long, anyfile.Options{Keys: anyfile.KeyLong})
	// GuavaCheck.java's present long keys are i·0x9E3779B97F4A7C15.
	for i := range 100 {
		v := int64(uint64(i) * 0x9E3779B97F4A7C15)
		if in, err := f.Contains([]byte(strconv.FormatInt(v, 10))); !in || err != nil {
			t.Fatalf("present long %d: %t, %v", v, in, err)
		}
	}
	if _, err := f.Contains([]byte("12x")); err == nil {
		t.Error("a key that is not a long was taken")
	}
	if err := f.Add([]byte("-42")); err != nil {
		t.Fatal(err)
	}
	if !as[*guava.Filter](f).TestLong(-42) {
		t.Error("Add with KeyLong did not add the long")
	}
	for format, b := range foreignFiles(t) {
		if format == anyfile.FormatGuava || format == anyfile.FormatParquetSBBF {
			continue
		}
		if _, err := anyfile.Read(bytes.NewReader(b), anyfile.Options{Keys: anyfile.KeyLong}); err == nil {
			t.Errorf("%v read with long keys", format)
		}
	}
	if _, err := anyfile.Read(bytes.NewReader(files(t)[anyfile.Bloom]), anyfile.Options{Keys: anyfile.KeyLong}); err == nil {
		t.Error("a bloomcast filter read with long keys")
	}
}

// TestForeignOperations: New, Add, Union, Intersect and Fold keep the
// format and the keys; filters of two formats do not combine.
func TestForeignOperations(t *testing.T) {
	for _, format := range []anyfile.Format{anyfile.FormatGuava, anyfile.FormatBitsAndBlooms, anyfile.FormatBitsAndBloomsJSON, anyfile.FormatParquetSBBF} {
		mk := func() *anyfile.File {
			f, err := anyfile.New(anyfile.Spec{Format: format, M: 4096, K: 5})
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
		a, b := mk(), mk()
		for i := range 100 {
			if err := a.Add([]byte("a" + strconv.Itoa(i))); err != nil {
				t.Fatal(err)
			}
			if err := b.Add([]byte("b" + strconv.Itoa(i))); err != nil {
				t.Fatal(err)
			}
		}
		if err := a.Union(b); err != nil {
			t.Fatalf("%v: %v", format, err)
		}
		if err := a.Fold(1024); err != nil {
			t.Fatalf("%v: %v", format, err)
		}
		if s := a.Stats(); s.Bits != 1024 {
			t.Fatalf("%v: folded to %d bits, want 1024", format, s.Bits)
		}
		a1024 := bytesOf(t, a)
		if err := a.Fold(3); format == anyfile.FormatGuava && err == nil {
			t.Fatalf("%v: folded below 64 bits", format) // a Guava filter has whole words
		}
		g := read(t, a1024, anyfile.Options{})
		if g.Format() != format {
			t.Fatalf("%v: written as %v", format, g.Format())
		}
		for i := range 100 {
			for _, k := range []string{"a", "b"} {
				if in, _ := g.Contains([]byte(k + strconv.Itoa(i))); !in {
					t.Fatalf("%v: key %s%d lost", format, k, i)
				}
			}
		}
		if err := b.Intersect(mk()); err != nil {
			t.Fatal(err)
		}
		if s := b.Stats(); s.SetBits != 0 {
			t.Fatalf("%v: intersection with an empty filter has %d bits set", format, s.SetBits)
		}
		if err := b.Union(read(t, files(t)[anyfile.Bloom], anyfile.Options{})); !errors.Is(err, anyfile.ErrKinds) {
			t.Fatalf("%v: union with a bloomcast filter: %v", format, err)
		}
	}
	if _, err := anyfile.New(anyfile.Spec{Format: anyfile.FormatBloomcast, N: 10, P: 0.1}); err == nil {
		t.Error("New made a bloomcast filter")
	}
	g, err := anyfile.New(anyfile.Spec{Format: anyfile.FormatGuava, N: 1000, P: 0.01})
	if err != nil || as[*guava.Filter](g).Bits() != 9600 || as[*guava.Filter](g).K() != 7 {
		t.Fatalf("Guava sized for 1000 keys at 0.01: %v", err)
	}
	bb, err := anyfile.New(anyfile.Spec{Format: anyfile.FormatBitsAndBlooms, N: 1000, P: 0.01})
	if err != nil || as[*bitsandblooms.Filter](bb).M() != 9586 || as[*bitsandblooms.Filter](bb).K() != 7 {
		t.Fatalf("bits-and-blooms sized for 1000 keys at 0.01: %v", err)
	}
}

// TestConvert: bits-and-blooms binary and JSON convert either way, a
// bloomcast filter changes codec, a file converts to its own format, and
// every pair of formats that hash keys differently is refused with
// ErrLossy.
func TestConvert(t *testing.T) {
	ff := foreignFiles(t)
	bin := read(t, ff[anyfile.FormatBitsAndBlooms], anyfile.Options{})
	w, err := bin.Convert(anyfile.FormatBitsAndBloomsJSON, digest.Auto)
	if err != nil || !bytes.Equal(bytesOf(t, w), ff[anyfile.FormatBitsAndBloomsJSON]) {
		t.Fatalf("binary to JSON: %v", err)
	}
	js := read(t, ff[anyfile.FormatBitsAndBloomsJSON], anyfile.Options{})
	w, err = js.Convert(anyfile.FormatBitsAndBlooms, digest.Auto)
	if err != nil || !bytes.Equal(bytesOf(t, w), ff[anyfile.FormatBitsAndBlooms]) {
		t.Fatalf("JSON to binary: %v", err)
	}
	bf := read(t, files(t)[anyfile.Bloom], anyfile.Options{})
	w, err = bf.Convert(anyfile.FormatBloomcast, digest.Raw)
	if err != nil {
		t.Fatal(err)
	}
	if raw := read(t, bytesOf(t, w), anyfile.Options{}); raw.Codec() != digest.Raw || !as[*bloom.Filter](raw).Equal(as[*bloom.Filter](bf)) {
		t.Fatalf("fast to raw: codec %v", raw.Codec())
	}
	all := map[anyfile.Format]*anyfile.File{
		anyfile.FormatBloomcast: bf,
		anyfile.FormatSquid:     read(t, files(t)[anyfile.Squid], anyfile.Options{}),
	}
	for format, b := range ff {
		all[format] = read(t, b, anyfile.Options{})
	}
	for from, f := range all {
		for _, to := range anyfile.Formats() {
			_, err := f.Convert(to, f.Codec())
			lossless := from == to || (from != to && from.String()[:4] == "bits" && to.String()[:4] == "bits")
			if lossless != (err == nil) {
				t.Errorf("%v to %v: %v", from, to, err)
			}
			if !lossless && !errors.Is(err, anyfile.ErrLossy) {
				t.Errorf("%v to %v: %v, want ErrLossy", from, to, err)
			}
		}
	}
}

// FuzzRead reads arbitrary bytes as any format, detected or forced: an
// error or a File, never a panic, and what is read is written back.
func FuzzRead(f *testing.F) {
	for _, b := range foreignFiles(f) {
		f.Add(b, uint8(0))
	}
	for _, name := range []string{"golden-static-full.bin", "golden-static-delta.bin"} {
		b, err := os.ReadFile(filepath.Join("..", "digest", "testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint8(0))
	}
	f.Add([]byte{1, 3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1}, uint8(0))
	f.Add([]byte(`{"m":64,"k":3,"b":"AAAAAAAAAEAAAAAAAAAAAA=="}`), uint8(5))
	f.Fuzz(func(t *testing.T, data []byte, format uint8) {
		opt := anyfile.Options{Format: anyfile.Format(format % 8), Limits: envelope.Limits{MaxPayload: 1 << 20}}
		file, err := anyfile.Read(bytes.NewReader(data), opt)
		if err != nil {
			return
		}
		if _, err := file.Contains([]byte("k")); err != nil && file.Kind() != anyfile.Delta {
			t.Fatalf("%v: Contains: %v", file.Kind(), err)
		}
		if file.Foreign() {
			if _, err := file.WriteTo(new(bytes.Buffer)); err != nil {
				t.Fatalf("%v: WriteTo: %v", file.Format(), err)
			}
		}
	})
}

// TestParquetFile reads the Parquet file DuckDB wrote, from a file (only
// its footer and filters, answered after the file is closed) and from a
// stream (read whole): its filters are listed and probed by column, and
// it refuses keys, writes and combinations.
func TestParquetFile(t *testing.T) {
	path := filepath.Join("..", "formats", "parquet", "testdata", "duckdb.parquet")
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	fromFile, err := anyfile.Read(fh, anyfile.Options{})
	if cerr := fh.Close(); err != nil || cerr != nil {
		t.Fatal(err, cerr)
	}
	fromStream := read(t, golden(t, "parquet", "duckdb.parquet"), anyfile.Options{})
	for _, f := range []*anyfile.File{fromFile, fromStream} {
		if f.Kind() != anyfile.ParquetFile || f.Format() != anyfile.FormatParquet {
			t.Fatalf("read as %v, %v", f.Kind(), f.Format())
		}
		answers, err := as[*parquet.File](f).Probe("s", []string{"k1100", "k5000"})
		if err != nil {
			t.Fatal(err)
		}
		if len(answers[0].RowGroups) != 1 || answers[0].RowGroups[0] != 1 || len(answers[1].RowGroups) != 0 {
			t.Fatalf("Probe: %+v", answers)
		}
		if reports, err := as[*parquet.File](f).Reports(); err != nil || len(reports) != 12 {
			t.Fatalf("Reports: %d, %v", len(reports), err)
		}
		if _, err := f.Contains([]byte("k1")); err == nil {
			t.Error("a Parquet file answered without a column")
		}
		if err := f.Add([]byte("k1")); err == nil {
			t.Error("a Parquet file took a key")
		}
		if _, err := f.WriteTo(new(bytes.Buffer)); err == nil {
			t.Error("a Parquet file was written")
		}
		if err := f.Fold(0); err == nil {
			t.Error("a Parquet file was folded")
		}
		if err := f.Union(fromStream); err == nil {
			t.Error("Parquet files were combined")
		}
	}
}

// TestColumnFilter takes every column chunk's filter out of the Parquet
// files DuckDB and parquet-go wrote: each is written back byte for byte
// as the file stores it (header and bitset), answers as the file's probe
// does for that row group, and hashes keys as its column's type. A file
// that is not Parquet, an unknown column, a row group without a filter
// and an unnamed row group among several are refused.
func TestColumnFilter(t *testing.T) {
	for _, name := range []string{"duckdb.parquet", "parquetgo.parquet"} {
		data := golden(t, "parquet", name)
		f := read(t, data, anyfile.Options{})
		for _, c := range as[*parquet.File](f).Filters() {
			g, err := f.ColumnFilter(c.Column, c.RowGroup)
			if err != nil {
				t.Fatal(err)
			}
			if g.Format() != anyfile.FormatParquetSBBF {
				t.Fatalf("%s: format %v", name, g.Format())
			}
			var out bytes.Buffer
			if _, err := g.WriteTo(&out); err != nil {
				t.Fatal(err)
			}
			if want := data[c.Offset : c.Offset+int64(c.Length)]; !bytes.Equal(out.Bytes(), want) {
				t.Errorf("%s row group %d column %s: %d bytes written, not the file's %d", name, c.RowGroup, c.Column, out.Len(), len(want))
			}
			if c.Column != "s" && c.Column != "i64" {
				continue
			}
			// Keys 0..2399, of which 0..1199 are in the file.
			want, values := anyfile.KeyString, make([]string, 0, 100)
			for v := 0; v < 2400; v += 24 {
				if c.Column == "s" {
					values = append(values, "k"+strconv.Itoa(v))
				} else {
					values = append(values, strconv.FormatInt(int64(v)*1000000007, 10))
				}
			}
			if c.Column == "i64" {
				want = anyfile.KeyLong
			}
			if g.Keys != want {
				t.Errorf("%s column %s: keys %v, want %v", name, c.Column, g.Keys, want)
			}
			answers, err := as[*parquet.File](f).Probe(c.Column, values)
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range values {
				in, err := g.Contains([]byte(v))
				if err != nil || in != slices.Contains(answers[i].RowGroups, c.RowGroup) {
					t.Errorf("%s row group %d column %s, %s: Contains %v, %v; Probe %v", name, c.RowGroup, c.Column, v, in, err, answers[i].RowGroups)
				}
			}
		}
	}
	f := read(t, golden(t, "parquet", "duckdb.parquet"), anyfile.Options{})
	for _, c := range []struct {
		column   string
		rowGroup int
		want     string
	}{
		{"zz", 0, `no column "zz" in the Parquet file (columns: s, i32, i64, f32, f64, u)`},
		{"s", -1, "column s has a bloom filter in each of row groups 0, 1: choose one"},
		{"s", 2, "row group 2 of the file's 2 has no bloom filter for column s (row groups with one: 0, 1)"},
	} {
		if _, err := f.ColumnFilter(c.column, c.rowGroup); err == nil || err.Error() != "anyfile: "+c.want {
			t.Errorf("ColumnFilter(%q, %d): %v, want %q", c.column, c.rowGroup, err, c.want)
		}
	}
	sbbf := read(t, golden(t, "parquet", "parquetgo-n1000.bin"), anyfile.Options{})
	if _, err := sbbf.ColumnFilter("s", 0); err == nil {
		t.Error("a standalone filter gave a column chunk")
	}
}

// TestReadGuavaLikeSquidHeader: a Guava MURMUR128_MITZ_32 stream of 65536
// words or more whose 22nd byte is 4 passes squid.Sniff; it is still read
// as the Guava filter it is, and a damaged Squid digest still gets
// Squid's error.
func TestReadGuavaLikeSquidHeader(t *testing.T) {
	g, err := guava.NewSized(guava.Murmur128Mitz32, 65600*64, 3)
	if err != nil {
		t.Fatal(err)
	}
	g.AddString("in")
	data, err := g.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	data[21] = 4 // the low byte of the second word: Squid's hash_func_count
	f, err := anyfile.Read(bytes.NewReader(data), anyfile.Options{})
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	if f.Format() != anyfile.FormatGuava {
		t.Fatalf("read as %v", f.Format())
	}
	if in, err := f.Contains([]byte("in")); !in || err != nil {
		t.Errorf("Contains(in) = %v, %v", in, err)
	}

	damaged := bytes.Clone(files(t)[anyfile.Squid])
	damaged[19]++ // mask_size no longer matches capacity and bits per entry
	if _, err := anyfile.Read(bytes.NewReader(damaged), anyfile.Options{}); !errors.Is(err, squid.ErrFormat) {
		t.Errorf("damaged Squid digest: %v, want squid.ErrFormat", err)
	}
}
