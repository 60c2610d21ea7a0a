package cli

import (
	"errors"
	"fmt"

	"github.com/bloomcast/bloomcast/bloomier"
	"github.com/bloomcast/bloomcast/counting"
	"github.com/bloomcast/bloomcast/fpset"
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/mht"
	"github.com/bloomcast/bloomcast/ribbon"
)

// structure is a file that holds no Bloom or counting filter: a
// deletion filter, a fingerprint set, a Bloomier filter, a multilevel
// hash table or one of its summaries. query and inspect read every one;
// add and remove change a deletion filter; the other commands refuse
// them (openFilter).
type structure struct {
	deletion *counting.DeletionFilter
	sorted   *fpset.Sorted     // a fingerprint set in form 1
	rice     *fpset.Compressed // a fingerprint set in form 2
	bloomier *bloomier.Filter
	ribbon   *ribbon.Filter
	table    *mht.Table
	summary  mht.Summary
}

// kind names what s holds, for messages.
func (s *structure) kind() string {
	switch {
	case s.deletion != nil:
		return "a deletion filter"
	case s.sorted != nil, s.rice != nil:
		return "a fingerprint set"
	case s.bloomier != nil:
		return "a Bloomier filter"
	case s.ribbon != nil:
		return "a ribbon filter"
	case s.table != nil:
		return "a multilevel hash table"
	}
	return "a multilevel-hash-table summary"
}

// refuseStructure is openFilter's answer to a structure that is not a
// Bloom or counting filter.
func refuseStructure(lf *loadedFilter) error {
	what := "only query and inspect read it"
	if lf.other.ribbon != nil {
		return fileErr(lf.path, errors.New(staticRefusal))
	}
	if lf.other.deletion != nil {
		what = "only query, inspect, add and remove read it"
	}
	return fileErr(lf.path, fmt.Errorf("holds %s, not a Bloom filter: %s", lf.other.kind(), what))
}

// removeFromDeletion is remove for a deletion filter: every key goes to
// the removed filter, all or nothing: a key the added filter does not
// hold is refused (it was never added), and then nothing is written.
func (e *env) removeFromDeletion(lf *loadedFilter, keys []string) error {
	d := lf.other.deletion
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
	if lf.other.ribbon != nil {
		return fileErr(lf.path, errors.New(staticRefusal))
	}
	return fileErr(lf.path, errors.New("holds "+lf.other.kind()+", which add and remove cannot change"))
}
