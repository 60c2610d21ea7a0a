// Package apitest holds, in its tests, checks of the module's public API:
// that the exported methods of bloom, counting, digest and envelope (and
// of the zero values of bloomier, cache, fpset, icp, mht, ribbon, squid,
// formats/bitsandblooms and formats/parquet) answer a zero value or a nil
// argument with an error, or a panic that names the package and the fix,
// never with a
// runtime error (nil dereference, division by zero, index out of range);
// that no exported identifier of a package outside internal/ has a type
// from an internal package, which a user could not name and whose changes
// would escape the committed API text (api/, .ci/api.sh); and that every
// exported type of a library package says in its doc what its zero value
// is (TestZeroValueDocumented). TestArchitectureImports checks
// docs/ARCHITECTURE.md against the code: every package of the main and
// cluster modules listed with the module's packages it imports, and no
// package drawn below one it imports. It has no code of its own.
package apitest
