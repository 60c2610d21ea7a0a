package filereport_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/anyfile"
	"github.com/bloomcast/bloomcast/internal/filereport"
)

// Describe a Parquet file's split block filters, as "bloomcast inspect"
// does.
func ExampleParquet() {
	b, err := os.ReadFile("../../formats/parquet/testdata/duckdb.parquet")
	if err != nil {
		panic(err)
	}
	f, err := anyfile.Read(bytes.NewReader(b), anyfile.Options{})
	if err != nil {
		panic(err)
	}
	r, err := filereport.Parquet(f, "duckdb.parquet")
	if err != nil {
		panic(err)
	}
	if err := r.WriteText(os.Stdout); err != nil {
		panic(err)
	}
	// Output:
	// file duckdb.parquet: Parquet, 2 row groups, 6 columns, 12 split block Bloom filters
	// column  row group                  type  values  bytes    fill  est. distinct
	// s               0            BYTE_ARRAY    2048   2048  0.3938           1025
	// i32             0                 INT32    2048   2048  0.3939           1026
	// i64             0                 INT64    2048   2048  0.3939           1026
	// f32             0                 FLOAT    2048   2048  0.3926           1021
	// f64             0                DOUBLE    2048   2048  0.3912           1016
	// u               0  FIXED_LEN_BYTE_ARRAY    2048   2048  0.3904           1014
	// s               1            BYTE_ARRAY    1024   1024  0.3956            516
	// i32             1                 INT32    1024   1024  0.3916            509
	// i64             1                 INT64    1024   1024  0.3951            515
	// f32             1                 FLOAT    1024   1024  0.3877            502
	// f64             1                DOUBLE    1024   1024  0.3948            514
	// u               1  FIXED_LEN_BYTE_ARRAY    1024   1024  0.3943            513
}

func TestForeignReport(t *testing.T) {
	for format, b := range foreignFiles(t) {
		f := read(t, b, anyfile.Options{})
		r, err := filereport.Foreign(f, "-")
		if err != nil {
			t.Fatalf("%v: %v", format, err)
		}
		var sb strings.Builder
		if err := r.WriteText(&sb); err != nil {
			t.Fatal(err)
		}
		s := f.Stats()
		if r.M != s.Bits || r.Format != format.String() || !strings.HasPrefix(sb.String(), "file                 stdin\nformat               "+format.String()+" (a "+f.Kind().String()+")") {
			t.Errorf("%v: %+v\n%s", format, r, sb.String())
		}
		if r.WriteText(failWriter{}) == nil {
			t.Error("a failed write returned no error")
		}
		j, err := json.Marshal(r)
		if err != nil || strings.Contains(string(j), "Kind") || !strings.HasPrefix(string(j), `{"file":"-","format":`) {
			t.Errorf("JSON %s %v", j, err)
		}
		if _, err := filereport.Filter(f, "x"); err == nil {
			t.Errorf("%v: FilterReport: no error", format)
		}
		if _, err := filereport.Parquet(f, "x"); err == nil {
			t.Errorf("%v: ParquetReport: no error", format)
		}
	}
	if _, err := filereport.Foreign(build(t, anyfile.Bloom), "x"); err == nil {
		t.Error("ForeignReport of a bloomcast filter: no error")
	}
}

// foreignFiles are encodings of other programs' filters: golden files
// written by Guava, by bloom/v3 and by parquet-go, and the format each is
// in.
func foreignFiles(t testing.TB) map[anyfile.Format][]byte {
	golden := func(pkg, name string) []byte {
		t.Helper()
		b, err := os.ReadFile(filepath.Join("..", "..", "formats", pkg, "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	return map[anyfile.Format][]byte{
		anyfile.FormatGuava:             golden("guava", "str-mitz64-n10000-p0.01.bin"),
		anyfile.FormatBitsAndBlooms:     golden("bitsandblooms", "m1000-k7-n100.bin"),
		anyfile.FormatBitsAndBloomsJSON: golden("bitsandblooms", "m1000-k7-n100.json"),
		anyfile.FormatParquetSBBF:       golden("parquet", "parquetgo-n1000.bin"),
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
