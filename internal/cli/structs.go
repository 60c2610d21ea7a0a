package cli

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/bloomcast/bloomcast/bloomier"
	"github.com/bloomcast/bloomcast/counting"
	"github.com/bloomcast/bloomcast/fpset"
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/mht"
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
	case s.table != nil:
		return "a multilevel hash table"
	}
	return "a multilevel-hash-table summary"
}

// refuseStructure is openFilter's answer to a structure that is not a
// Bloom or counting filter.
func refuseStructure(lf *loadedFilter) error {
	what := "only query and inspect read it"
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

// inspectStructure is inspect for a structure (anyfile.StructureReport).
func inspectStructure(e *env, path string, lf *loadedFilter, asJSON bool) error {
	r, err := lf.StructureReport(path)
	if err != nil {
		return fileErr(path, err)
	}
	if asJSON {
		return writeJSON(e.stdout, r)
	}
	var kv keyValues
	kv.add("file", displayName(r.File))
	kv.add("format version", strconv.Itoa(int(r.FormatVersion)))
	kv.add("structure", r.Type)
	kv.add("codec", r.Codec)
	kv.add("sequence", strconv.FormatUint(r.Sequence, 10))
	kv.add("hash scheme", fmt.Sprintf("%s (id %d), seed %#x", r.HashScheme, r.HashSchemeID, r.Seed))
	kv.add("size", fmt.Sprintf("%d bytes encoded (%s), payload %d bytes", r.EncodedBytes, humanBytes(r.EncodedBytes), r.PayloadBytes))
	switch {
	case r.Deletion != nil:
		d := r.Deletion
		kv.add("layout", d.Layout)
		kv.add("m", fmt.Sprintf("%d bits in each of two filters", d.M))
		kv.add("k", strconv.Itoa(d.K))
		if d.BlockBits != 0 {
			kv.add("block bits", strconv.FormatUint(d.BlockBits, 10))
		}
		kv.add("added", fmt.Sprintf("%d keys, %d bits set, fill %.4f", d.Added, d.AddedSetBits, d.AddedFill))
		kv.add("removed", fmt.Sprintf("%d keys, %d bits set, fill %.4f", d.Removed, d.RemovedSetBits, d.RemovedFill))
		kv.add("false-positive rate", rate(d.FalsePositiveRate)+" at most, from the added filter's bits")
		kv.add("false deletions", rate(d.FalseDeletionRate)+" of the keys kept are reported absent (the removed filter's rate)")
	case r.FPSet != nil:
		f := r.FPSet
		form := "sorted (interpolation search)"
		if f.Form == "rice" {
			form = fmt.Sprintf("Rice-coded gaps, k = %d", f.RiceK)
		}
		kv.add("form", form)
		kv.add("fingerprints", fmt.Sprintf("%d of %d bits (%d keys with multiplicity)", f.Fingerprints, f.Bits, f.Total))
		if f.CountBits > 0 {
			kv.add("counts", fmt.Sprintf("%d bits each", f.CountBits))
		}
		kv.add("bits per key", strconv.FormatFloat(f.BitsPerKey, 'f', 3, 64))
		kv.add("false-positive rate", rate(f.FalsePositiveRate))
	case r.Bloomier != nil:
		b := r.Bloomier
		kv.add("keys", strconv.FormatUint(b.Keys, 10))
		kv.add("values", fmt.Sprintf("%d bits, check %d bits, updatable %v", b.ValueBits, b.CheckBits, b.Updatable))
		kv.add("cells", strconv.FormatUint(b.Cells, 10))
		kv.add("bits per key", strconv.FormatFloat(b.BitsPerKey, 'f', 3, 64))
		kv.add("false-positive rate", rate(b.FalsePositiveRate)+" (a key outside the set given a value)")
	case r.MHT != nil:
		t := r.MHT
		kv.add("sub-tables", fmt.Sprintf("%d, sizes %v (%d buckets)", t.Levels, t.Sizes, t.Buckets))
		kv.add("items", fmt.Sprintf("%d live, %d lazily deleted", t.Items, t.Deleted))
		kv.add("occupancy", fmt.Sprint(t.Occupancy))
	default:
		m := r.Summary
		kv.add("summary", fmt.Sprintf("%s over %d sub-tables, %d items, %d bits, removal %v", m.Kind, m.Levels, m.Items, m.Bits, m.CanRemove))
	}
	return kv.write(e.stdout)
}

// errNotChangeable refuses add or remove on a structure they cannot change.
func errNotChangeable(lf *loadedFilter) error {
	return fileErr(lf.path, errors.New("holds "+lf.other.kind()+", which add and remove cannot change"))
}
