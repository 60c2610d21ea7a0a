package anyfile

// As returns the structure f holds as a T, and whether it holds one:
//
//   - a Bloom filter: *bloom.Filter (not while it is read lazily in
//     pieces and not yet decoded), and *digest.Pieces when coded in
//     pieces;
//   - a counting filter: *counting.Filter, and its bit view as read as a
//     *bloom.Filter;
//   - a Squid digest: *squid.Digest, and its mask as a *bloom.Filter;
//   - a scalable filter: *scalable.Filter; a delta digest:
//     *digest.Delta; a deletion filter: *counting.DeletionFilter;
//   - a fingerprint set: *fpset.Sorted or *fpset.Compressed, as it was
//     coded;
//   - a Bloomier filter: *bloomier.Filter; a ribbon filter:
//     *ribbon.Filter; a multilevel hash table: *mht.Table; one of its
//     summaries: mht.Summary; a static digest: *digest.StaticView;
//   - another program's filter: *guava.Filter, *bitsandblooms.Filter,
//     *parquet.Filter (a split block filter), or *parquet.File.
//
// It is how a caller reaches what only one kind has (a counting
// filter's counters, a Squid digest's header); what every kind does is a
// method of File. The structure is f's own, not a copy: what is changed
// through it, f holds and writes back (a counting filter's bit view
// excepted, which is a copy kept as read).
func As[T any](f *File) (T, bool) {
	if f != nil {
		for _, s := range f.kind().structures() {
			if t, ok := s.(T); ok {
				return t, true
			}
		}
	}
	var zero T
	return zero, false
}
