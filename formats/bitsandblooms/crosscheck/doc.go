// Package crosscheck checks formats/bitsandblooms against the real
// github.com/bits-and-blooms/bloom/v3 in both directions. It is a
// test-only module, so that the main module does not depend on the
// library; .ci/run runs its tests. With -update its TestGolden rewrites
// the golden files of ../testdata from the real library.
package crosscheck
