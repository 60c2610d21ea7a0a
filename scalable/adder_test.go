package scalable

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestAdder(t *testing.T) {
	f := MustNew(Config{Capacity: 100, P: 0.01, Seed: 4})
	g := MustNew(Config{Capacity: 100, P: 0.01, Seed: 4})
	a := NewAdder(f)
	var buf [9]byte
	for i := range 3000 {
		key := keyOf(&buf, 0, uint64(i%2200)) // 800 duplicates
		if err := a.Add(key); err != nil {
			t.Fatal(err)
		}
		if err := g.Add(key); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Flush(); err != nil {
		t.Fatal(err)
	}
	if !f.Equal(g) || f.Count() != g.Count() {
		t.Errorf("Adder and Add differ: %d layers, count %d vs %d layers, count %d", f.Layers(), f.Count(), g.Layers(), g.Count())
	}
	if err := a.Flush(); err != nil || a.AddString("x") != nil || a.Flush() != nil || !f.ContainsString("x") {
		t.Error("the Adder does not go on after a Flush")
	}
}

func TestAdderFull(t *testing.T) {
	f := MustNew(Config{Capacity: 50, P: 0.01, NonScaling: true})
	a := NewAdder(f)
	var err error
	for i := range 2000 {
		if err = a.AddString(fmt.Sprint("k", i)); err != nil {
			break
		}
	}
	if err == nil {
		t.Fatal("2000 keys went into a non-scaling filter of 50 without an error")
	}
	want := "scalable: filter is full: non-scaling, holding its capacity of 50 keys (after 50 keys)"
	if !errors.Is(err, ErrFull) || err.Error() != want || f.Count() != 50 {
		t.Errorf("error %q, count %d; want %q", err, f.Count(), want)
	}
	if e1, e2 := a.AddString("more"), a.Flush(); e1 == nil || e1.Error() != want || e2 == nil || e2.Error() != want || f.Count() != 50 {
		t.Error("the Adder went on after ErrFull")
	}
}

func TestAdderZero(t *testing.T) {
	var a Adder
	if err := a.Flush(); err != nil {
		t.Errorf("zero Adder's Flush: %v", err)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "use New") {
			t.Errorf("zero Adder's Add: recovered %v", r)
		}
	}()
	_ = a.AddString("k")
}
