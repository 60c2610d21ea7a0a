package digest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/params"
	"github.com/bloomcast/bloomcast/ribbon"
)

const staticSeed = 0x5eed

// TestStaticPublisherConfig checks that NewStaticPublisher's refusals wrap
// ribbon.ErrConfig, as documented, in one line that starts with this
// package's name and says ribbon's once.
func TestStaticPublisherConfig(t *testing.T) {
	for _, c := range []StaticConfig{
		{Rate: -0.1}, {Rate: 1}, {Rate: math.NaN()}, {Rate: 1e-300},
		{DeltaShare: 1.5}, {MaxAttempts: -1}, {Form: StaticXOR + 1},
	} {
		_, err := NewStaticPublisher(c)
		if !errors.Is(err, ribbon.ErrConfig) {
			t.Errorf("%+v: %v, want ribbon.ErrConfig", c, err)
			continue
		}
		if msg := err.Error(); !strings.HasPrefix(msg, "digest: ") || strings.Count(msg, "ribbon: ") != 1 {
			t.Errorf("%+v: %q, want a digest: prefix and ribbon: once", c, msg)
		}
	}
	if _, err := NewStaticPublisher(StaticConfig{Codec: Fast + 1}); !errors.Is(err, ErrCodec) {
		t.Errorf("bad codec: %v, want ErrCodec", err)
	}
}

func staticKeys(prefix string, lo, hi int) []hashing.Hash128 {
	hs := make([]hashing.Hash128, 0, hi-lo)
	for i := lo; i < hi; i++ {
		hs = append(hs, hashing.SumStringSeed(fmt.Sprintf("%s/%d", prefix, i), staticSeed))
	}
	return hs
}

func mustApply(t *testing.T, v *StaticView, frame []byte) *StaticView {
	t.Helper()
	w, err := v.Apply(frame, envelope.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// absentRate is the share of 10^5 keys never published that v reports.
func absentRate(v *StaticView) float64 {
	hits := 0
	for _, h := range staticKeys("absent", 0, 100000) {
		if v.ContainsHash(h) {
			hits++
		}
	}
	return float64(hits) / 100000
}

func TestStaticDigest(t *testing.T) {
	p, err := NewStaticPublisher(StaticConfig{Rate: 0.01, Seed: staticSeed})
	if err != nil {
		t.Fatal(err)
	}
	set := staticKeys("k", 0, 20000)
	frame, full, err := p.Publish(1, set)
	if err != nil || !full {
		t.Fatalf("first publication: full %v, %v", full, err)
	}
	if least := StaticFullSize(20000, 0.01); len(frame) < least || len(frame) > least+200 {
		t.Errorf("whole frame of %d bytes, StaticFullSize says %d and two empty filters", len(frame), least)
	}
	v := mustApply(t, nil, frame)
	for _, h := range set {
		if !v.ContainsHash(h) {
			t.Fatal("a published key is absent")
		}
	}
	if r := absentRate(v); r > 0.012 {
		t.Errorf("full digest: rate %g at 1%%", r)
	}

	// Three rounds of 1% churn: the oldest 200 keys leave, 200 arrive.
	// Each is a delta, far smaller than a full digest.
	lo, hi := 0, 20000
	for seq := uint64(2); seq <= 4; seq++ {
		lo, hi = lo+200, hi+200
		set = staticKeys("k", lo, hi)
		frame, full, err := p.Publish(seq, set)
		if err != nil || full {
			t.Fatalf("round %d: full %v, %v", seq, full, err)
		}
		if len(frame) > StaticFullSize(20000, 0.01)/5 {
			t.Errorf("round %d: delta of %d bytes", seq, len(frame))
		}
		v = mustApply(t, v, frame)
	}
	if v.Base() != 1 || v.Sequence() != 4 {
		t.Errorf("view: ribbon %d, at %d", v.Base(), v.Sequence())
	}
	hidden := 0
	for _, h := range set {
		if !v.ContainsHash(h) {
			hidden++
		}
	}
	// A present key is hidden only by the removed filter's false
	// positive (600 keys in a filter sized for 5000 at 1%).
	if hidden > 100 {
		t.Errorf("%d of %d present keys hidden", hidden, len(set))
	}
	for _, h := range staticKeys("k", 0, 600) {
		if v.ContainsHash(h) {
			t.Fatal("a removed key is present") // the removed filter has no false negatives
		}
	}
	if r, max := absentRate(v), v.FalsePositiveRate(); r > max*1.2 || max > 0.0115 {
		t.Errorf("after deltas: rate %g, predicted at most %g", r, max)
	}

	// A key removed and then added again is present.
	back := staticKeys("k", 0, 1)
	set = append(set, back...)
	frame, _, err = p.Publish(5, set)
	if err != nil {
		t.Fatal(err)
	}
	v = mustApply(t, v, frame)
	if !v.ContainsHash(back[0]) {
		t.Error("a key added back is absent")
	}

	// Half the set replaced: the delta would not be smaller, so a full
	// digest goes, and the view restarts from it.
	set = staticKeys("k", 10000, 30000)
	frame, full, err = p.Publish(6, set)
	if err != nil || !full {
		t.Fatalf("after half the set changed: full %v, %v", full, err)
	}
	v = mustApply(t, v, frame)
	if v.Base() != 6 {
		t.Errorf("after a new ribbon: ribbon %d", v.Base())
	}

	// Past DeltaShare·n changes since the ribbon the next publication
	// is whole: 1000 keys, share 0.1, 100 changes a round.
	q, _ := NewStaticPublisher(StaticConfig{Seed: staticSeed, DeltaShare: 0.1})
	kinds := ""
	for seq := range 4 {
		_, full, err := q.Publish(uint64(seq+1), staticKeys("q", 0, 1000+100*seq))
		if err != nil {
			t.Fatal(err)
		}
		kinds += map[bool]string{true: "W", false: "d"}[full]
	}
	if kinds != "WdWd" {
		t.Errorf("publications %s, want WdWd", kinds)
	}
}

func TestStaticCatchUp(t *testing.T) {
	p, _ := NewStaticPublisher(StaticConfig{Seed: staticSeed})
	var frames [][]byte
	for seq := uint64(1); seq <= 4; seq++ {
		f, _, err := p.Publish(seq, staticKeys("c", 10*int(seq), 5000+10*int(seq)))
		if err != nil {
			t.Fatal(err)
		}
		frames = append(frames, f)
	}
	// A view that missed the third frame refuses the fourth, and catches
	// up from the whole frame.
	v := mustApply(t, nil, frames[0])
	v = mustApply(t, v, frames[1])
	if _, err := v.Apply(frames[3], envelope.Limits{}); !errors.Is(err, ErrStatic) {
		t.Errorf("a delta past a missed one: %v", err)
	}
	if _, err := (*StaticView)(nil).Apply(frames[2], envelope.Limits{}); !errors.Is(err, ErrStatic) {
		t.Errorf("a delta without a full digest: %v", err)
	}
	if _, err := v.Apply(frames[1], envelope.Limits{}); !errors.Is(err, ErrSequence) {
		t.Errorf("a delta applied twice: %v", err)
	}
	whole, err := p.Whole()
	if err != nil {
		t.Fatal(err)
	}
	w := mustApply(t, v, whole)
	if w.Sequence() != 4 || w.Base() != 1 {
		t.Errorf("caught up to %d on ribbon %d", w.Sequence(), w.Base())
	}
	fresh := mustApply(t, nil, whole)
	for _, h := range staticKeys("c", 40, 5040) {
		if w.ContainsHash(h) != fresh.ContainsHash(h) {
			t.Fatal("a view caught up and a fresh one differ")
		}
	}
	// The caught-up view takes the next delta.
	next, full, err := p.Publish(5, staticKeys("c", 50, 5050))
	if err != nil || full {
		t.Fatalf("fifth: full %v, %v", full, err)
	}
	w = mustApply(t, w, next)
	if w.ContainsHash(staticKeys("c", 49, 50)[0]) || !w.ContainsHash(staticKeys("c", 5049, 5050)[0]) {
		t.Error("the fifth publication's changes are not in the view")
	}
	if _, err := w.Apply(frames[0], envelope.Limits{}); !errors.Is(err, ErrSequence) {
		t.Errorf("an old full digest: %v", err)
	}
	// Another publisher's delta names another full digest.
	o, _ := NewStaticPublisher(StaticConfig{Seed: staticSeed})
	if _, _, err := o.Publish(1, staticKeys("o", 0, 100)); err != nil {
		t.Fatal(err)
	}
	od, _, _ := o.Publish(5, staticKeys("o", 1, 101))
	if _, err := w.Apply(od, envelope.Limits{}); !errors.Is(err, ErrStatic) && !errors.Is(err, ErrSequence) {
		t.Errorf("another publisher's delta: %v", err)
	}
	// Publication errors.
	if _, _, err := p.Publish(4, nil); !errors.Is(err, ErrSequence) {
		t.Errorf("a repeated sequence: %v", err)
	}
	if _, _, err := new(StaticPublisher).Publish(1, nil); !errors.Is(err, ErrEmpty) {
		t.Errorf("zero publisher: %v", err)
	}
	for _, c := range []StaticConfig{{Rate: 2}, {Rate: 1e-12}, {DeltaShare: 1.5}, {DeltaShare: -1}, {Codec: 9}, {MaxAttempts: -1}} {
		if _, err := NewStaticPublisher(c); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	var zero StaticView
	if zero.ContainsString("x") || zero.Contains([]byte("x")) || zero.FalsePositiveRate() != 0 || zero.Seed() != 0 {
		t.Error("the zero view holds something")
	}
}

// TestStaticBytesAgainstBloomDeltas replays 20 rounds of additions to
// 10^5 keys at rate 1/256 and counts the bytes each scheme sends: the
// static publisher, and a compressed Bloom digest of the set (k = 1,
// m/n = 256) sent whole once and then as XOR deltas. The whole static
// digest is smaller; each static delta codes the same number of bit
// flips (its added filter has about the Bloom digest's m) in a frame of
// the Bloom delta's size, so it is at most the coder's variance (0.5%)
// larger; in all, the static scheme sends fewer.
func TestStaticBytesAgainstBloomDeltas(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 10^5-key filters")
	}
	const n, rate = 100000, 1.0 / 256
	p, _ := NewStaticPublisher(StaticConfig{Rate: rate, Seed: staticSeed, Codec: Fast})
	bf, err := bloom.New(bloom.Config{Layout: bloom.Classic, M: 256 * n, K: 1, Seed: staticSeed})
	if err != nil {
		t.Fatal(err)
	}
	lo := 0
	bf.AddBatch(staticKeys("b", 0, n))
	prev := &Digest{Sequence: 1, Bloom: bf.Clone()}
	var staticTotal, bloomTotal int
	for seq := uint64(1); seq <= 20; seq++ {
		// Rounds of 0.1% to 2% churn; a Bloom digest cannot remove a key
		// (the node's counting filter can): the comparison adds only, and
		// the static deltas carry empty removed filters.
		c := []int{100, 500, 2000}[seq%3]
		if seq > 1 {
			bf.AddBatch(staticKeys("b", lo+n, lo+n+c))
			lo += c
		}
		frame, _, err := p.Publish(seq, staticKeys("b", 0, lo+n))
		if err != nil {
			t.Fatal(err)
		}
		var bloomBytes int
		cur := &Digest{Sequence: seq, Bloom: bf.Clone()}
		if seq == 1 {
			b, err := Encode(cur, Fast)
			if err != nil {
				t.Fatal(err)
			}
			bloomBytes = len(b)
		} else {
			b, err := AppendDiff(nil, prev, cur, Fast)
			if err != nil {
				t.Fatal(err)
			}
			bloomBytes = len(b)
		}
		prev = cur
		t.Logf("round %2d: static %7d bytes, compressed Bloom %7d", seq, len(frame), bloomBytes)
		// A delta is the Bloom delta's flips without a type-5 frame
		// around them: at most the coder's variance (0.5%) above it.
		if seq == 1 && len(frame) >= bloomBytes || seq > 1 && len(frame) > bloomBytes+bloomBytes/200 {
			t.Errorf("round %d: static %d bytes, compressed Bloom %d", seq, len(frame), bloomBytes)
		}
		staticTotal += len(frame)
		bloomTotal += bloomBytes
	}
	t.Logf("in all: static %d bytes, compressed Bloom %d (%.3f)", staticTotal, bloomTotal, float64(staticTotal)/float64(bloomTotal))
	if staticTotal >= bloomTotal {
		t.Errorf("in all: static %d bytes, compressed Bloom %d", staticTotal, bloomTotal)
	}
}

// staticGolden returns a whole static digest of k0 to k199 at sequence 1
// and the delta at sequence 2 that removes k1 and adds d: rate 1/256,
// seed 0x0123456789abcdef, filters coded fast, two filters (kinds 1 and
// 2).
func staticGolden(t testing.TB) (full, delta []byte) {
	return staticGoldenForm(t, StaticAddedRemoved)
}

// staticGoldenForm is staticGolden in form.
func staticGoldenForm(t testing.TB, form StaticForm) (full, delta []byte) {
	const seed = 0x0123456789abcdef
	h := func(keys ...string) []hashing.Hash128 {
		var hs []hashing.Hash128
		for _, k := range keys {
			hs = append(hs, hashing.SumStringSeed(k, seed))
		}
		return hs
	}
	p, err := NewStaticPublisher(StaticConfig{Rate: 1.0 / 256, Seed: seed, Codec: Fast, Form: form})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for i := range 200 {
		keys = append(keys, fmt.Sprintf("k%d", i))
	}
	// The whole frame with a ribbon, which Publish sends for larger
	// sets: for 200 keys it sends one without (staticGoldenRibbonless).
	set := sortedKeys(h(keys...))
	w, err := p.wholeOf(1, set, make([][]hashing.Hash128, form.filterCount()), float64(len(set)))
	if err != nil {
		t.Fatal(err)
	}
	p.commitWhole(w, 1)
	full = w.frame
	keys[1] = "d"
	delta, isFull, err := p.Publish(2, h(keys...))
	if err != nil || isFull {
		t.Fatalf("delta: full %v, %v", isFull, err)
	}
	return full, delta
}

func TestStaticGolden(t *testing.T) {
	full, delta := staticGolden(t)
	checkGolden(t, map[string][]byte{"static-full": full, "static-delta": delta})
	goldenStaticAnswers(t, full, delta)
}

// TestStaticGoldenFramed: the whole frames of kinds 1 and 3, each
// filter a frame of its own, which publishers wrote before kinds 5 and 6
// (testdata, no longer written), still decode, to the views the compact
// frames of the same publication give, and the golden deltas apply to
// them.
func TestStaticGoldenFramed(t *testing.T) {
	for _, form := range []StaticForm{StaticAddedRemoved, StaticXOR} {
		name, kind := "static-full-framed", byte(staticKindWhole)
		if form == StaticXOR {
			name, kind = "static-xor-full-framed", staticKindXORWhole
		}
		framed, err := os.ReadFile("testdata/golden-" + name + ".bin")
		if err != nil {
			t.Fatal(err)
		}
		if k, _ := frameKind(t, framed); k != kind {
			t.Fatalf("%s: kind %d, want %d", name, k, kind)
		}
		full, delta := staticGoldenForm(t, form)
		if len(full) >= len(framed) {
			t.Errorf("%v: the compact whole frame is %d bytes, the framed one %d", form, len(full), len(framed))
		}
		a, b := mustApply(t, nil, framed), mustApply(t, nil, full)
		if a.Form() != b.Form() || a.Sequence() != b.Sequence() || a.FalsePositiveRate() != b.FalsePositiveRate() {
			t.Errorf("%v: the framed view (%v, %d, %g) and the compact one (%v, %d, %g) differ",
				form, a.Form(), a.Sequence(), a.FalsePositiveRate(), b.Form(), b.Sequence(), b.FalsePositiveRate())
		}
		for _, h := range staticKeys("framed", 0, 2000) {
			if a.ContainsHash(h) != b.ContainsHash(h) {
				t.Fatalf("%v: the framed and compact views answer differently", form)
			}
		}
		goldenStaticAnswers(t, framed, delta)
	}
}

// goldenStaticAnswers applies the golden whole frame and delta of
// staticGoldenForm and checks the view's shape and answers: "k1"
// removed, "d" added. It returns the view after the delta.
func goldenStaticAnswers(t *testing.T, full, delta []byte) *StaticView {
	t.Helper()
	v := mustApply(t, nil, full)
	if n, m := v.Sizes(); n != 200 || m != 51100 {
		t.Errorf("ribbon of %d keys, filters of %d bits (docs/FORMAT.md says 200 and 51100)", n, m)
	}
	v = mustApply(t, v, delta)
	for _, k := range []string{"k0", "k2", "k199", "d"} {
		if !v.ContainsString(k) {
			t.Errorf("%s absent", k)
		}
	}
	if v.ContainsString("k1") {
		t.Error("k1, removed, is present")
	}
	return v
}

func TestStaticCorrupt(t *testing.T) {
	full, delta := staticGolden(t)
	v := mustApply(t, nil, full)
	for i := range len(delta) {
		b := bytes.Clone(delta)
		b[i] ^= 0x40
		if _, err := v.Apply(b, envelope.Limits{}); err == nil {
			t.Errorf("byte %d flipped: accepted", i)
		}
	}
	if _, err := v.Apply(delta, envelope.Limits{MaxPayload: 8}); err == nil {
		t.Error("a delta past the limit accepted")
	}
	if _, err := v.Apply(full[:len(full)-1], envelope.Limits{}); err == nil {
		t.Error("a truncated frame accepted")
	}
}

func FuzzStaticApply(f *testing.F) {
	full, delta := staticGolden(f)
	f.Add(full, delta)
	f.Add(delta, full)
	// The framed whole frames of kinds 1 and 3.
	for _, name := range []string{"static-full-framed", "static-xor-full-framed"} {
		if framed, err := os.ReadFile("testdata/golden-" + name + ".bin"); err == nil {
			f.Add(framed, delta)
		}
	}
	// The whole frame without a ribbon that Publish sends for the
	// golden keys.
	if rl, err := os.ReadFile("testdata/golden-static-ribbonless.bin"); err == nil {
		f.Add(rl, delta)
	}
	// A whole frame whose filters hold keys: gap-coded.
	p, _ := NewStaticPublisher(StaticConfig{Seed: staticSeed})
	if _, _, err := p.Publish(1, staticKeys("f", 0, 50)); err != nil {
		f.Fatal(err)
	}
	next, _, err := p.Publish(2, staticKeys("f", 2, 53))
	if err != nil {
		f.Fatal(err)
	}
	whole, err := p.Whole()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(whole, next)
	// One filter (kinds 3 and 4), and each form's delta on the other's
	// whole frame.
	xfull, xdelta := staticGoldenForm(f, StaticXOR)
	f.Add(xfull, xdelta)
	f.Add(xdelta, xfull)
	f.Add(full, xdelta)
	f.Add(xfull, delta)
	q, _ := NewStaticPublisher(StaticConfig{Seed: staticSeed, Form: StaticXOR})
	if _, _, err := q.Publish(1, staticKeys("f", 0, 50)); err != nil {
		f.Fatal(err)
	}
	xnext, _, err := q.Publish(2, staticKeys("f", 2, 53))
	if err != nil {
		f.Fatal(err)
	}
	xwhole, err := q.Whole()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(xwhole, xnext)
	f.Fuzz(func(t *testing.T, a, b []byte) {
		v, err := (*StaticView)(nil).Apply(a, fuzzLimits)
		if err != nil {
			return
		}
		_ = v.ContainsString("k1") // any answer; it must not panic
		if w, err := v.Apply(b, fuzzLimits); err == nil {
			_ = w.ContainsString("k1")
			if w.Sequence() <= v.Sequence() {
				t.Fatalf("sequence went from %d to %d", v.Sequence(), w.Sequence())
			}
		}
	})
}

// TestStaticEmpty publishes no keys, then some: an empty ribbon, then a
// delta that adds them.
func TestStaticEmpty(t *testing.T) {
	p, _ := NewStaticPublisher(StaticConfig{Seed: staticSeed})
	frame, full, err := p.Publish(1, nil)
	if err != nil || !full {
		t.Fatalf("empty set: full %v, %v", full, err)
	}
	v := mustApply(t, nil, frame)
	if v.ContainsString("x") || absentRate(v) != 0 {
		t.Error("the empty view holds something")
	}
	keys := staticKeys("e", 0, 10)
	if frame, _, err = p.Publish(2, keys); err != nil {
		t.Fatal(err)
	}
	v = mustApply(t, v, frame)
	for _, h := range keys {
		if !v.ContainsHash(h) {
			t.Fatal("a key added to the empty set is absent")
		}
	}
}

// TestStaticHostileParts: a delta frame whose checksum is right but whose
// parts lie (no part, an unknown codec, a key count or length that does
// not parse, a length past the frame, an XOR that does not decode or sets
// bits past m, bytes after the parts) is refused with ErrCorrupt, and the
// view is unchanged.
func TestStaticHostileParts(t *testing.T) {
	full, delta := staticGolden(t)
	v := mustApply(t, nil, full)
	h, body, err := envelope.Parse(delta, envelope.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	h.Params = bytes.Clone(h.Params) // it aliases delta
	h.Params[1] = 1                  // the added filter's part only
	raw := make([]byte, 8*((51100+63)/64))
	raw[len(raw)-1] = 0x80 // a bit past m = 51 100
	for name, part := range map[string][]byte{
		"no part":          {},
		"unknown codec":    {9, 1, 1, 0},
		"count overflows":  append([]byte{4}, bytes.Repeat([]byte{0xff}, 11)...),
		"length cut":       {4, 1},
		"length past":      {4, 1, 200, 1, 0},
		"gaps that lie":    {4, 1, 3, 0xff, 0xff, 0xff},
		"raw too short":    {0, 1, 8, 0, 0, 0, 0, 0, 0, 0, 0},
		"raw past m":       append(append([]byte{0, 1}, binaryUvarint(uint64(len(raw)))...), raw...),
		"bytes after part": append(bytes.Clone(body[:11]), 0), // the golden delta's added part, then a byte
	} {
		frame, err := appendFrame(nil, &h, part)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := v.Apply(frame, envelope.Limits{}); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
	}
	// The added part alone, without the trailing byte, is a good delta.
	good, err := appendFrame(nil, &h, body[:11])
	if err != nil {
		t.Fatal(err)
	}
	if w := mustApply(t, v, good); !w.ContainsString("d") {
		t.Error("the added part alone: d absent")
	}
	if w := mustApply(t, v, delta); !w.ContainsString("d") || w.ContainsString("k1") {
		t.Error("the view changed under the refused deltas")
	}
}

func binaryUvarint(x uint64) []byte { return binary.AppendUvarint(nil, x) }

// TestStaticViewMemoryBytes: a publisher holds its ribbon's keys and
// frame and its filters; a view holds its ribbon's solution and its two
// filters as the positions of their ones, so nothing for empty filters
// and about 2 + log2(m/n) bits a bit set after a delta, far below the
// filters' n/−ln(1 − ε) bits decoded.
func TestStaticViewMemoryBytes(t *testing.T) {
	if (*StaticView)(nil).MemoryBytes() != 0 || new(StaticView).MemoryBytes() != 0 {
		t.Fatal("the zero view holds bytes")
	}
	p, _ := NewStaticPublisher(StaticConfig{Seed: staticSeed, Rate: 1.0 / 256})
	frame, _, err := p.Publish(1, staticKeys("m", 0, 10000))
	if err != nil {
		t.Fatal(err)
	}
	v := mustApply(t, nil, frame)
	keys, bits := v.Sizes()
	ribbonBytes := int(v.static.SizeBits() / 8)
	empty := 2 * int(sparseBytes(bits, 0))
	if got, want := p.MemoryBytes(), 16*10000+len(p.ribbon)+empty; got != want || new(StaticPublisher).MemoryBytes() != 0 {
		t.Fatalf("publisher MemoryBytes %d, want %d", got, want)
	}
	// About log2(256)·1.05 bits a key for the ribbon beside the filters.
	if got := v.MemoryBytes(); got != ribbonBytes+empty || empty > 64 || keys != 10000 || ribbonBytes < 10000 || ribbonBytes > 9*10000/8 {
		t.Fatalf("MemoryBytes %d, want %d + %d (ribbon for %d keys, filters of %d bits)", got, ribbonBytes, empty, keys, bits)
	}
	// 100 keys added and 100 removed: at most 200 bits set, held in
	// no less than their entropy, log2 C(m, n) ≥ n·log2(m/n) bits, and
	// in at most 2 + log2(m/n) bits each besides words' rounding and the
	// samples, 28 bytes a filter here (Elias–Fano).
	if frame, _, err = p.Publish(2, staticKeys("m", 100, 10100)); err != nil {
		t.Fatal(err)
	}
	w := mustApply(t, v, frame)
	set := w.added.bits.ones() + w.removed.bits.ones()
	least, most := 0.0, 0.0
	for _, f := range w.parts() {
		n := float64(f.bits.ones())
		least += n * math.Log2(float64(bits)/n) / 8
		most += n*(2+math.Log2(float64(bits)/n))/8 + 28
	}
	if got := w.MemoryBytes() - ribbonBytes; set < 190 || set > 200 || float64(got) < least || float64(got) > most {
		t.Fatalf("after a delta of 200 keys: %d bytes besides the ribbon for %d bits set (want %.0f to %.0f)", got, set, least, most)
	}
	if got, want := p.MemoryBytes()-16*10000-len(p.ribbon), w.MemoryBytes()-ribbonBytes; got != want {
		t.Fatalf("publisher's filters %d bytes, the view's %d", got, want)
	}
}

// TestSparseBits: the positions held answer as the decoded array would,
// for arrays from empty to full and of lengths around the bucket sizes,
// and go back to the same positions and words.
func TestSparseBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, m := range []uint64{1, 63, 64, 65, 1000, 1 << 20, 1<<32 + 7, bloom.MaxBits} {
		for _, n := range []uint64{0, 1, 2, 3, 100, 5000} {
			if n > m {
				continue
			}
			seen := map[uint64]bool{}
			var pos []uint64
			for uint64(len(pos)) < n {
				p := rng.Uint64N(m)
				if n == m {
					p = uint64(len(pos))
				}
				if !seen[p] {
					seen[p] = true
					pos = append(pos, p)
				}
			}
			slices.Sort(pos)
			b := newSparseBits(m, pos)
			// Elias–Fano: at most 2 + log2(m/n) bits a one, besides two
			// words' rounding and a sample of 4 bytes every 64 high parts
			// (at most 2n).
			most := 0.0
			if n > 0 {
				most = float64(n)*(2+math.Log2(float64(m)/float64(n)))/8 + 16 + 4*math.Ceil(float64(2*n+1)/64)
			}
			if uint64(b.bytes()) != sparseBytes(m, n) || b.ones() != n || float64(b.bytes()) > most {
				t.Fatalf("m %d, n %d: %d bytes (at most %.0f), sparseBytes %d", m, n, b.bytes(), most, sparseBytes(m, n))
			}
			if got := b.appendPositions(nil); !slices.Equal(got, pos) && len(pos)+len(got) > 0 {
				t.Fatalf("m %d, n %d: positions differ", m, n)
			}
			for range 2000 {
				p := rng.Uint64N(m)
				if b.has(p) != seen[p] {
					t.Fatalf("m %d, n %d: bit %d is %v", m, n, p, b.has(p))
				}
			}
			for _, p := range pos {
				if !b.has(p) || p > 0 && !seen[p-1] && b.has(p-1) || p+1 < m && !seen[p+1] && b.has(p+1) {
					t.Fatalf("m %d, n %d: around bit %d", m, n, p)
				}
			}
			if m <= 1<<20 {
				w := b.words()
				for p := range m {
					if (w[p/64]>>(p%64)&1 == 1) != seen[p] {
						t.Fatalf("m %d, n %d: word bit %d", m, n, p)
					}
				}
			}
		}
	}
}

// TestStaticViewAgainstBloom: a view answers as the Bloom filters it
// stands for would, decoded, after a whole frame and after each of a
// run of deltas, on members, removed keys and absent keys.
func TestStaticViewAgainstBloom(t *testing.T) {
	for _, form := range []StaticForm{StaticAddedRemoved, StaticXOR} {
		staticViewAgainstBloom(t, form)
	}
}

func staticViewAgainstBloom(t *testing.T, form StaticForm) {
	p, _ := NewStaticPublisher(StaticConfig{Seed: staticSeed, Rate: 1.0 / 64, Form: form})
	var v *StaticView
	probe := staticKeys("probe", 0, 20000)
	for seq := range 6 {
		set := staticKeys("s", 300*seq, 5000+200*seq)
		frame, _, err := p.Publish(uint64(seq+1), set)
		if err != nil {
			t.Fatal(err)
		}
		v = mustApply(t, v, frame)
		var dense []*bloom.Filter
		for _, f := range v.parts() {
			d, err := bloom.FromWords(f.header(), f.bits.words())
			if err != nil {
				t.Fatal(err)
			}
			dense = append(dense, d)
		}
		for _, h := range append(append(probe, set...), staticKeys("s", 0, 300*seq)...) {
			want := (v.static.ContainsHash(h) || dense[0].ContainsHash(h)) && !dense[len(dense)-1].ContainsHash(h)
			if form == StaticXOR {
				want = v.static.ContainsHash(h) != dense[0].ContainsHash(h)
			}
			if v.ContainsHash(h) != want {
				t.Fatalf("%v: publication %d: the view and its decoded filters disagree", form, seq+1)
			}
		}
		if got := testing.AllocsPerRun(100, func() { v.ContainsHash(probe[7]) }); got != 0 {
			t.Fatalf("ContainsHash allocates %v times", got)
		}
	}
}

// TestStaticDeltaTooManyOnes: a delta whose gap code claims more ones
// than the limit leaves room for, or that decodes to more, is refused
// with ErrTooLarge before it is held, and one whose filter would exceed
// a small limit too.
func TestStaticDeltaTooManyOnes(t *testing.T) {
	full, delta := staticGolden(t)
	v := mustApply(t, nil, full)
	h, _, err := envelope.Parse(delta, envelope.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	h.Params = bytes.Clone(h.Params)
	h.Params[1] = 1
	part := denseGapsPart(t)
	if len(part) > 1000 {
		t.Fatalf("%d bytes for a run of ones", len(part))
	}
	frame, err := appendFrame(nil, &h, part)
	if err != nil {
		t.Fatal(err)
	}
	for _, max := range []uint64{16000, 400000} { // room for 4000 ones; for the ribbon and 40 000 ones at up to 8 bytes
		_, err := v.Apply(frame, envelope.Limits{MaxPayload: max})
		if !errors.Is(err, ErrTooLarge) && max == 16000 {
			t.Errorf("limit %d: %v, want ErrTooLarge", max, err)
		}
		if max == 400000 && err != nil {
			t.Errorf("limit %d: %v", max, err)
		}
	}
	w, err := v.Apply(frame, envelope.Limits{})
	if err != nil || w.added.bits.ones() != 40000 {
		t.Fatalf("%v, %d ones", err, w.added.bits.ones())
	}
}

// TestStaticWholeFilterTooLong: a whole frame whose filters claim 2^36
// bits, coded arith (decoded in time proportional to m), is refused with
// ErrTooLarge before any decoding, within any limit, whether the filters
// are frames (kinds 1 and 3) or parts (kinds 5 and 6); coded as the
// constant zero stream, or a part marked empty, it costs nothing and is
// held in a few bytes.
func TestStaticWholeFilterTooLong(t *testing.T) {
	full, _ := staticGolden(t)
	v := mustApply(t, nil, full)
	h, _, err := envelope.Parse(full, envelope.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	ribbonFrame := staticRibbonFrame(t, full)
	geo, err := bloom.NewGeometry(params.Shape{Layout: bloom.Classic, M: 1 << 36, K: 1}, h.Seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := &staticFilter{geo: geo, seq: h.Sequence}
	for _, c := range []struct {
		codec envelope.Codec
		body  []byte
		ok    bool
	}{
		{envelope.CodecArith, []byte{byte(envelope.CodecArith), 0, 0, 0, 0}, false},
		{envelope.CodecFast, []byte{0x03, 0, 0, 0, 0, 0, 0, 0, 0}, false}, // a RANS stream's header
		{envelope.CodecFast, []byte{4, 0}, true},                          // constant 0
	} {
		fh := f.header()
		fh.Sequence, fh.Codec = f.seq, c.codec
		part, err := appendFrame(nil, &fh, c.body)
		if err != nil {
			t.Fatal(err)
		}
		// The same filter as a part: 2^36 bits, the ribbon's sequence,
		// present, and the delta part of its XOR from an empty filter
		// (codec, 1 key, the payload's length, the payload); or marked
		// empty.
		compact := slices.Concat(binaryUvarint(1<<36), []byte{0, 1, byte(c.codec), 1}, binaryUvarint(uint64(len(c.body))), c.body)
		if c.ok {
			compact = slices.Concat(binaryUvarint(1<<36), []byte{0, 0})
		}
		// Kinds 1 and 5 with two such filters, kinds 3 and 6 with one.
		for kind, body := range map[byte][]byte{
			staticKindWhole: slices.Concat(ribbonFrame, part, part), staticKindXORWhole: slices.Concat(ribbonFrame, part),
			staticKindWholeCompact: slices.Concat(ribbonFrame, compact, compact), staticKindXORWholeCompact: slices.Concat(ribbonFrame, compact),
		} {
			h.Params = slices.Clone(h.Params)
			h.Params[0] = kind
			frame, err := appendFrame(nil, &h, body)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			w, err := (*StaticView)(nil).Apply(frame, envelope.Limits{})
			switch {
			case c.ok && (err != nil || w.MemoryBytes() > v.MemoryBytes()+4*2*258):
				t.Errorf("kind %d, codec %v, %x: %v", kind, c.codec, c.body, err)
			case !c.ok && !errors.Is(err, ErrTooLarge):
				t.Errorf("kind %d, codec %v, %x: %v, want ErrTooLarge", kind, c.codec, c.body, err)
			}
			if d := time.Since(start); d > time.Second {
				t.Errorf("kind %d, codec %v: %v to refuse", kind, c.codec, d)
			}
		}
	}
}

// TestStaticDeltaPartsAsAppendDiff: each part of a static delta is the
// payload AppendDiff codes for the change of the decoded filter, byte for
// byte, under every codec, sparse changes (gap-coded) and dense ones
// (rate 1/4: a change of more than one bit in 32 is coded whole).
func TestStaticDeltaPartsAsAppendDiff(t *testing.T) {
	dense := func(f *staticFilter) *Digest {
		bf, err := bloom.FromWords(f.header(), f.bits.words())
		if err != nil {
			t.Fatal(err)
		}
		return &Digest{Sequence: f.seq, Bloom: bf}
	}
	codecs := map[envelope.Codec]int{}
	for _, form := range []StaticForm{StaticAddedRemoved, StaticXOR} {
		for _, rate := range []float64{1.0 / 256, 0.25} {
			for _, c := range []Codec{Auto, Raw, Arith, Fast} {
				p, err := NewStaticPublisher(StaticConfig{Rate: rate, Seed: staticSeed, Codec: c, Form: form})
				if err != nil {
					t.Fatal(err)
				}
				for seq, set := range [][]hashing.Hash128{staticKeys("a", 0, 2000), staticKeys("a", 0, 2500), staticKeys("a", 10, 2510)} {
					old := p.published
					frame, full, err := p.Publish(uint64(seq+1), set)
					if err != nil {
						t.Fatal(err)
					}
					if full {
						continue
					}
					var want []byte
					for i, f := range p.published {
						if f == old[i] {
							continue
						}
						inner, err := AppendDiff(nil, dense(old[i]), dense(f), c)
						if err != nil {
							t.Fatal(err)
						}
						h, xor, err := envelope.Parse(inner, envelope.Limits{})
						if err != nil {
							t.Fatal(err)
						}
						codecs[h.Codec]++
						want = append(want, byte(h.Codec))
						want = binary.AppendUvarint(want, f.count)
						want = binary.AppendUvarint(want, uint64(len(xor)))
						want = append(want, xor...)
					}
					_, body, err := envelope.Parse(frame, envelope.Limits{})
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(body, want) {
						t.Errorf("%v, rate %g, codec %v, publication %d: parts of %d bytes, AppendDiff's %d", form, rate, c, seq+1, len(body), len(want))
					}
				}
			}
		}
	}
	if codecs[envelope.CodecGaps] == 0 || codecs[envelope.CodecArith] == 0 || codecs[envelope.CodecFast] == 0 {
		t.Errorf("parts compared by codec: %v; want each of arith, fast and gaps", codecs)
	}
	// A raw delta is never smaller than a new ribbon (m/8 bytes against
	// about n·log2(1/ε)/8), so the publisher sends none: the payload
	// coder alone, against AppendDiff's.
	p, _ := NewStaticPublisher(StaticConfig{Rate: 0.25, Seed: staticSeed})
	if _, _, err := p.Publish(1, staticKeys("r", 0, 1000)); err != nil {
		t.Fatal(err)
	}
	a := p.filters(2, [][]hashing.Hash128{staticKeys("r", 1000, 1100), nil}, p.published[0].geo)[0]
	for _, c := range []Codec{Raw, Auto} {
		got, codec, err := appendXORPayload(nil, a.bits.appendPositions(nil), a.bits.m, c)
		if err != nil {
			t.Fatal(err)
		}
		inner, err := AppendDiff(nil, dense(p.published[0]), dense(a), c)
		if err != nil {
			t.Fatal(err)
		}
		h, xor, err := envelope.Parse(inner, envelope.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if want := append(binaryUvarint(uint64(len(xor))), xor...); codec != h.Codec || !bytes.Equal(got, want) {
			t.Errorf("codec %v: %v, %d bytes; AppendDiff's %v, %d bytes", c, codec, len(got), h.Codec, len(want))
		}
	}
}

// TestStaticWholeFiltersGapCoded: a whole frame sent after changes
// carries each filter that holds keys as the gap code of its ones (read
// in time proportional to them, not to its n/ε bits), unless the
// publisher's codec is Raw; a view read from it answers as the view the
// deltas built.
func TestStaticWholeFiltersGapCoded(t *testing.T) {
	for _, c := range allCodecs {
		p, _ := NewStaticPublisher(StaticConfig{Seed: staticSeed, Codec: c})
		var v *StaticView
		for seq := uint64(1); seq <= 3; seq++ {
			f, _, err := p.Publish(seq, staticKeys("g", 10*int(seq), 3000+20*int(seq)))
			if err != nil {
				t.Fatal(err)
			}
			if v, err = v.Apply(f, envelope.Limits{}); err != nil {
				t.Fatalf("%v: frame %d: %v", c, seq, err)
			}
		}
		whole, err := p.Whole()
		if err != nil {
			t.Fatal(err)
		}
		codecs := compactCodecs(t, whole)
		want := envelope.CodecGaps
		if c == Raw {
			want = envelope.CodecRaw
		}
		nonEmpty := 0
		for _, f := range p.published {
			if f.bits.ones() > 0 {
				nonEmpty++
			}
		}
		if c != Raw && nonEmpty != 2 || len(codecs) != nonEmpty || slices.ContainsFunc(codecs, func(x envelope.Codec) bool { return x != want }) {
			t.Errorf("%v: the whole frame's %d filters not empty are coded %v, want %v", c, nonEmpty, codecs, want)
		}
		fresh := mustApply(t, nil, whole)
		for _, h := range staticKeys("g", 0, 3100) {
			if v.ContainsHash(h) != fresh.ContainsHash(h) {
				t.Fatalf("%v: the view read from the whole frame and the one the deltas built differ", c)
			}
		}
	}
}

// compactCodecs returns the codecs of the filters of a whole frame of
// kind 5 or 6 that are not empty, in order.
func compactCodecs(t *testing.T, whole []byte) []envelope.Codec {
	t.Helper()
	h, body, err := envelope.Parse(whole, envelope.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if k := h.Params[0]; k != staticKindWholeCompact && k != staticKindXORWholeCompact {
		t.Fatalf("a whole frame of kind %d", k)
	}
	_, _, size, err := envelope.ParsePrefix(body, envelope.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	var codecs []envelope.Codec
	for body = body[size:]; len(body) > 0; {
		for range 2 { // the bits, the sequence after the ribbon's
			_, n := binary.Uvarint(body)
			body = body[n:]
		}
		present := body[0]
		if body = body[1:]; present == 0 {
			continue
		}
		codecs = append(codecs, envelope.Codec(body[0]))
		_, n := binary.Uvarint(body[1:]) // the key count
		body = body[1+n:]
		length, n := binary.Uvarint(body)
		body = body[n+int(length):]
	}
	return codecs
}

// denseGapsPart returns a static delta part (key count 1) whose XOR is
// 40 000 ones, every bit from 0 of a 51 100-bit filter: a gap of 1 each
// time, which the gap code's adaptive model takes in a few bytes.
func denseGapsPart(t *testing.T) []byte {
	t.Helper()
	pos := make([]uint64, 40000)
	for i := range pos {
		pos[i] = uint64(i)
	}
	gaps, err := gapsPayload(pos, 51100)
	if err != nil {
		t.Fatal(err)
	}
	return append(append([]byte{byte(envelope.CodecGaps), 1}, binaryUvarint(uint64(len(gaps)))...), gaps...)
}

// TestStaticRibbonless: for a set whose ribbon is far from its
// asymptotic size, Publish sends a whole frame whose ribbon is empty and
// whose added filter (or StaticXOR's one) holds the set, sized for it
// and as many changes again (DeltaShare 1), when that is the smaller;
// the view answers every key, at about the filter's rate, and follows
// additions and removals by deltas without a removed filter; once the
// set outgrows the filter, a ribbon. The ribbonless frame is the publication of
// golden-static-ribbonless.bin (keys k0 to k199, as golden-static-full.bin).
func TestStaticRibbonless(t *testing.T) {
	for _, form := range []StaticForm{StaticAddedRemoved, StaticXOR} {
		t.Run(form.String(), func(t *testing.T) {
			p, err := NewStaticPublisher(StaticConfig{Rate: 1.0 / 256, Seed: staticSeed, Codec: Fast, Form: form})
			if err != nil {
				t.Fatal(err)
			}
			set := staticKeys("r", 0, 300)
			frame, full, err := p.Publish(1, set)
			if err != nil || !full {
				t.Fatalf("first publication: full %v, %v", full, err)
			}
			withRibbon, err := p.wholeOf(1, sortedKeys(set), make([][]hashing.Hash128, form.filterCount()), 300)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("300 keys: %d bytes without a ribbon, %d with", len(frame), len(withRibbon.frame))
			if len(frame) >= len(withRibbon.frame) {
				t.Fatalf("the ribbonless frame (%d bytes) is not smaller than the ribbon's (%d)", len(frame), len(withRibbon.frame))
			}
			v := mustApply(t, nil, frame)
			rv := mustApply(t, nil, withRibbon.frame)
			if v.MemoryBytes() > rv.MemoryBytes()*9/8 {
				t.Fatalf("a view holds %d bytes without a ribbon, more than 9/8 of the %d it holds with", v.MemoryBytes(), rv.MemoryBytes())
			}
			if n, m := v.Sizes(); n != 0 || m != filterBits(600, 1.0/256) {
				t.Fatalf("ribbon of %d keys, filter of %d bits (want 0 and %d)", n, m, filterBits(600, 1.0/256))
			}
			checkRibbonlessView(t, v, set, nil)

			// 50 removed, 50 added: a delta, and no removed filter set.
			removed := set[:50]
			set = append(slices.Clone(set[50:]), staticKeys("s", 0, 50)...)
			frame, full, err = p.Publish(2, set)
			if err != nil || full {
				t.Fatalf("second publication: full %v, %v", full, err)
			}
			v = mustApply(t, v, frame)
			checkRibbonlessView(t, v, set, removed)
			if form == StaticAddedRemoved && v.removed.bits.ones() != 0 {
				t.Errorf("%d bits of the removed filter set, want none: the added filter holds the set", v.removed.bits.ones())
			}

			// Past the filter's 600 keys: a ribbon.
			set = append(set, staticKeys("s", 50, 2000)...)
			if frame, full, err = p.Publish(3, set); err != nil || !full {
				t.Fatalf("third publication: full %v, %v", full, err)
			}
			if v = mustApply(t, v, frame); v.static.Len() != uint64(len(set)) {
				t.Fatalf("ribbon of %d keys, want %d", v.static.Len(), len(set))
			}
		})
	}
}

// TestStaticRibbonlessBounds: over sets of 20 to 1,500 keys at four
// rates, a first frame without a ribbon is sent only where it is no
// larger than the frame with one, and its view holds at most an eighth
// more than the least ribbon of the set; where it would be smaller but a
// view would hold more (at 2%, DeltaShare 0.1, some sets of about 500
// keys), the frame has a ribbon. Small sets go without one.
func TestStaticRibbonlessBounds(t *testing.T) {
	for _, c := range []struct {
		rate, share float64
		bound       bool // some frame is sent with a ribbon for the memory alone
	}{{0.02, 0.1, true}, {0.01, 0, false}, {1.0 / 256, 0, false}, {4.6e-4, 0, false}} {
		without, bound := 0, 0
		for n := 20; n <= 1500; n += 20 {
			p, err := NewStaticPublisher(StaticConfig{Rate: c.rate, DeltaShare: c.share, Seed: staticSeed, Codec: Fast})
			if err != nil {
				t.Fatal(err)
			}
			set := staticKeys("b", 0, n)
			frame, _, err := p.Publish(1, set)
			if err != nil {
				t.Fatal(err)
			}
			withRibbon, err := p.wholeOf(1, sortedKeys(set), make([][]hashing.Hash128, 2), max(64, p.cfg.share()*float64(n)))
			if err != nil {
				t.Fatal(err)
			}
			rb := ribbonSolutionBytes(StaticFullSize(uint64(n), c.rate))
			if v := mustApply(t, nil, frame); v.static.Len() == 0 {
				without++
				if len(frame) > len(withRibbon.frame) || uint64(v.MemoryBytes()) > rb+rb/8 {
					t.Fatalf("rate %g, %d keys: %d bytes without a ribbon, %d with; the view holds %d, the least ribbon %d",
						c.rate, n, len(frame), len(withRibbon.frame), v.MemoryBytes(), rb)
				}
				continue
			}
			if !p.ribbonless(n, StaticFullSize(uint64(n), c.rate)) {
				continue
			}
			w, err := p.wholeOf(1, nil, [][]hashing.Hash128{sortedKeys(set), nil}, p.ribbonlessCapacity(n))
			if err != nil {
				t.Fatal(err)
			}
			if len(w.frame) <= len(withRibbon.frame) {
				bound++
				if w.filterBytes() <= rb+rb/8 {
					t.Fatalf("rate %g, %d keys: a ribbon sent, %d bytes, where %d without one would hold %d (the least ribbon %d)",
						c.rate, n, len(withRibbon.frame), len(w.frame), w.filterBytes(), rb)
				}
			}
		}
		if without < 3 || c.bound != (bound > 0) {
			t.Errorf("rate %g: %d sets without a ribbon, %d with one for the memory alone", c.rate, without, bound)
		}
	}
}

// checkRibbonlessView checks that v reports every key of set present,
// hides at most a few removed ones (the filter's false positives), and
// reports absent keys present at about its predicted rate: the share of
// the filter's bits set, its ribbon being empty.
func checkRibbonlessView(t *testing.T, v *StaticView, set, removed []hashing.Hash128) {
	t.Helper()
	for _, h := range set {
		if !v.ContainsHash(h) {
			t.Fatal("a key of the set reported absent")
		}
	}
	still := 0
	for _, h := range removed {
		if v.ContainsHash(h) {
			still++
		}
	}
	fp := 0
	absent := staticKeys("absent", 0, 100000)
	for _, h := range absent {
		if v.ContainsHash(h) {
			fp++
		}
	}
	rate, measured := v.FalsePositiveRate(), float64(fp)/float64(len(absent))
	t.Logf("%d keys: predicted rate %.5f, measured %.5f; %d of %d removed keys still present", len(set), rate, measured, still, len(removed))
	if rate <= 0 || rate > 1.0/256 || measured > 1.5*rate || measured < 0.5*rate {
		t.Errorf("predicted rate %.5f (at most 1/256), measured %.5f", rate, measured)
	}
	if still > 2 {
		t.Errorf("%d of %d removed keys still present", still, len(removed))
	}
}

// TestStaticRibbonlessGolden pins the ribbonless whole frame Publish
// sends for the keys of golden-static-full.bin (docs/FORMAT.md).
func TestStaticRibbonlessGolden(t *testing.T) {
	const seed = 0x0123456789abcdef
	p, err := NewStaticPublisher(StaticConfig{Rate: 1.0 / 256, Seed: seed, Codec: Fast})
	if err != nil {
		t.Fatal(err)
	}
	var set []hashing.Hash128
	for i := range 200 {
		set = append(set, hashing.SumStringSeed(fmt.Sprintf("k%d", i), seed))
	}
	full, isFull, err := p.Publish(1, set)
	if err != nil || !isFull {
		t.Fatalf("full %v, %v", isFull, err)
	}
	checkGolden(t, map[string][]byte{"static-ribbonless": full})
	v := mustApply(t, nil, full)
	if n, m := v.Sizes(); n != 0 || m != 102200 || v.added.count != 200 {
		t.Errorf("ribbon of %d keys, filter of %d bits holding %d (docs/FORMAT.md says 0, 102200 and 200)", n, m, v.added.count)
	}
	for _, h := range set {
		if !v.ContainsHash(h) {
			t.Fatal("a key of the golden set reported absent")
		}
	}
}
