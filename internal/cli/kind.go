package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/bloomcast/bloomcast/anyfile"
	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/counting"
	"github.com/bloomcast/bloomcast/internal/filereport"
)

// Every command that writes a filter writes it back as the kind it read
// (a Bloom filter, a counting filter, a Squid cache digest, a deletion
// filter), with the codec and sequence number it read, or refuses
// without writing: a file never silently turns into another kind
// (anyfile.File.WriteTo).

// kind names what lf holds, for messages: "a Bloom filter", ….
func (lf *loadedFilter) kind() string { return "a " + lf.Kind().String() }

// bits is the bit array of a Bloom or counting filter or a Squid digest
// (anyfile.As); nil for the other kinds.
func (lf *loadedFilter) bits() *bloom.Filter {
	b, _ := anyfile.As[*bloom.Filter](lf.File)
	return b
}

// writeBack writes lf to out as the kind, codec and sequence it was read
// with.
func (e *env) writeBack(out string, lf *loadedFilter) error {
	w, err := lf.Encoding(lf.Codec())
	if err != nil {
		return fileErr(lf.path, err)
	}
	return e.writeFilter(out, w)
}

// adder returns the function that adds a key to lf (anyfile.File.Add).
func (lf *loadedFilter) adder() func(key []byte) error {
	return func(key []byte) error { return keyError(lf.Add(key)) }
}

// keyError is an error of anyfile about a key, without the package's
// prefix: the file and line it is attributed to introduce it.
func keyError(err error) error {
	var ae *anyfile.Error
	if errors.As(err, &ae) {
		return ae.Err
	}
	return err
}

// combineWith applies union (or, with intersect, intersection) of next
// to lf, both of one kind (anyfile.File.Union, Intersect).
func (lf *loadedFilter) combineWith(next *loadedFilter, intersect bool) error {
	if lf.Kind() != next.Kind() {
		return fmt.Errorf("%s, and %s is %s: only filters of one kind combine", next.kind(), displayName(lf.path), lf.kind())
	}
	if lf.Foreign() {
		return combineForeign(lf, next, intersect)
	}
	if _, counts := anyfile.As[*counting.Filter](lf.File); lf.bits() != nil && !counts {
		if err := lf.bits().Compatible(next.bits()); err != nil {
			if m := describeMismatch(lf, next); m != nil {
				return m
			}
			return fmt.Errorf("cannot combine with %s: %w; build both with the same -n and -p (or -m, -k and --layout), --seed and --hash", displayName(lf.path), err)
		}
	}
	if intersect {
		return lf.Intersect(next.File)
	}
	return lf.Union(next.File)
}

// mismatch is why two Bloom filters do not combine, in the user's words:
// what differs, and how to make them combine. combine prints it after the
// command's name.
type mismatch struct{ msg string }

func (m *mismatch) Error() string { return m.msg }

// describeMismatch says how the Bloom filters a and b differ and what to
// do: fold the larger to the smaller's size when size alone differs and
// it folds that far; else build both alike.
func describeMismatch(a, b *loadedFilter) error {
	ab, bb := a.bits(), b.bits()
	as, bs := ab.Shape(), bb.Shape()
	an, bn := displayName(a.path), displayName(b.path)
	var diffs []string
	if as.Layout != bs.Layout {
		diffs = append(diffs, fmt.Sprintf("%s is %s, %s %s", an, as.Layout, bn, bs.Layout))
	}
	if as.M != bs.M {
		diffs = append(diffs, fmt.Sprintf("%s has %d bits, %s %d", an, as.M, bn, bs.M))
	}
	if as.K != bs.K {
		diffs = append(diffs, fmt.Sprintf("%s has k %d, %s %d", an, as.K, bn, bs.K))
	}
	if as.BlockBits != bs.BlockBits && as.Layout == bs.Layout {
		diffs = append(diffs, fmt.Sprintf("%s has pages of %d bits, %s %d", an, as.BlockBits, bn, bs.BlockBits))
	}
	if ab.Seed() != bb.Seed() {
		diffs = append(diffs, fmt.Sprintf("%s has seed %#x, %s %#x", an, ab.Seed(), bn, bb.Seed()))
	}
	if a.Header.Scheme != b.Header.Scheme {
		diffs = append(diffs, fmt.Sprintf("%s hashes with %s, %s %s", an, filereport.SchemeName(a.Header.Scheme), bn, filereport.SchemeName(b.Header.Scheme)))
	}
	if len(diffs) == 0 {
		return nil
	}
	what := strings.Join(diffs, "; ")
	if len(diffs) == 1 && as.M != bs.M {
		large, small := b, a
		if as.M > bs.M {
			large, small = a, b
		}
		m, target := large.bits().M(), small.bits().M()
		for i := 0; i < large.bits().Folds() && m > target; i++ {
			m /= 2
		}
		if m == target {
			return &mismatch{fmt.Sprintf("%s: fold %s --to %d first, or build both with the same -m", what, displayName(large.path), target)}
		}
		return &mismatch{fmt.Sprintf("%s: build both with the same -m (%s does not fold to %d bits)", what, displayName(large.path), target)}
	}
	return &mismatch{what + ": build both with the same -n and -p (or -m and -k), --layout, --seed and --hash"}
}
