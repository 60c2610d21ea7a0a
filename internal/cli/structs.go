package cli

import (
	"errors"
	"fmt"

	"github.com/bloomcast/bloomcast/anyfile"
	"github.com/bloomcast/bloomcast/counting"
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/ribbon"
)

// The structures that are not filters of a set the filter commands
// read (loadedFilter.other): a deletion filter, a fingerprint set, a
// Bloomier or ribbon filter, a multilevel hash table or one of its
// summaries. query and inspect read every one; add and remove change a
// deletion filter; the other commands refuse them (openFilter).

// deletion is the deletion filter lf holds; nil for the other kinds.
func (lf *loadedFilter) deletion() *counting.DeletionFilter {
	d, _ := anyfile.As[*counting.DeletionFilter](lf.File)
	return d
}

// static reports whether lf holds a ribbon filter, which only a rebuild
// changes.
func (lf *loadedFilter) static() bool {
	_, ok := anyfile.As[*ribbon.Filter](lf.File)
	return ok
}

// refuseStructure is openFilter's answer to a structure that is not a
// Bloom or counting filter.
func refuseStructure(lf *loadedFilter) error {
	what := "only query and inspect read it"
	if lf.static() {
		return fileErr(lf.path, errors.New(staticRefusal))
	}
	if lf.deletion() != nil {
		what = "only query, inspect, add and remove read it"
	}
	return fileErr(lf.path, fmt.Errorf("holds %s, not a Bloom filter: %s", lf.kind(), what))
}

// removeFromDeletion is remove for a deletion filter: every key goes to
// the removed filter, all or nothing: a key the added filter does not
// hold is refused (it was never added), and then nothing is written.
func (e *env) removeFromDeletion(lf *loadedFilter, keys []string) error {
	d := lf.deletion()
	var refused, total int
	var first string
	var hs []hashing.Hash128
	err := e.eachKey(keys, func(key []byte) {
		total++
		h := d.Added().Hash(key)
		if !d.Added().ContainsHash(h) {
			if refused == 0 {
				first = string(key)
			}
			refused++
			return
		}
		hs = append(hs, h)
	})
	if err != nil {
		return err
	}
	if refused > 0 {
		fprintf(e.stderr, "bloomcast: %s: %d of %d keys never added (the first: %q); nothing removed, file unchanged\n",
			displayName(lf.path), refused, total, first)
		return exitStatus(1)
	}
	for _, h := range hs {
		d.RemoveHash(h)
	}
	return e.writeBack(lf.path, lf)
}

// staticRefusal is what add, remove, union, intersect and fold say to a
// ribbon filter.
const staticRefusal = "holds a ribbon filter, a static filter: it is the solution of its keys' equations and changes only by a rebuild (bloomcast build --static); only query, inspect and convert read it"

// errNotChangeable refuses add or remove on a structure they cannot change.
func errNotChangeable(lf *loadedFilter) error {
	if lf.static() {
		return fileErr(lf.path, errors.New(staticRefusal))
	}
	return fileErr(lf.path, errors.New("holds "+lf.kind()+", which add and remove cannot change"))
}
