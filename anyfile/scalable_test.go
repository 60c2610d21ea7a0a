package anyfile_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/bloomcast/bloomcast/anyfile"
	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/scalable"
)

// TestScalable: a scalable filter is read whatever its layers' codecs,
// written back with them, grows in place under Update, and unions.
func TestScalable(t *testing.T) {
	f := scalable.MustNew(scalable.Config{Capacity: 50, P: 0.01, Seed: 3})
	for i := range 120 {
		if err := f.AddString(fmt.Sprint("k", i)); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	for _, c := range []digest.Codec{digest.Raw, digest.Arith, digest.Fast, digest.Auto} {
		b, err := digest.Encode(&digest.Digest{Sequence: 4, Scalable: f}, c)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, c.String()+".bf")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		for i := 120; i < 400; i++ {
			key := []byte(fmt.Sprint("k", i))
			if err := anyfile.Update(path, anyfile.Options{}, func(g *anyfile.File) error { return g.Add(key) }); err != nil {
				t.Fatal(err)
			}
		}
		g, err := anyfile.ReadFile(path, anyfile.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if g.Kind() != anyfile.Scalable || g.Header.Sequence != 4 || as[*scalable.Filter](g).Layers() <= f.Layers() {
			t.Errorf("%v: %v, sequence %d, %d layers after growth in place", c, g.Kind(), g.Header.Sequence, as[*scalable.Filter](g).Layers())
		}
		if c != digest.Auto && g.Codec() != c {
			t.Errorf("%v: written back with %v", c, g.Codec())
		}
		for i := range 400 {
			if in, err := g.Contains([]byte(fmt.Sprint("k", i))); !in || err != nil {
				t.Fatalf("%v: key %d lost: %v", c, i, err)
			}
		}
		if c == digest.Raw {
			b, _ := os.ReadFile(path)
			if _, err := scalable.Decode(b, envelope.Limits{}); err != nil {
				t.Errorf("a raw file is not a scalable frame: %v", err)
			}
		}
	}
	a, _ := anyfile.ReadFile(filepath.Join(dir, "raw.bf"), anyfile.Options{})
	b, _ := anyfile.ReadFile(filepath.Join(dir, "fast.bf"), anyfile.Options{})
	if err := a.Union(b); err != nil || !as[*scalable.Filter](a).Equal(as[*scalable.Filter](b)) {
		t.Errorf("union of equal filters: %v", err)
	}
	if err := a.Intersect(b); err == nil {
		t.Error("scalable filters intersected")
	}
	if err := a.Fold(0); err == nil {
		t.Error("a scalable filter folded")
	}
	var w bytes.Buffer
	if _, err := a.WriteTo(&w); err != nil {
		t.Fatal(err)
	}
}

func TestScalableNonScalingFull(t *testing.T) {
	f := scalable.MustNew(scalable.Config{Capacity: 2, P: 0.01, NonScaling: true})
	b, _ := f.MarshalBinary()
	path := filepath.Join(t.TempDir(), "f.bf")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	err := anyfile.Update(path, anyfile.Options{}, func(g *anyfile.File) error {
		for _, k := range []string{"a", "b", "c"} {
			if err := g.Add([]byte(k)); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		t.Fatal("a non-scaling filter took keys beyond its capacity")
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, b) {
		t.Error("a refused update changed the file")
	}
}
