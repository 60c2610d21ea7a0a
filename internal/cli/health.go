package cli

import (
	"flag"
	"fmt"

	"github.com/bloomcast/bloomcast/anyfile"
	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/counting"
	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/formats/parquet"
	"github.com/bloomcast/bloomcast/formats/squid"
	"github.com/bloomcast/bloomcast/params"
)

// Every command that writes a filter checks what it wrote before it
// writes it: more than 90% of the bits set, or a false-positive rate for
// the keys the filter holds above its target, is one warning line that
// says what to do instead; --strict makes it exit status 2 with nothing
// written (writeWarned). A filter sized from -n and -p has the target
// -p; one that a command changes (add, fold, union, intersect, patch,
// convert) records no target, so its command's -p (default 1%, as
// build's) stands in, and a Squid digest's is its own rate at the
// capacity its header records.

// maxFill is the share of set bits above which a written filter is
// reported nearly full.
const maxFill = 0.9

// defaultTarget is the rate a changed filter is held to without -p:
// build's default -p.
const defaultTarget = 0.01

// targetFlag registers -p RATE (e.target), the rate the written filter
// is held to, and --strict, on a command that changes a filter.
func (e *env) targetFlag(fs *flag.FlagSet) {
	fs.Var(&e.target, "p", "")
	e.strictFlag(fs)
}

// targetRate is the rate a changed filter is held to, and whether -p
// said so.
func (e *env) targetRate() (float64, bool) {
	if e.target == 0 {
		return defaultTarget, false
	}
	return float64(e.target), true
}

// health is what the check of a written filter reads of it.
type health struct {
	fill float64 // share of bits set
	rate float64 // false-positive rate for the keys it holds
	keys uint64  // the keys it holds (recorded or estimated); 0: not known
	// bloom is the Bloom filter, when the file holds one of bloomcast's
	// (fold suggests a size from its shape).
	bloom *bloom.Filter
	// capacityRate is a Squid digest's rate at its header's capacity, its
	// own target; 0 for other kinds.
	capacityRate float64
}

// healthOf reads lf's health, or reports false for a structure the check
// does not apply to (a scalable filter grows itself; the deletion filter,
// fingerprint sets and Bloomier filters are not bit arrays with a rate).
func healthOf(lf *loadedFilter) (health, bool) {
	if lf.Foreign() {
		if _, ok := anyfile.As[*parquet.File](lf.File); ok {
			return health{}, false
		}
		s := lf.Stats()
		return health{fill: s.FillRatio, rate: s.FalsePositiveRate, keys: uint64(s.EstimatedCount + 0.5)}, true
	}
	if _, ok := anyfile.As[*digest.Pieces](lf.File); ok && lf.Digest() == nil {
		return health{}, false // a piece that does not decode: the write reports it
	}
	b := lf.bits()
	if b == nil {
		return health{}, false
	}
	cf, counts := anyfile.As[*counting.Filter](lf.File)
	sd, isSquid := anyfile.As[*squid.Digest](lf.File)
	keys := b.Count()
	switch {
	case counts:
		keys = cf.Len()
	case isSquid:
		keys = uint64(sd.Header.Count)
	}
	h := bloomHealth(b, keys)
	if isSquid {
		h.capacityRate = b.Shape().FalsePositive(uint64(sd.Header.Capacity))
	}
	if !counts && !isSquid {
		h.bloom = b
	}
	return h, true
}

// bloomHealth is the health of b holding keys keys: its rate is the
// model's at that count, or the one its set bits give when the count is
// not known or the filter is saturated.
func bloomHealth(b *bloom.Filter, keys uint64) health {
	h := health{fill: b.FillRatio(), keys: keys, rate: b.FalsePositiveRate()}
	if keys > 0 && !b.Saturated() {
		h.rate = b.Shape().FalsePositive(keys)
	}
	return h
}

// check adds to w the warning for a written filter in this health, held
// to target (a Squid digest: to its own rate at its capacity unless
// targetSet). name is the output; advice says what to do instead.
func (h health) check(w *warnings, name string, target float64, targetSet bool, advice string) {
	if h.capacityRate > 0 && !targetSet {
		target = h.capacityRate
	}
	held := "the keys it holds"
	if h.keys > 0 {
		held = fmt.Sprintf("the %d keys it holds", h.keys)
	}
	switch {
	case h.rate > target && h.fill > maxFill:
		w.add("%s: %.1f%% of the bits set, false-positive rate %s for %s, above the target %s: %s",
			name, 100*h.fill, rate(h.rate), held, rate(target), advice)
	case h.rate > target:
		w.add("%s: false-positive rate %s for %s, above the target %s: %s", name, rate(h.rate), held, rate(target), advice)
	case h.fill > maxFill:
		w.add("%s: %.1f%% of the bits set, so the filter is nearly full: %s", name, 100*h.fill, advice)
	}
}

// foldAdvice says how far a filter of this health, of shape before and
// able to fold folds times before it was folded, may fold and keep its
// rate within target: the smallest --to that does.
func foldAdvice(h health, before params.Shape, folds int, target float64) string {
	if h.bloom == nil || h.keys == 0 {
		return "fold less (a larger --to)"
	}
	best := uint64(0)
	for s, i := before, 0; i <= folds; s, i = halve(s), i+1 {
		if s.Validate() != nil || s.FalsePositive(h.keys) > target {
			break
		}
		best = s.M
	}
	if best == 0 {
		return fmt.Sprintf("even unfolded it is above the target; rebuild it with -n %d or more", h.keys)
	}
	return fmt.Sprintf("fold less: --to %d keeps it within the target", best)
}

// halve is s folded once.
func halve(s params.Shape) params.Shape {
	s.M /= 2
	return s
}

// checkWritten adds lf's warning to w, if any (see health.check), held to
// the command's target; advice is given the health.
func (e *env) checkWritten(w *warnings, lf *loadedFilter, name string, advice func(health) string) {
	if h, ok := healthOf(lf); ok {
		target, set := e.targetRate()
		h.check(w, name, target, set, advice(h))
	}
}

// rebuildAdvice says to size a filter of health h for more keys.
func rebuildAdvice(h health) string {
	if h.keys == 0 {
		return "rebuild it for more keys (a larger build -n)"
	}
	return fmt.Sprintf("rebuild it for more keys (build -n %d or more)", h.keys)
}

// writeBackChecked writes lf to out as writeBack does, after checking it
// (checkWritten) under --strict, with the warnings w has already.
func (e *env) writeBackChecked(out string, lf *loadedFilter, w warnings, advice func(health) string) error {
	e.checkWritten(&w, lf, outputName(out), advice)
	enc, err := lf.Encoding(lf.Codec())
	if err != nil {
		return fileErr(lf.path, err)
	}
	return e.writeWarned(out, enc, w)
}
