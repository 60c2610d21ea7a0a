package anyfile_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/bloomcast/bloomcast/anyfile"
	"github.com/bloomcast/bloomcast/digest"
)

// TestStatic reads a static digest's whole frame (the golden file of
// package digest): every key put is found, the view is the one
// digest.StaticView makes of the frame, and a static delta, which
// answers nothing alone, is refused.
func TestStatic(t *testing.T) {
	f, err := anyfile.ReadFile("../digest/testdata/golden-static-full.bin", anyfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f.Kind() != anyfile.Static || f.Kind().String() != "static digest" || f.Size != 538 {
		t.Fatalf("read as %v, %d bytes", f.Kind(), f.Size)
	}
	// The same publication with its filters as frames (kind 1), which
	// publishers wrote before.
	if g, err := anyfile.ReadFile("../digest/testdata/golden-static-full-framed.bin", anyfile.Options{}); err != nil || g.Kind() != anyfile.Static || g.Size != 660 {
		t.Fatalf("the framed whole frame: %v", err)
	}
	for i := range 200 {
		if in, err := f.Contains(fmt.Appendf(nil, "k%d", i)); !in || err != nil {
			t.Fatalf("k%d: %t, %v", i, in, err)
		}
	}
	v, ok := anyfile.As[*digest.StaticView](f)
	if keys, bits := v.Sizes(); !ok || v.Sequence() != 1 || v.Base() != 1 || keys != 200 || bits != 51100 {
		t.Errorf("view: %t, sequence %d, base %d, %d keys, %d bits", ok, v.Sequence(), v.Base(), keys, bits)
	}
	absent := 0
	for i := range 10000 {
		if in, _ := f.Contains(fmt.Appendf(nil, "absent%d", i)); in {
			absent++
		}
	}
	if rate := float64(absent) / 10000; rate > 3*v.FalsePositiveRate() {
		t.Errorf("%d of 10000 absent keys found, rate %g", absent, v.FalsePositiveRate())
	}
	data, err := os.ReadFile("../digest/testdata/golden-static-full.bin")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := f.WriteTo(&out); err != nil || !bytes.Equal(out.Bytes(), data) {
		t.Errorf("written back: %v, %d bytes, equal %t", err, out.Len(), bytes.Equal(out.Bytes(), data))
	}
	if _, err := f.Convert(anyfile.FormatBloomcast, digest.Fast); err == nil {
		t.Error("a static digest recoded")
	}
	if err := f.Add([]byte("x")); err == nil {
		t.Error("a static digest took a key")
	}
	if _, err := anyfile.ReadFile("../digest/testdata/golden-static-delta.bin", anyfile.Options{}); !errors.Is(err, digest.ErrStatic) {
		t.Errorf("a static delta read alone: %v", err)
	}
}
