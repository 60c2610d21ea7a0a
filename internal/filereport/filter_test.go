package filereport_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/anyfile"
	"github.com/bloomcast/bloomcast/bloomier"
	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/internal/filereport"
	"github.com/bloomcast/bloomcast/params"
	"github.com/bloomcast/bloomcast/scalable"
)

// build writes a filter of kind holding keys and reads it back.
func build(t testing.TB, kind anyfile.Kind, keys ...string) *anyfile.File {
	b, err := anyfile.NewBuilder(anyfile.BuildConfig{Kind: kind, Query: params.Query{N: 100, P: 0.01}, Folds: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		b.Add([]byte(k))
	}
	f, _, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := f.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	g, err := anyfile.Read(&buf, anyfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

type exampleTB struct{ testing.TB }

func (exampleTB) Fatal(args ...any) { panic(fmt.Sprint(args...)) }

// Describe a Bloom filter read from a file, as "bloomcast inspect" does.
func ExampleFilter() {
	f := build(exampleTB{}, anyfile.Bloom, "a", "b", "c")
	r, err := filereport.Filter(f, "keys.bf")
	if err != nil {
		panic(err)
	}
	if err := r.WriteText(os.Stdout); err != nil {
		panic(err)
	}
	// Output:
	// file                 keys.bf
	// format version       1
	// structure            bloom
	// codec                raw
	// sequence             0
	// hash scheme          xxh3 (id 1), seed 0x0
	// layout               blocked
	// m                    2048 bits
	// k                    5
	// block bits           512
	// size                 256 bytes of bits, 320 bytes encoded (320 B)
	// payload              256 bytes, 16.0053 × the entropy bound of 16 bytes
	// count                3 keys, as recorded (bloomcast build: distinct keys read; add: keys added since)
	// set bits             15
	// fill ratio           0.0073
	// estimated count      3 distinct keys, from the set bits
	// false-positive rate  6.661e-11 now, from the set bits
	// predicted rate       1.914e-09 at the recorded count (params model)
	// bits per key         682.667 at the recorded count
	// folds                2 (halves down to 512 bits, 1/4)
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestFilterReportText(t *testing.T) {
	f := build(t, anyfile.Counting, "a", "b", "c")
	r, err := filereport.Filter(f, "-")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"file                 stdin\n", "counters and bits", "3 keys added minus removed", "- (does not fold)", "\ncounter values ", "\noverflow bound "} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in\n%s", want, b.String())
		}
	}
	if r.WriteText(failWriter{}) == nil {
		t.Error("a failed write returned no error")
	}
	// The frame's fields stand first in the JSON, as before FrameReport.
	j, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(j), `{"file":"-","format":"bloomcast","format_version":`) || !strings.Contains(string(j), `"hash_scheme":"xxh3","hash_scheme_id":`) {
		t.Errorf("JSON %s", j)
	}
	if _, err := filereport.Filter(build(t, anyfile.Deletion, "a"), "x"); err == nil {
		t.Error("FilterReport of a deletion filter: no error")
	}
}

func TestStructureAndDeltaReportText(t *testing.T) {
	f := build(t, anyfile.Deletion, "a", "b")
	r, err := filereport.Structure(f, "d.bf")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"file                 d.bf\n", "structure            deletion\n", "bits in each of two filters", "\nfalse deletions "} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in\n%s", want, b.String())
		}
	}
	if r.WriteText(failWriter{}) == nil {
		t.Error("a failed write returned no error")
	}

	old, cur := build(t, anyfile.Bloom, "a"), build(t, anyfile.Bloom, "a", "b")
	d, err := anyfile.Diff(old, cur, digest.Raw)
	if err != nil {
		t.Fatal(err)
	}
	df, err := anyfile.Read(bytes.NewReader(d), anyfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dr, err := filereport.Delta(df, "d.delta")
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := dr.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "structure       delta digest of a bloom filter\n") {
		t.Errorf("delta text:\n%s", b.String())
	}
}

func TestScalableReportText(t *testing.T) {
	s, err := scalable.New(scalable.Config{Capacity: 10, P: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 25 {
		if err := s.AddString(fmt.Sprint(i)); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if _, err := s.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	f, err := anyfile.Read(&buf, anyfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := filereport.Scalable(f, "s.bf")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"25 keys in 2 layers", "\nlayer 0 ", "\nlayer 1 ", "structure       scalable Bloom filter, layers coded raw\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in\n%s", want, b.String())
		}
	}
	if _, err := filereport.Scalable(build(t, anyfile.Bloom), "x"); err == nil {
		t.Error("ScalableReport of a Bloom filter: no error")
	}
}

func TestBloomierReportText(t *testing.T) {
	f, err := bloomier.Build(bloomier.Config{ValueBits: 4, CheckBits: 8}, [][]byte{[]byte("a"), []byte("b")}, []uint64{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := filereport.NewBloomierReport(f).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"keys             2\n", "value bits       4\n", "check bits       8\n", "·(value + check bits))", " of keys outside the set\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in\n%s", want, b.String())
		}
	}
	if filereport.NewBloomierReport(f).WriteText(failWriter{}) == nil {
		t.Error("a failed write returned no error")
	}
}

// TestCountingReportSaysCounters: a counting filter's m is its number of
// counters, each with a bit in the view, and the text says so.
func TestCountingReportSaysCounters(t *testing.T) {
	r := &filereport.FilterReport{M: 10240, K: 5, Layout: "blocked", Counting: &filereport.CountingReport{CounterWidth: 4}}
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if want := "10240 counters of 4 bits, and the bit view's 10240 bits"; !strings.Contains(b.String(), want) {
		t.Errorf("report:\n%s\nwant a line with %q", b.String(), want)
	}
}

// TestSizeSaysWholeWords: a filter whose m is not a whole number of
// 64-bit words (a Squid digest of 5000 bits) takes more bytes in memory
// than its payload's m/8, and the size line says why.
func TestSizeSaysWholeWords(t *testing.T) {
	for _, c := range []struct {
		m, bytes uint64
		want     string
	}{
		{5000, 632, "632 bytes of bits in memory (whole 64-bit words)"},
		{2048, 256, "256 bytes of bits,"},
	} {
		r := &filereport.FilterReport{M: c.m, K: 4, Layout: "classic", SizeBytes: int(c.bytes)}
		var b strings.Builder
		if err := r.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), c.want) {
			t.Errorf("m = %d:\n%s\nwant a line with %q", c.m, b.String(), c.want)
		}
	}
}
