// Writes Parquet files with DuckDB (the npm package @duckdb/node-api) and
// records DuckDB's parquet_bloom_probe answers, for formats/parquet's
// tests. Run by generate.sh (golden files) and by TestRealDuckDB:
//
//	node duckdb.cjs golden OUTDIR
//	node duckdb.cjs golden-big OUTDIR N
//	node duckdb.cjs big FILE N
//	node duckdb.cjs probe FILE COLUMN KEYS ANSWERS
//
// The keys: for an integer v, column s holds 'k' || v, i32 v·7919 − 10^6,
// i64 v·1000000007, f32 (v/7)::FLOAT, f64 v/7 and u md5(v::VARCHAR)::UUID.
// An answers file has one line per column: the column's name, a space,
// and one hex digit per probed key, the bit mask of the row groups that
// parquet_bloom_probe does not exclude. probe reads its keys (decimal,
// whitespace-separated) from the file KEYS and writes that line for them.
//
// big writes column s of keys 0..N-1, each twice, in one row group.
// golden-big has DuckDB write that file for N and probe keys 0..2N-1,
// and writes OUTDIR/duckdb-big.sbbf, the file's filter (header and
// bitset, as stored at bloom_filter_offset), and OUTDIR/duckdb-big.answers:
//
//	n N
//	present-excluded KEY...
//	absent-maybe KEY...
//
// the present keys (0..N-1) it excludes and the absent keys (N..2N-1) it
// does not exclude.
'use strict';
const { DuckDBInstance } = require('@duckdb/node-api');

const columns = {
  s: (v) => `'k' || ${v}`,
  i32: (v) => `(${v} * 7919 - 1000000)::INTEGER`,
  i64: (v) => `(${v})::BIGINT * 1000000007`,
  f32: (v) => `(${v} / 7)::FLOAT`,
  f64: (v) => `(${v} / 7)::DOUBLE`,
  u: (v) => `md5((${v})::VARCHAR)::UUID`,
};

// batch is how many parquet_bloom_probe calls one statement joins with
// UNION ALL: a statement per value costs about 1 ms, one of 100 about
// 0.3 ms per value.
const batch = 100;

// probe answers, for each key v in keys, the mask of row groups whose
// filter may hold the value of v in column col, on `ways` connections,
// `batch` values per statement.
async function probe(db, file, col, keys, ways) {
  const masks = new Array(keys.length).fill(0);
  const worker = async (w) => {
    const conn = await db.connect();
    for (let lo = w * batch; lo < keys.length; lo += ways * batch) {
      const parts = [];
      for (let j = lo; j < Math.min(lo + batch, keys.length); j++) {
        parts.push(`SELECT ${j} AS j, row_group_id, bloom_filter_excludes FROM parquet_bloom_probe('${file}', '${col}', ${columns[col](keys[j])})`);
      }
      const r = await conn.runAndReadAll(parts.join(' UNION ALL '));
      for (const [j, rg, excludes] of r.getRows()) {
        if (!excludes) masks[j] |= 1 << Number(rg);
      }
    }
  };
  await Promise.all(Array.from({ length: ways }, (_, w) => worker(w)));
  return masks.map((m) => m.toString(16)).join('');
}

// writeBig has DuckDB write column s of keys 0..n-1, each twice in a row
// (so that DuckDB keeps the dictionary its filters are built from), in
// one row group.
async function writeBig(conn, file, n) {
  await conn.run(`COPY (SELECT 'k' || (i // 2) AS s FROM range(${2 * n}) t(i))
    TO '${file}' (FORMAT parquet, ROW_GROUP_SIZE ${2 * n}, DICTIONARY_SIZE_LIMIT 10000000)`);
}

function range(lo, hi) {
  return Array.from({ length: hi - lo }, (_, i) => lo + i);
}

async function main() {
  const [mode, ...args] = process.argv.slice(2);
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  const fs = require('fs');
  if (mode === 'golden') {
    // 3072 rows, each key twice in a row (so that DuckDB keeps the
    // dictionary, which its bloom filters are built from). DuckDB 1.5.6
    // writes 2 row groups despite ROW_GROUP_SIZE 1024: 2,048 rows (keys
    // 0..1023) and 1,024 rows (keys 1024..1199 and 0..335).
    const out = args[0];
    const file = `${out}/duckdb.parquet`;
    const sel = Object.entries(columns).map(([c, e]) => `${e('v')} AS ${c}`).join(', ');
    await conn.run(`COPY (SELECT ${sel} FROM (SELECT (i // 2) % 1200 AS v FROM range(3072) t(i)))
      TO '${file}' (FORMAT parquet, ROW_GROUP_SIZE 1024, COMPRESSION zstd, DICTIONARY_SIZE_LIMIT 1000000)`);
    const keys = range(0, 2400); // 0..1199 present, 1200..2399 absent
    const lines = [];
    for (const col of Object.keys(columns)) {
      lines.push(`${col} ${await probe(db, file, col, keys, 2)}`);
    }
    fs.writeFileSync(`${out}/duckdb.answers`, lines.join('\n') + '\n');
    const v = await conn.runAndReadAll('SELECT version()');
    const pkg = require('@duckdb/node-api/package.json');
    fs.writeFileSync(`${out}/VERSION.duckdb`, `DuckDB ${v.getRows()[0][0]} (@duckdb/node-api ${pkg.version})\n`);
  } else if (mode === 'big') {
    const [file, nArg] = args;
    await writeBig(conn, file, Number(nArg));
  } else if (mode === 'probe') {
    const [file, col, keysFile, answers] = args;
    const keys = fs.readFileSync(keysFile, 'utf8').trim().split(/\s+/).map(Number);
    fs.writeFileSync(answers, `${col} ${await probe(db, file, col, keys, 2)}\n`);
  } else if (mode === 'golden-big') {
    const [out, nArg] = args;
    const n = Number(nArg);
    const file = `${out}/duckdb-big.parquet`;
    let t = Date.now();
    await writeBig(conn, file, n);
    console.log(`golden-big: DuckDB wrote ${n} values in ${Date.now() - t} ms`);
    const meta = await conn.runAndReadAll(
      `SELECT bloom_filter_offset, bloom_filter_length FROM parquet_metadata('${file}') WHERE path_in_schema = 's'`);
    const rows = meta.getRows();
    if (rows.length !== 1) throw new Error(`${rows.length} chunks of column s, want 1`);
    const [off, len] = rows[0].map(Number);
    fs.writeFileSync(`${out}/duckdb-big.sbbf`, fs.readFileSync(file).subarray(off, off + len));
    t = Date.now();
    const masks = await probe(db, file, 's', range(0, 2 * n), 2);
    console.log(`golden-big: parquet_bloom_probe answered ${2 * n} values in ${Date.now() - t} ms`);
    const excluded = [], maybe = [];
    for (let v = 0; v < 2 * n; v++) {
      if (v < n && masks[v] === '0') excluded.push(v);
      if (v >= n && masks[v] !== '0') maybe.push(v);
    }
    fs.writeFileSync(`${out}/duckdb-big.answers`,
      `n ${n}\n${['present-excluded', ...excluded].join(' ')}\n${['absent-maybe', ...maybe].join(' ')}\n`);
    fs.unlinkSync(file);
  } else {
    throw new Error(`usage: node duckdb.cjs golden OUTDIR | golden-big OUTDIR N | big FILE N | probe FILE COLUMN KEYS ANSWERS`);
  }
}

main().catch((e) => {
  console.error(String(e));
  process.exit(1);
});
