package coders

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

// TestRunSmall runs the whole measurement at m = 2^16, one round: every
// round trip must pass (Run fails otherwise), bloomcast's coders must sit
// within 1.005·m·H(p̂) + 64 bytes at every density, flate must not at
// p = 0.01, and the report must render and survive JSON.
func TestRunSmall(t *testing.T) {
	const m = 1 << 16
	rep, err := Run(Config{M: m, Reps: 1, MinPass: -1})
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"bloomcast fast", "bloomcast arith", "flate -9", "zstd best"}
	if len(rep.Cases) != len(DefaultPs) {
		t.Fatalf("%d cases, want %d", len(rep.Cases), len(DefaultPs))
	}
	for _, c := range rep.Cases {
		if math.Abs(c.Density-c.P) > 5*math.Sqrt(c.P*(1-c.P)/m) {
			t.Errorf("p=%g: measured density %g", c.P, c.Density)
		}
		if len(c.Results) != len(names) {
			t.Fatalf("p=%g: %d results, want %d", c.P, len(c.Results), len(names))
		}
		bound := 1.005*c.Ideal + 64
		for i, r := range c.Results {
			if r.Name != names[i] {
				t.Errorf("p=%g: result %d is %q, want %q", c.P, i, r.Name, names[i])
			}
			checkTiming(t, c.P, r.Name+" encode", r.Encode)
			checkTiming(t, c.P, r.Name+" decode", r.Decode)
			if r.Bytes <= 0 || math.Abs(r.Ratio-float64(r.Bytes)/c.Ideal) > 1e-12 {
				t.Errorf("p=%g %s: %d bytes, ratio %g against %g", c.P, r.Name, r.Bytes, r.Ratio, c.Ideal)
			}
			if strings.HasPrefix(r.Name, "bloomcast") && float64(r.Bytes) > bound {
				t.Errorf("p=%g %s: %d bytes, more than 1.005·m·H(p̂)/8 + 64 = %.0f", c.P, r.Name, r.Bytes, bound)
			}
		}
		if c.P == 0.01 {
			if fl := c.Results[2]; float64(fl.Bytes) <= bound {
				t.Errorf("p=0.01: flate %d bytes, within the bound %.0f bloomcast meets", fl.Bytes, bound)
			}
		}
		if v := c.Results[0].Variant; c.P == 0.5 && v != "raw" || c.P < 0.2 && v != "rans" {
			t.Errorf("p=%g: fast picked %q", c.P, v)
		}
	}
	checkRendering(t, rep)
}

func checkTiming(t *testing.T, p float64, what string, tm Timing) {
	t.Helper()
	if len(tm.SamplesNs) != 1 || len(tm.WallSamplesNs) != 1 || !(tm.MBps > 0) || !(tm.WallMBps > 0) {
		t.Errorf("p=%g %s: %v", p, what, tm)
	}
	// One thread's CPU time cannot much exceed the elapsed time. The
	// slack of 2 ms is for CPU clocks that a VM advances in ticks: a
	// short sample can be charged one tick more than it ran (seen once).
	// A unit mistake would still be off by a factor of 1000.
	if tm.SamplesNs[0] > 1.2*tm.WallSamplesNs[0]+2e6 {
		t.Errorf("p=%g %s: CPU %g ns, wall %g ns", p, what, tm.SamplesNs[0], tm.WallSamplesNs[0])
	}
}

func checkRendering(t *testing.T, rep *Report) {
	t.Helper()
	var md bytes.Buffer
	if err := WriteMarkdown(&md, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"GOMAXPROCS", "load average", "| 0.50 | 1.0", "| 0.01 |", "zstd best enc / dec MB/s", "(raw)", "(rans)"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md.String())
		}
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	back, err := ReadJSON(&js)
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := WriteMarkdown(&again, back); err != nil {
		t.Fatal(err)
	}
	if again.String() != md.String() {
		t.Errorf("Markdown after a JSON round trip differs:\n%s\nwas\n%s", again.String(), md.String())
	}
}

// TestArray checks that arrays are deterministic by seed and that both
// forms hold the same bits.
func TestArray(t *testing.T) {
	a, b, c := NewArray(4096, 0.1, 3), NewArray(4096, 0.1, 3), NewArray(4096, 0.1, 4)
	if !slices.Equal(a.Words, b.Words) || slices.Equal(a.Words, c.Words) {
		t.Error("arrays do not follow the seed")
	}
	var ones uint64
	for i := range a.M {
		bit := a.Words[i/64] >> (i % 64) & 1
		if uint64(a.Bytes[i/8]>>(i%8)&1) != bit {
			t.Fatalf("bit %d differs between words and bytes", i)
		}
		ones += bit
	}
	if ones != a.Ones {
		t.Errorf("%d ones counted, %d recorded", ones, a.Ones)
	}
	if z := NewArray(128, 0, 1); z.Ones != 0 || z.Ideal() != 0 {
		t.Errorf("p=0: %d ones, ideal %g", z.Ones, z.Ideal())
	}
}

// broken decodes to a wrong array without an error.
type broken struct{ Instance }

func (broken) Check() bool { return false }

// TestMismatchFails checks that a wrong decode stops the run.
func TestMismatchFails(t *testing.T) {
	bad := Coder{Name: "broken", New: func(a *Array) (Instance, error) {
		in, err := newFlate(a)
		return broken{in}, err
	}}
	_, err := Run(Config{M: 4096, Ps: []float64{0.1}, Reps: 1, MinPass: -1, Coders: []Coder{bad}})
	if !errors.Is(err, ErrMismatch) {
		t.Fatalf("got %v, want ErrMismatch", err)
	}
}

// TestBadConfig checks the errors of an impossible run.
func TestBadConfig(t *testing.T) {
	for _, cfg := range []Config{{M: 100}, {Ps: []float64{1.5}}, {Reps: -1}} {
		if _, err := Run(cfg); err == nil {
			t.Errorf("%+v: no error", cfg)
		}
	}
}
