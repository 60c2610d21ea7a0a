package digest

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/hashing"
)

// xorPublisher returns a StaticXOR publisher at rate.
func xorPublisher(t testing.TB, rate float64) *StaticPublisher {
	t.Helper()
	p, err := NewStaticPublisher(StaticConfig{Rate: rate, Seed: staticSeed, Form: StaticXOR})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// frameKind returns a type-13 frame's kind and parts byte.
func frameKind(t testing.TB, frame []byte) (kind, parts byte) {
	t.Helper()
	h, _, err := envelope.Parse(frame, envelope.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return h.Params[0], h.Params[1]
}

// TestStaticXORRates: after 5 000 of 50 000 keys are removed and 5 000
// added (rate 1/64), an absent key is reported present at the rate
// ε_ribbon + ε_D − 2·ε_ribbon·ε_D (ε_D the one filter's share of bits
// set), below FalsePositiveRate's ε_ribbon + ε_D, and a present key the
// ribbon holds is hidden at ε_D: each measured rate within four standard
// deviations of the prediction. A removed key is never reported, nor an
// added one the ribbon does not hold.
func TestStaticXORRates(t *testing.T) {
	const n, c = 50000, 5000
	p := xorPublisher(t, 1.0/64)
	frame, _, err := p.Publish(1, staticKeys("x", 0, n))
	if err != nil {
		t.Fatal(err)
	}
	v := mustApply(t, nil, frame)
	if k, _ := frameKind(t, frame); k != staticKindXORWholeCompact {
		t.Fatalf("whole frame of kind %d", k)
	}
	frame, full, err := p.Publish(2, staticKeys("x", c, n+c))
	if err != nil || full {
		t.Fatalf("delta: full %v, %v", full, err)
	}
	if k, parts := frameKind(t, frame); k != staticKindXORDelta || parts != 1 {
		t.Fatalf("delta of kind %d, parts %d", k, parts)
	}
	v = mustApply(t, v, frame)
	er, ed := v.static.FalsePositiveRate(), v.flip.fill()
	if ed < 0.002 || ed > 0.004 { // 10^4 keys in n/−ln(1 − 1/64) bits
		t.Fatalf("the filter's fill %g", ed)
	}

	check := func(what string, got, total int, want float64) {
		t.Helper()
		sd := math.Sqrt(want * (1 - want) / float64(total))
		rate := float64(got) / float64(total)
		t.Logf("%s: %d of %d (%.5f), predicted %.5f ± %.5f", what, got, total, rate, want, sd)
		if math.Abs(rate-want) > 4*sd {
			t.Errorf("%s: rate %.5f, predicted %.5f (σ %.5f)", what, rate, want, sd)
		}
	}
	absent := staticKeys("absent", 0, 200000)
	shown := 0
	for _, h := range absent {
		if v.ContainsHash(h) {
			shown++
		}
	}
	check("absent keys reported present", shown, len(absent), er+ed-2*er*ed)
	if float64(shown)/float64(len(absent)) > v.FalsePositiveRate() || v.FalsePositiveRate() != er+ed {
		t.Errorf("measured %g above FalsePositiveRate %g (ε_ribbon %g + ε_D %g)", float64(shown)/float64(len(absent)), v.FalsePositiveRate(), er, ed)
	}
	hidden := 0
	for _, h := range staticKeys("x", 2*c, n) { // in the ribbon and the set
		if !v.ContainsHash(h) {
			hidden++
		}
	}
	check("present keys reported absent", hidden, n-2*c, ed)
	for _, h := range staticKeys("x", 0, c) {
		if v.ContainsHash(h) {
			t.Fatal("a removed key is reported present")
		}
	}
	for _, h := range staticKeys("x", n, n+c) {
		if !v.static.ContainsHash(h) && !v.ContainsHash(h) {
			t.Fatal("an added key the ribbon does not hold is reported absent")
		}
	}
}

// TestStaticXORRibbonFalsePositive: a key added since the ribbon that the
// ribbon already reports (its false positive) stays out of the filter,
// and the view reports it present; so does every other added key, and no
// removed one. The filter holds the removed keys and the added ones the
// ribbon does not hold: its key count says so.
func TestStaticXORRibbonFalsePositive(t *testing.T) {
	p := xorPublisher(t, 1.0/16)
	base := staticKeys("fp", 0, 2000)
	frame, _, err := p.Publish(1, base)
	if err != nil {
		t.Fatal(err)
	}
	v := mustApply(t, nil, frame)
	var fps, others []hashing.Hash128
	for _, h := range staticKeys("new", 0, 400) {
		if v.static.ContainsHash(h) {
			fps = append(fps, h)
		} else {
			others = append(others, h)
		}
	}
	if len(fps) < 10 {
		t.Fatalf("%d ribbon false positives among 400 keys at 1/16", len(fps))
	}
	set := append(append(append([]hashing.Hash128(nil), base[100:]...), fps...), others...)
	frame, full, err := p.Publish(2, set)
	if err != nil || full {
		t.Fatalf("delta: full %v, %v", full, err)
	}
	v = mustApply(t, v, frame)
	if want := uint64(100 + len(others)); v.flip.count != want || p.published[0].count != want {
		t.Errorf("the filter holds %d keys (publisher %d), want the 100 removed and %d added the ribbon does not hold", v.flip.count, p.published[0].count, len(others))
	}
	for _, h := range fps {
		if !v.ContainsHash(h) {
			t.Fatal("an added key that is a ribbon false positive is reported absent")
		}
	}
	for _, h := range others {
		if !v.ContainsHash(h) {
			t.Fatal("an added key is reported absent")
		}
	}
	for _, h := range base[:100] {
		if v.ContainsHash(h) {
			t.Fatal("a removed key is reported present")
		}
	}
	// The added keys removed again leave the filter: it holds the 100
	// removed keys only, and the false positives are reported again by
	// the ribbon alone.
	frame, _, err = p.Publish(3, base[100:])
	if err != nil {
		t.Fatal(err)
	}
	v = mustApply(t, v, frame)
	if v.flip.count != 100 {
		t.Errorf("the filter holds %d keys, want the 100 removed", v.flip.count)
	}
	for _, h := range base[:100] {
		if v.ContainsHash(h) {
			t.Fatal("a removed key is reported present")
		}
	}
}

// TestStaticXORRoundTrip: a StaticXOR publisher's whole frame and deltas
// (additions, removals, a key removed and added back, a new ribbon, an
// empty set) bring a view to answer ribbon(k) XOR filter(k) of the
// filter built from the publisher's key lists, and a view read from the
// publisher's whole frame answers as the one the deltas built.
func TestStaticXORRoundTrip(t *testing.T) {
	for _, c := range allCodecs {
		p, err := NewStaticPublisher(StaticConfig{Seed: staticSeed, Codec: c, Form: StaticXOR})
		if err != nil {
			t.Fatal(err)
		}
		var v *StaticView
		sets := [][]hashing.Hash128{
			staticKeys("r", 0, 3000),
			staticKeys("r", 50, 3100),
			staticKeys("r", 100, 3100),
			append(staticKeys("r", 0, 1), staticKeys("r", 100, 3200)...), // r/0 back
			staticKeys("r", 1500, 4500),                                  // half replaced
			nil,
			staticKeys("r", 0, 10),
		}
		probe := append(staticKeys("r", 0, 4600), staticKeys("probe", 0, 20000)...)
		kinds := ""
		for i, set := range sets {
			seq := uint64(i + 1)
			frame, full, err := p.Publish(seq, set)
			if err != nil {
				t.Fatal(err)
			}
			k, _ := frameKind(t, frame)
			if full != (k == staticKindXORWholeCompact) || k != staticKindXORWholeCompact && k != staticKindXORDelta {
				t.Fatalf("%v: publication %d of kind %d, full %v", c, seq, k, full)
			}
			kinds += map[bool]string{true: "W", false: "d"}[full]
			if v, err = v.Apply(frame, envelope.Limits{}); err != nil {
				t.Fatalf("%v: publication %d: %v", c, seq, err)
			}
			if v.Sequence() != seq || v.flip == nil || v.added != nil {
				t.Fatalf("%v: publication %d: view at %d, of one filter %v", c, seq, v.Sequence(), v.flip != nil)
			}
			// The filter the publisher's key lists make.
			added, removed := diffSorted(p.base, sortedKeys(set))
			d := p.filters(seq, p.changes(added, removed), p.published[0].geo)[0]
			for _, h := range set {
				if !v.ContainsHash(h) && !d.containsHash(h) {
					t.Fatalf("%v: publication %d: a key of the set reported absent, not by the filter", c, seq)
				}
			}
			// The publisher holds the ribbon's keys, frame and solution
			// and the filter as the view does.
			if got, want := p.MemoryBytes(), 16*len(p.base)+len(p.ribbon)+int(p.static.SizeBits()/8)+v.MemoryBytes()-int(v.static.SizeBits()/8); got != want {
				t.Fatalf("%v: publication %d: publisher MemoryBytes %d, want %d", c, seq, got, want)
			}
			whole, err := p.Whole()
			if err != nil {
				t.Fatal(err)
			}
			fresh := mustApply(t, nil, whole)
			for _, h := range probe {
				want := v.static.ContainsHash(h) != d.containsHash(h)
				if v.ContainsHash(h) != want || fresh.ContainsHash(h) != want {
					t.Fatalf("%v: publication %d: the view, the whole frame's and ribbon XOR filter disagree", c, seq)
				}
			}
		}
		// A raw delta is never smaller than a new ribbon; the others
		// send deltas, and a new ribbon when the set is emptied.
		if want := "WddddWd"; c == Raw && kinds != "WWWWWWW" || c != Raw && kinds != want {
			t.Errorf("%v: publications %s", c, kinds)
		}
	}
}

// TestStaticFormMismatch: a view of two filters refuses a delta of one
// (kind 4) with ErrStatic, though it names the view's ribbon and
// sequence, and a view of one filter a delta of two (kind 2); a whole
// frame of either form replaces either view.
func TestStaticFormMismatch(t *testing.T) {
	two, one := staticPair(t, StaticAddedRemoved), staticPair(t, StaticXOR)
	for i, pair := range [][2][2][]byte{{two, one}, {one, two}} {
		v := mustApply(t, nil, pair[0][0])
		if _, err := v.Apply(pair[1][1], envelope.Limits{}); !errors.Is(err, ErrStatic) {
			t.Errorf("case %d: a delta of the other form: %v, want ErrStatic", i, err)
		}
		w := mustApply(t, v, pair[0][1]) // its own form's delta
		if !w.ContainsString("d") || w.ContainsString("k1") {
			t.Errorf("case %d: the delta of the view's form not applied", i)
		}
		if _, err := v.Apply(pair[1][0], envelope.Limits{}); !errors.Is(err, ErrSequence) {
			t.Errorf("case %d: a whole frame of the same sequence: %v", i, err)
		}
		x := mustApply(t, new(StaticView), pair[1][0])
		if x.ContainsString("k1") != true || (x.flip != nil) != (i == 0) {
			t.Errorf("case %d: the other form's whole frame not applied", i)
		}
	}
}

// staticPair is staticGoldenForm's frames as an array.
func staticPair(t testing.TB, form StaticForm) [2][]byte {
	full, delta := staticGoldenForm(t, form)
	return [2][]byte{full, delta}
}

// TestStaticXORGolden: the StaticXOR frames of the golden keys (kinds 6
// and 4) are those in testdata (-args -update rewrites them), the same
// ribbon as the two-filter golden frames, and decode to the same answers.
func TestStaticXORGolden(t *testing.T) {
	full, delta := staticGoldenForm(t, StaticXOR)
	checkGolden(t, map[string][]byte{"static-xor-full": full, "static-xor-delta": delta})
	if k, parts := frameKind(t, full); k != staticKindXORWholeCompact || parts != 0 {
		t.Errorf("whole frame of kind %d, parts %d", k, parts)
	}
	if k, parts := frameKind(t, delta); k != 4 || parts != 1 {
		t.Errorf("delta of kind %d, parts %d", k, parts)
	}
	twoFull, _ := staticGolden(t)
	if !bytes.Equal(staticRibbonFrame(t, full), staticRibbonFrame(t, twoFull)) {
		t.Error("the two forms' golden ribbons differ")
	}
	if v := goldenStaticAnswers(t, full, delta); v.flip.count != 2 {
		t.Errorf("the filter holds %d keys (want 2)", v.flip.count)
	}
}

// staticRibbonFrame returns the ribbon frame of a whole static frame.
func staticRibbonFrame(t testing.TB, whole []byte) []byte {
	t.Helper()
	_, body, err := envelope.Parse(whole, envelope.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	_, _, size, err := envelope.ParsePrefix(body, envelope.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return body[:size]
}

// TestStaticXORHostile: StaticXOR frames whose checksum is right but
// whose structure lies are refused with ErrCorrupt (or ErrTooLarge past
// the limit), the view unchanged: a flipped byte anywhere in the delta,
// a delta naming a second part, a whole frame with a parts byte or two
// filter frames, a whole frame of kind 3 cut to its ribbon, and a delta
// whose filter would hold more ones than the limit leaves room for.
func TestStaticXORHostile(t *testing.T) {
	full, delta := staticGoldenForm(t, StaticXOR)
	twoFull, _ := staticGolden(t)
	v := mustApply(t, nil, full)
	for i := range len(delta) {
		b := bytes.Clone(delta)
		b[i] ^= 0x40
		if _, err := v.Apply(b, envelope.Limits{}); err == nil {
			t.Errorf("byte %d flipped: accepted", i)
		}
	}
	h, body, err := envelope.Parse(delta, envelope.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	h.Params = bytes.Clone(h.Params)
	h.Params[1] = 3 // a second part
	frame, err := appendFrame(nil, &h, append(bytes.Clone(body), body...))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Apply(frame, envelope.Limits{}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("a second part: %v, want ErrCorrupt", err)
	}
	h.Params[1] = 1
	if frame, err = appendFrame(nil, &h, append(bytes.Clone(body), 0)); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Apply(frame, envelope.Limits{}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("a byte after the part: %v, want ErrCorrupt", err)
	}

	wh, wbody, err := envelope.Parse(full, envelope.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	wh.Params = bytes.Clone(wh.Params)
	_, twoBody, err := envelope.Parse(twoFull, envelope.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	rf := staticRibbonFrame(t, full)
	for name, c := range map[string]struct {
		parts byte
		body  []byte
	}{
		"parts byte set":     {1, wbody},
		"two filter frames":  {0, twoBody},
		"the ribbon alone":   {0, rf},
		"a byte after it":    {0, append(bytes.Clone(wbody), 0)},
		"a ribbon cut short": {0, wbody[:len(rf)-1]},
	} {
		wh.Params[1] = c.parts
		frame, err := appendFrame(nil, &wh, c.body)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := (*StaticView)(nil).Apply(frame, envelope.Limits{}); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
	}

	// 40 000 ones from bit 0, in a few bytes of gap code.
	if frame, err = appendFrame(nil, &h, denseGapsPart(t)); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Apply(frame, envelope.Limits{MaxPayload: 16000}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("40 000 ones within 16 000 bytes: %v, want ErrTooLarge", err)
	}
	if w, err := v.Apply(frame, envelope.Limits{}); err != nil || w.flip.bits.ones() != 40000 {
		t.Errorf("40 000 ones within the default limit: %v", err)
	}
	if w := mustApply(t, v, delta); !w.ContainsString("d") || w.ContainsString("k1") {
		t.Error("the view changed under the refused frames")
	}
}
