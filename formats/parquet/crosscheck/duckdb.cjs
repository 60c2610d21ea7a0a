// Writes Parquet files with DuckDB (the npm package @duckdb/node-api) and
// records DuckDB's parquet_bloom_probe answers, for formats/parquet's
// tests. Run by generate.sh (golden files) and by TestRealDuckDB:
//
//	node duckdb.cjs golden OUTDIR
//	node duckdb.cjs big FILE N ANSWERS
//
// The keys: for an integer v, column s holds 'k' || v, i32 v·7919 − 10^6,
// i64 v·1000000007, f32 (v/7)::FLOAT, f64 v/7 and u md5(v::VARCHAR)::UUID.
// An answers file has one line per column: the column's name, a space,
// and one hex digit per probed key, the bit mask of the row groups that
// parquet_bloom_probe does not exclude.
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

// probe answers, for each key v in keys, the mask of row groups whose
// filter may hold the value of v in column col, on `ways` connections.
async function probe(db, file, col, keys, ways) {
  const masks = new Array(keys.length);
  const worker = async (w) => {
    const conn = await db.connect();
    for (let j = w; j < keys.length; j += ways) {
      const r = await conn.runAndReadAll(
        `SELECT row_group_id, bloom_filter_excludes FROM parquet_bloom_probe('${file}', '${col}', ${columns[col](keys[j])})`);
      let m = 0;
      for (const [rg, excludes] of r.getRows()) {
        if (!excludes) m |= 1 << Number(rg);
      }
      masks[j] = m;
    }
  };
  await Promise.all(Array.from({ length: ways }, (_, w) => worker(w)));
  return masks.map((m) => m.toString(16)).join('');
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
    // dictionary, which its bloom filters are built from), 3 row groups:
    // keys 0..511, 512..1023, 1024..1199 and 0..335.
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
    // n distinct strings and integers, each twice, in 4 row groups; the
    // answers for keys 0..n-1 (present) and n..2n-1 (absent) of column s.
    const [file, nArg, answers] = args;
    const n = Number(nArg);
    await conn.run(`COPY (SELECT 'k' || v AS s, v::BIGINT * 1000000007 AS i64 FROM (SELECT (i // 2) AS v FROM range(${2 * n}) t(i)))
      TO '${file}' (FORMAT parquet, ROW_GROUP_SIZE ${Math.ceil(n / 2)}, DICTIONARY_SIZE_LIMIT 100000000)`);
    const keys = range(0, 2 * n);
    fs.writeFileSync(answers, `s ${await probe(db, file, 's', keys, 4)}\n`);
  } else {
    throw new Error(`usage: node duckdb.cjs golden OUTDIR | big FILE N ANSWERS`);
  }
}

main().catch((e) => {
  console.error(String(e));
  process.exit(1);
});
