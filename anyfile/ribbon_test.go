package anyfile

import (
	"bytes"
	"errors"
	"testing"

	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/ribbon"
)

func TestRibbonFile(t *testing.T) {
	keys := []string{"a", "b", "c", "http://www.example.com/"}
	rf, err := ribbon.BuildStrings(ribbon.Config{Rate: 0.01, Seed: 9}, keys)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := rf.MarshalBinary()
	f, err := Read(bytes.NewReader(b), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f.Kind() != Ribbon || f.Kind().String() != "ribbon filter" {
		t.Fatalf("kind %v", f.Kind())
	}
	for _, k := range keys {
		if ok, err := f.Contains([]byte(k)); !ok || err != nil {
			t.Errorf("%s: %v %v", k, ok, err)
		}
	}
	w, err := f.Convert(FormatBloomcast, digest.Auto)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := w.WriteTo(&out); err != nil || !bytes.Equal(out.Bytes(), b) {
		t.Errorf("convert to bloomcast: %v", err)
	}
	if _, err := f.Convert(FormatBloomcast, digest.Fast); err == nil {
		t.Error("convert with the fast codec accepted")
	}
	if _, err := f.Convert(FormatGuava, digest.Auto); !errors.Is(err, ErrLossy) {
		t.Errorf("convert to guava: %v", err)
	}
}
