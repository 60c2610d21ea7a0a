package crosscheck

import (
	"bytes"
	"crypto/md5"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/bloom"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/bloomcast/bloomcast/anyfile"
	"github.com/bloomcast/bloomcast/formats/parquet"
)

var update = flag.Bool("update", false, "rewrite ../testdata's parquet-go files")

// row is what the parquet-go golden file holds, each field filtered.
type row struct {
	S   string   `parquet:"s"`
	I32 int32    `parquet:"i32"`
	I64 int64    `parquet:"i64"`
	F32 float32  `parquet:"f32"`
	F64 float64  `parquet:"f64"`
	U   [16]byte `parquet:"u"`
}

// rowOf spells key v as duckdb.cjs does, so that both golden files and
// formats/parquet's tests share one key scheme.
func rowOf(v int) row {
	return row{
		S:   "k" + strconv.Itoa(v),
		I32: int32(v*7919 - 1000000),
		I64: int64(v) * 1000000007,
		F32: float32(float64(v) / 7),
		F64: float64(v) / 7,
		U:   md5.Sum([]byte(strconv.Itoa(v))),
	}
}

var columns = []string{"s", "i32", "i64", "f32", "f64", "u"}

// value returns parquet-go's Value of column c of key v.
func value(c string, v int) pq.Value {
	r := rowOf(v)
	switch c {
	case "s":
		return pq.ValueOf(r.S)
	case "i32":
		return pq.ValueOf(r.I32)
	case "i64":
		return pq.ValueOf(r.I64)
	case "f32":
		return pq.ValueOf(r.F32)
	case "f64":
		return pq.ValueOf(r.F64)
	}
	return pq.ValueOf(r.U[:])
}

// writeParquetGo writes keys 0..n-1 (each twice in a row) with parquet-go,
// a split-block filter of 10 bits per value on every column, rowsPerGroup
// rows per row group.
func writeParquetGo(t *testing.T, n, rowsPerGroup int) []byte {
	t.Helper()
	var buf bytes.Buffer
	var filters []pq.BloomFilterColumn
	for _, c := range columns {
		filters = append(filters, pq.SplitBlockFilter(10, c))
	}
	w := pq.NewGenericWriter[row](&buf, pq.BloomFilters(filters...), pq.MaxRowsPerRowGroup(int64(rowsPerGroup)))
	rows := make([]row, 0, 2*n)
	for i := 0; i < 2*n; i++ {
		rows = append(rows, rowOf(i/2))
	}
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// parquetGoAnswers returns, per column, parquet-go's own answers for keys
// 0..2n-1 in the format of duckdb.cjs's answers files.
func parquetGoAnswers(t *testing.T, data []byte, keys int) string {
	t.Helper()
	f, err := pq.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for ci, c := range columns {
		out.WriteString(c + " ")
		for v := 0; v < keys; v++ {
			m := 0
			for g, rg := range f.RowGroups() {
				bf := rg.ColumnChunks()[ci].BloomFilter()
				if bf == nil {
					t.Fatalf("row group %d column %s: no filter", g, c)
				}
				ok, err := bf.Check(value(c, v))
				if err != nil {
					t.Fatal(err)
				}
				if ok {
					m |= 1 << g
				}
			}
			out.WriteString(strconv.FormatInt(int64(m), 16))
		}
		out.WriteString("\n")
	}
	return out.String()
}

// parquetGoStandalone returns a standalone filter of n keys of column s
// built by parquet-go's bloom package (10 bits per value) with the header
// encoded by its thrift package.
func parquetGoStandalone(t *testing.T, n int) []byte {
	t.Helper()
	f := make(bloom.SplitBlockFilter, bloom.NumSplitBlocksOf(int64(n), 10))
	for v := 0; v < n; v++ {
		f.Insert(bloom.XXH64{}.Sum64([]byte(rowOf(v).S)))
	}
	h := format.BloomFilterHeader{
		NumBytes:    int32(len(f.Bytes())),
		Algorithm:   format.BloomFilterAlgorithm{Value: &format.SplitBlockAlgorithm{}},
		Hash:        format.BloomFilterHash{Value: &format.XxHash{}},
		Compression: format.BloomFilterCompression{Value: &format.BloomFilterUncompressed{}},
	}
	hb, err := thrift.Marshal(new(thrift.CompactProtocol), &h)
	if err != nil {
		t.Fatal(err)
	}
	return append(hb, f.Bytes()...)
}

// TestGolden checks ../testdata's parquet-go files against parquet-go
// (with -update, rewrites them): the file of 1200 keys in 3 row groups,
// parquet-go's answers for keys 0..2399, and a standalone filter of 1000
// keys.
func TestGolden(t *testing.T) {
	file := writeParquetGo(t, 1200, 1024)
	answers := parquetGoAnswers(t, file, 2400)
	standalone := parquetGoStandalone(t, 1000)
	want := map[string][]byte{
		"parquetgo.parquet":   file,
		"parquetgo.answers":   []byte(answers),
		"parquetgo-n1000.bin": standalone,
	}
	for name, data := range want {
		path := filepath.Join("..", "testdata", name)
		if *update {
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, data) {
			t.Errorf("%s differs from what parquet-go writes now (run go test -update)", name)
		}
	}
}

// TestStandaloneIdenticalToParquetGo builds, for 10^5 keys of each column
// type, a filter with parquet-go's bloom package and one with bloomcast of
// the same blocks: they must be equal word for word; parquet-go's
// CheckSplitBlock must answer on bloomcast's bitset as bloomcast does on
// 10^5 present and 10^5 absent keys; and parquet-go's thrift decoder must
// read bloomcast's header.
func TestStandaloneIdenticalToParquetGo(t *testing.T) {
	const n = 100000
	for _, c := range columns {
		t.Run(c, func(t *testing.T) {
			theirs := make(bloom.SplitBlockFilter, bloom.NumSplitBlocksOf(n, 10))
			ours, err := parquet.NewBlocks(len(theirs))
			if err != nil {
				t.Fatal(err)
			}
			for v := 0; v < n; v++ {
				theirs.Insert(theirHash(c, v))
				ourInsert(ours, c, v)
			}
			words := ours.Words()
			for i, b := range theirs {
				for j, w := range b {
					if uint32(w) != words[8*i+j] {
						t.Fatalf("block %d word %d: parquet-go %#x, bloomcast %#x", i, j, w, words[8*i+j])
					}
				}
			}
			if !bytes.Equal(theirs.Bytes(), ours.Bitset()) {
				t.Fatal("bitsets differ")
			}
			// parquet-go reads bloomcast's encoding.
			enc, err := ours.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			var h format.BloomFilterHeader
			r := new(thrift.CompactProtocol).NewReaderFromBytes(enc)
			if err := thrift.NewDecoder(r).Decode(&h); err != nil {
				t.Fatal(err)
			}
			if int(h.NumBytes) != ours.Bytes() || r.BytesRead()+ours.Bytes() != len(enc) {
				t.Fatalf("parquet-go reads numBytes %d, header %d bytes; bloomcast wrote %d and %d", h.NumBytes, r.BytesRead(), ours.Bytes(), len(enc)-ours.Bytes())
			}
			bits := enc[r.BytesRead():]
			disagree, fp := 0, 0
			for v := 0; v < 2*n; v++ {
				got, err := bloom.CheckSplitBlock(bytes.NewReader(bits), int64(len(bits)), theirHash(c, v))
				if err != nil {
					t.Fatal(err)
				}
				if got != ourCheck(ours, c, v) || (v < n && !got) {
					disagree++
				}
				if v >= n && got {
					fp++
				}
			}
			if disagree > 0 {
				t.Fatalf("%d of %d answers differ", disagree, 2*n)
			}
			t.Logf("%s: %d blocks word-for-word equal; %d present and %d absent keys, 0 disagreements, %d absent keys reported present", c, len(theirs), n, n, fp)
		})
	}
}

func theirHash(c string, v int) uint64 {
	r := rowOf(v)
	var x bloom.XXH64
	switch c {
	case "s":
		return x.Sum64([]byte(r.S))
	case "i32":
		return x.Sum64Uint32(uint32(r.I32))
	case "i64":
		return x.Sum64Uint64(uint64(r.I64))
	case "f32":
		return x.Sum64Uint32(mathFloat32bits(r.F32))
	case "f64":
		return x.Sum64Uint64(mathFloat64bits(r.F64))
	}
	return x.Sum64(r.U[:])
}

func ourInsert(f *parquet.Filter, c string, v int) {
	r := rowOf(v)
	switch c {
	case "s":
		f.InsertString(r.S)
	case "i32":
		f.InsertInt32(r.I32)
	case "i64":
		f.InsertInt64(r.I64)
	case "f32":
		f.InsertFloat32(r.F32)
	case "f64":
		f.InsertFloat64(r.F64)
	default:
		f.Insert(r.U[:])
	}
}

func ourCheck(f *parquet.Filter, c string, v int) bool {
	r := rowOf(v)
	switch c {
	case "s":
		return f.CheckString(r.S)
	case "i32":
		return f.CheckInt32(r.I32)
	case "i64":
		return f.CheckInt64(r.I64)
	case "f32":
		return f.CheckFloat32(r.F32)
	case "f64":
		return f.CheckFloat64(r.F64)
	}
	return f.Check(r.U[:])
}

// text spells key v of column c as a command line would.
func text(c string, v int) string {
	r := rowOf(v)
	switch c {
	case "s":
		return r.S
	case "i32":
		return strconv.Itoa(int(r.I32))
	case "i64":
		return strconv.FormatInt(r.I64, 10)
	case "f32":
		return strconv.FormatFloat(float64(r.F32), 'g', -1, 32)
	case "f64":
		return strconv.FormatFloat(r.F64, 'g', -1, 64)
	}
	return fmt.Sprintf("%x", r.U)
}

// TestParquetGoFile writes 10^5 keys with parquet-go in 4 row groups and
// checks that bloomcast reads every filter bit-identical to the one it
// builds from the same keys of each row group, and that File.Probe agrees
// with parquet-go's own FileBloomFilter.Check on 10^5 present and 10^5
// absent keys of column s.
func TestParquetGoFile(t *testing.T) {
	const n = 100000
	data := writeParquetGo(t, n, n/2)
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	chunks := f.Filters()
	if len(chunks) != 4*len(columns) {
		t.Fatalf("%d filters, want %d", len(chunks), 4*len(columns))
	}
	for _, ch := range chunks {
		got, err := f.ReadFilter(ch)
		if err != nil {
			t.Fatal(err)
		}
		want, err := parquet.NewBlocks(bloom.NumSplitBlocksOf(ch.NumValues, 10))
		if err != nil {
			t.Fatal(err)
		}
		for i := ch.RowGroup * n / 2; i < (ch.RowGroup+1)*n/2; i++ {
			ourInsert(want, ch.Column, i/2)
		}
		if !got.Equal(want) {
			t.Errorf("row group %d column %s: parquet-go's filter differs from bloomcast's of the same keys", ch.RowGroup, ch.Column)
		}
	}
	pf, err := pq.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	values := make([]string, 2*n)
	for v := range values {
		values[v] = text("s", v)
	}
	answers, err := f.Probe("s", values)
	if err != nil {
		t.Fatal(err)
	}
	disagree := 0
	for v, a := range answers {
		m := 0
		for _, g := range a.RowGroups {
			m |= 1 << g
		}
		theirs := 0
		for g, rg := range pf.RowGroups() {
			ok, err := rg.ColumnChunks()[0].BloomFilter().Check(value("s", v))
			if err != nil {
				t.Fatal(err)
			}
			if ok {
				theirs |= 1 << g
			}
		}
		if m != theirs || (v < n && m == 0) {
			disagree++
		}
	}
	if disagree > 0 {
		t.Fatalf("%d of %d answers differ from parquet-go's", disagree, 2*n)
	}
	t.Logf("parquet-go file: %d filters bit-identical; %d present and %d absent values probed, 0 disagreements", len(chunks), n, n)
}

func mathFloat32bits(f float32) uint32 { return math.Float32bits(f) }
func mathFloat64bits(f float64) uint64 { return math.Float64bits(f) }

// TestColumnFilterOneRowGroup takes, with anyfile.File.ColumnFilter (what
// bloomcast convert --to parquet-sbbf --column runs), each column's filter
// out of a file of one row group that parquet-go wrote, without naming the
// row group: the bytes are the file's, and parquet-go's own bloom filter
// of the chunk agrees with the standalone filter on every key.
func TestColumnFilterOneRowGroup(t *testing.T) {
	const n = 2000
	data := writeParquetGo(t, n, 2*n)
	af, err := anyfile.Read(bytes.NewReader(data), anyfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := pq.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if len(theirs.RowGroups()) != 1 {
		t.Fatalf("%d row groups", len(theirs.RowGroups()))
	}
	pf, _ := anyfile.As[*parquet.File](af)
	chunks := pf.Filters()
	for i, c := range chunks {
		g, err := af.ColumnFilter(c.Column, -1)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if _, err := g.WriteTo(&out); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), data[c.Offset:c.Offset+int64(c.Length)]) {
			t.Errorf("column %s: the filter written differs from the file's bytes", c.Column)
		}
		ours, _ := anyfile.As[*parquet.Filter](g)
		bf := theirs.RowGroups()[0].ColumnChunks()[i].BloomFilter()
		if bf == nil {
			t.Fatalf("column %s: parquet-go finds no filter", c.Column)
		}
		for v := range 2 * n {
			want, err := bf.Check(value(c.Column, v))
			if err != nil {
				t.Fatal(err)
			}
			if got := ourCheck(ours, c.Column, v); got != want {
				t.Fatalf("column %s key %d: the filter taken out says %v, parquet-go's %v", c.Column, v, got, want)
			}
		}
	}
	if len(chunks) != len(columns) {
		t.Errorf("%d filters, want %d", len(chunks), len(columns))
	}
}
