package anyfile_test

import (
	"fmt"
	"testing"

	"github.com/bloomcast/bloomcast/anyfile"
	"github.com/bloomcast/bloomcast/formats/parquet"
)

// Build a Guava filter sized for the distinct keys read, as "bloomcast
// build --format guava" does without -n.
func ExampleForeignBuilder() {
	b, err := anyfile.NewForeignBuilder(anyfile.Spec{Format: anyfile.FormatGuava, P: 0.01}, false)
	if err != nil {
		panic(err)
	}
	for _, k := range []string{"a", "b", "a", "c"} {
		if err := b.Add([]byte(k)); err != nil {
			panic(err)
		}
	}
	f, r, err := b.Finish()
	if err != nil {
		panic(err)
	}
	ok, _ := f.Contains([]byte("b"))
	fmt.Println(f.Format(), r.Read, "read,", r.Distinct, "distinct; b present:", ok)
	// Output:
	// guava 4 read, 3 distinct; b present: true
}

func TestForeignBuilderModes(t *testing.T) {
	// Sized by the Spec: no distinct count.
	b, err := anyfile.NewForeignBuilder(anyfile.Spec{Format: anyfile.FormatBitsAndBlooms, N: 100, P: 0.01}, false)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if err := b.Add(fmt.Appendf(nil, "k%d", i%5)); err != nil {
			t.Fatal(err)
		}
	}
	f, r, err := b.Finish()
	if err != nil || r.Read != 10 || r.Distinct != 0 || f.Format() != anyfile.FormatBitsAndBlooms {
		t.Fatalf("sized: %v %+v %v", f.Format(), r, err)
	}

	// Fitted: folded to the keys, which are typed.
	b, err = anyfile.NewForeignBuilder(anyfile.Spec{Format: anyfile.FormatParquetSBBF, N: 1 << 20, P: 0.01, Keys: anyfile.KeyLong}, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Add([]byte("x")); err == nil {
		t.Error("a fitted builder of longs took \"x\"")
	}
	for i := range 1000 {
		if err := b.Add(fmt.Appendf(nil, "%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	f, r, err = b.Finish()
	if err != nil || r.Read != 1000 || r.Distinct != 1000 {
		t.Fatalf("fitted: %+v %v", r, err)
	}
	if blocks := as[*parquet.Filter](f).Blocks(); blocks > 1<<10 {
		t.Errorf("fitted filter of 1000 keys has %d blocks", blocks)
	}
	if ok, _ := f.Contains([]byte("999")); !ok {
		t.Error("fitted filter lost a key")
	}

	// Refused.
	for _, c := range []struct {
		s   anyfile.Spec
		fit bool
	}{
		{anyfile.Spec{Format: anyfile.FormatGuava, P: 0.01}, true},
		{anyfile.Spec{Format: anyfile.FormatParquetSBBF, M: 1 << 16, P: 0.01}, true},
		{anyfile.Spec{Format: anyfile.FormatParquetSBBF, P: 2}, true},
		{anyfile.Spec{Format: anyfile.FormatGuava, N: 10, P: 2}, false},
	} {
		if _, err := anyfile.NewForeignBuilder(c.s, c.fit); err == nil {
			t.Errorf("NewForeignBuilder(%+v, %v): no error", c.s, c.fit)
		}
	}
	var zero *anyfile.ForeignBuilder
	if zero.Add(nil) == nil {
		t.Error("Add on a nil builder: no error")
	}
	if _, _, err := zero.Finish(); err == nil {
		t.Error("Finish on a nil builder: no error")
	}
}
