// Package crosscheck checks formats/parquet against the real software:
// github.com/parquet-go/parquet-go (its bloom package and writer, from the
// module proxy) and DuckDB (the npm package @duckdb/node-api, run with
// node by duckdb.cjs). It is a test-only module, so that the main module
// does not depend on parquet-go's writer; .ci/run runs its tests with
// DuckDB installed and BLOOMCAST_REQUIRE_NODE set. generate.sh rewrites
// the golden files of ../testdata from both; TestRealDuckDB checks that
// the DuckDB installed still writes the filter of duckdb-big.sbbf and
// answers a sample of the values as duckdb-big.answers records.
package crosscheck
