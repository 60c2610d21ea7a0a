#!/usr/bin/env bash
# Writes formats/parquet/testdata with the real software: duckdb.parquet
# and duckdb.answers (DuckDB's parquet_bloom_probe for 1200 present and
# 1200 absent keys of each column), and duckdb-big.sbbf and
# duckdb-big.answers (the filter DuckDB writes for 10^5 strings and its
# answers for 10^5 present and 10^5 absent ones; about 3 minutes on 2
# cores) by duckdb.cjs with the npm package @duckdb/node-api, installed
# here in a temporary directory; and
# parquetgo.parquet, parquetgo.answers and parquetgo-n1000.bin by
# parquet-go (crosscheck_test.go's TestGolden with -update). The Go tests
# check bloomcast against these files without node.
#
#	formats/parquet/crosscheck/generate.sh
set -euo pipefail
cd "$(dirname "$0")"
npm_dir=$(mktemp -d)
trap 'rm -rf "$npm_dir"' EXIT
(cd "$npm_dir" && npm init -y >/dev/null && npm install --no-audit --no-fund @duckdb/node-api >/dev/null)
NODE_PATH="$npm_dir/node_modules" node duckdb.cjs golden ../testdata
NODE_PATH="$npm_dir/node_modules" node duckdb.cjs golden-big ../testdata 100000
go test -count=1 -run '^TestGolden$' . -update
grep '^	github.com/parquet-go/parquet-go ' go.mod | sed 's/^\t/parquet-go /' >../testdata/VERSION.parquetgo
