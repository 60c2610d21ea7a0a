package cli

import (
	"errors"
	"fmt"

	"github.com/bloomcast/bloomcast/anyfile"
)

// Every command that writes a filter writes it back as the kind it read
// (a Bloom filter, a counting filter, a Squid cache digest, a deletion
// filter), with the codec and sequence number it read, or refuses
// without writing: a file never silently turns into another kind
// (anyfile.File.WriteTo).

// kind names what lf holds, for messages: "a Bloom filter", ….
func (lf *loadedFilter) kind() string { return "a " + lf.Kind().String() }

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
	if lf.Counting == nil && lf.Scalable == nil {
		if err := lf.Bloom.Compatible(next.Bloom); err != nil {
			return fmt.Errorf("cannot combine with %s: %w", displayName(lf.path), err)
		}
	}
	if intersect {
		return lf.Intersect(next.File)
	}
	return lf.Union(next.File)
}
