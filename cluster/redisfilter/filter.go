// Package redisfilter is a blocked Bloom filter kept in Redis, standalone
// or Redis Cluster, that many processes add to and query at once.
//
// The filter is bloom.Filter's blocked layout (Putze, Sanders and Singler,
// "Cache-, hash- and space-efficient Bloom filters", WEA 2007): a key's k
// probes all fall in one 512-bit block, chosen and probed by package
// hashing exactly as bloom.Filter does for the same Config. The bit array
// is cut into shards, Redis strings of at most Config.ShardBytes
// (DefaultShardBytes, about 256 KiB) holding whole blocks, so a key's block lives
// in one shard:
//
//   - an add is one command, EVALSHA of a script that checks that the
//     shard has its whole length and sets the key's bits (BITFIELD, one
//     "SET u1 offset 1" per probe); Redis runs it atomically, so concurrent
//     writers from any number of processes lose nothing and need no lock
//     of their own, and a shard deleted or evicted is reported
//     ([ErrCorrupt]), not created again empty;
//   - a query is one command, GETRANGE of the key's 64-byte block, whose
//     bits are tested here.
//
// Each shard holds its part of the array byte for byte as a bloomcast frame
// carries it (docs/FORMAT.md: bit b at byte b/8, bit b%8 counted from the
// least significant). Redis numbers the bits of a byte from the most
// significant (SETBIT, BITFIELD), so bit b of a shard is Redis's bit
// offset b XOR 7. [Filter.Snapshot] therefore reads the shards into a
// bloom.Filter bit-identical to one fed the same keys locally, which
// encodes to a bloomcast file or digest; [Filter.Import] ORs one in.
//
// The shards' keys are "<Name>:<i>{<tag>}", with hash tags chosen so that
// the shards spread evenly over Redis Cluster's 16384 slots (slot.go);
// "<Name>:meta" records the parameters, and New refuses to open a filter
// whose parameters differ from it ([ErrMismatch]). New writes the shards
// that do not exist yet as zeros of their full length, so that Redis
// holds each in its own size (a string grown bit by bit is given up to
// twice that). Batches ([Filter.AddBatch],
// [Filter.ContainsBatch]) are pipelined, Config.Pipeline keys per round
// trip: a query a GETRANGE each, adds one script for each shard the
// round's keys fall in; go-redis's cluster client splits each round by
// node and sends the nodes' pipelines at once.
//
// Errors are plain. A command that fails (a master killed, a slot moved
// and not found again after go-redis's redirects and retries, a timeout)
// makes the batch stop and return a [*BatchError] naming the keys not
// applied, or not answered; every key not named was applied (Redis
// replied to its command). An add may have been applied even though it is
// reported as not: adds are idempotent, so the caller retries the keys
// named. How long an applied add survives a failure of its master is
// Redis's persistence and replication setting, not this package's.
package redisfilter

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/params"
	"github.com/redis/go-redis/v9"
)

// Errors. Functions wrap them with details; test with errors.Is.
var (
	ErrConfig = errors.New("redisfilter: invalid configuration")
	// ErrMismatch: the filter of that Name in Redis has other parameters
	// (size, probes, seed or shard size) than the Config.
	ErrMismatch = errors.New("redisfilter: filter in Redis has other parameters")
	// ErrNotApplied is wrapped by every *BatchError (and the error of a
	// single Add or Contains that failed).
	ErrNotApplied = errors.New("redisfilter: not applied")
	// ErrIncompatible: Import of a filter of another shape, seed or scheme.
	ErrIncompatible = errors.New("redisfilter: incompatible filter")
	// ErrCorrupt: a shard is missing or holds other than its part of
	// the array (another program deleted, truncated or rewrote it), or
	// shards exist without the meta key.
	ErrCorrupt = errors.New("redisfilter: corrupt shard")
	// ErrZero is returned by the methods of a zero Filter.
	ErrZero = errors.New("redisfilter: zero Filter; use New")
)

// DefaultShardBytes is the shard size when Config.ShardBytes is zero:
// 4095 blocks, 64 bytes short of 256 KiB, so that the string with its
// header fits jemalloc's 256 KiB size class (256 KiB exactly would take
// the next, 320 KiB). Smaller shards spread a small filter over more
// masters; a shard is one Redis string, read whole by Snapshot.
const DefaultShardBytes = 256<<10 - blockBytes

// MaxShardBytes is the largest shard New accepts, 8 MiB: a shard is one
// string on one node, and Snapshot and Import move it in one command.
const MaxShardBytes = 8 << 20

// DefaultPipeline is how many keys a batch sends per round trip when
// Config.Pipeline is zero.
const DefaultPipeline = 1024

// blockBytes is the size of a block of the blocked layout.
const blockBytes = params.BlockedBits / 8

// Config describes a filter in Redis. The size is given as for bloom.Config
// with Layout Blocked: N and P, or M (and K); Seed and Folds likewise. A
// bloom.Filter made from the same values has the same shape and bits.
//
// The zero Config is not valid (New returns ErrConfig): it has no Client,
// no Name and no size.
type Config struct {
	// Client is a *redis.Client for one server or a *redis.ClusterClient
	// for a cluster (any redis.UniversalClient). The Filter uses it and
	// does not close it. A context's deadline bounds a command only if
	// the client's options set ContextTimeoutEnabled; otherwise go-redis
	// bounds each reply by its ReadTimeout (3 s unless set), whatever
	// the context says.
	Client redis.UniversalClient
	// Name prefixes the filter's keys. It may not contain '{' or '}',
	// which would change the keys' hash tags.
	Name string

	N     uint64  // expected keys, with P (1% when P is 0, as in bloom.Config)
	P     float64 // target false-positive rate, in (0, 1)
	M     uint64  // bits, rounded up to whole blocks
	K     int     // probes per key; zero chooses it as bloom.New does
	Seed  uint64  // hashing seed
	Folds int     // as bloom.Config.Folds: M rounded up so the filter can halve Folds times

	// ShardBytes is the largest shard, a multiple of 64 bytes up to
	// MaxShardBytes; zero means DefaultShardBytes. A power of two less 64
	// wastes nothing to Redis's allocator (DefaultShardBytes says why).
	ShardBytes int
	// Pipeline is the number of keys per round trip in batches (a
	// command each for queries, one per shard touched for adds); zero
	// means DefaultPipeline.
	Pipeline int
}

// Filter is a blocked Bloom filter kept in Redis. It is safe for
// concurrent use, and any number of Filters, in any number of processes,
// may share one filter in Redis (the same Name and parameters).
//
// The zero Filter is not usable: its methods return ErrZero. Make one
// with New.
type Filter struct {
	client      redis.UniversalClient
	geom        bloom.Geometry
	name        string
	meta        string   // the meta key
	shards      []string // shard keys
	shardBlocks uint64   // blocks per shard (the last may hold fewer)
	pipeline    int
	// afterRound, when set by a test, is called after each pipelined
	// round of a batch with the number of keys the batch has sent.
	afterRound func(sent int)
}

// New opens the filter c describes, creating its record in Redis if there
// is none. It fails with ErrConfig for an invalid Config, ErrMismatch if
// Redis holds a filter of that Name with other parameters, or the error of
// the connection.
func New(ctx context.Context, c Config) (*Filter, error) {
	switch {
	case c.Client == nil:
		return nil, fmt.Errorf("%w: no Client", ErrConfig)
	case c.Name == "":
		return nil, fmt.Errorf("%w: no Name", ErrConfig)
	case strings.ContainsAny(c.Name, "{}"):
		return nil, fmt.Errorf("%w: Name %q contains a brace", ErrConfig, c.Name)
	case c.ShardBytes < 0 || c.ShardBytes%blockBytes != 0 || c.ShardBytes > MaxShardBytes:
		return nil, fmt.Errorf("%w: ShardBytes = %d, want a multiple of %d up to %d", ErrConfig, c.ShardBytes, blockBytes, MaxShardBytes)
	case c.Pipeline < 0:
		return nil, fmt.Errorf("%w: Pipeline = %d", ErrConfig, c.Pipeline)
	}
	shape, err := bloom.Config{Layout: bloom.Blocked, N: c.N, P: c.P, M: c.M, K: c.K, Folds: c.Folds}.Shape()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	geom, err := bloom.NewGeometry(shape, c.Seed, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	shardBytes := c.ShardBytes
	if shardBytes == 0 {
		shardBytes = DefaultShardBytes
	}
	f := &Filter{
		client:      c.Client,
		geom:        geom,
		name:        c.Name,
		meta:        c.Name + ":meta",
		shardBlocks: uint64(shardBytes / blockBytes),
		pipeline:    c.Pipeline,
	}
	if f.pipeline == 0 {
		f.pipeline = DefaultPipeline
	}
	blocks := shape.M / params.BlockedBits
	n := (blocks + f.shardBlocks - 1) / f.shardBlocks
	tags, base := slotTags(), uint64(keySlot(c.Name))
	f.shards = make([]string, n)
	for i := range f.shards {
		slot := (base + uint64(i)*slots/n) % slots
		f.shards[i] = c.Name + ":" + strconv.Itoa(i) + "{" + tags[slot] + "}"
	}
	if err := f.open(ctx, f.record(shardBytes)); err != nil {
		return nil, err
	}
	if err := f.allocate(ctx, false); err != nil {
		return nil, err
	}
	// Loaded on every master now, so that an add is one EVALSHA.
	if err := addScript.Load(ctx, f.client).Err(); err != nil {
		return nil, fmt.Errorf("redisfilter: %s: loading the add script: %w", f.name, err)
	}
	return f, nil
}

// open checks the meta key against want, writing it if there is none.
// Shards without a meta key are refused: their parameters are unknown
// (the meta key was deleted), so reading them with want's could answer
// wrongly.
func (f *Filter) open(ctx context.Context, want string) error {
	have, err := f.readMeta(ctx)
	if err == nil && have == "" {
		if created, err := f.create(ctx, want); created || err != nil {
			return err
		}
		have, err = f.readMeta(ctx)
	}
	if err != nil {
		return fmt.Errorf("redisfilter: %s: %w", f.meta, err)
	}
	if have != want {
		return fmt.Errorf("%w: %s holds %.200q, the Config gives %q", ErrMismatch, f.meta, have, want)
	}
	return nil
}

// create writes the meta key if neither it nor any shard exists; it
// reports false if another process wrote the meta key first.
func (f *Filter) create(ctx context.Context, want string) (bool, error) {
	lens, err := f.lengths(ctx)
	if err != nil {
		return false, err
	}
	for i, n := range lens {
		if n == 0 {
			continue
		}
		// Shards are written after the meta key: another process may
		// have written both since it was read.
		have, err := f.readMeta(ctx)
		if err != nil {
			return false, fmt.Errorf("redisfilter: %s: %w", f.meta, err)
		}
		if have != "" {
			return false, nil
		}
		return false, fmt.Errorf("%w: %s exists but %s does not", ErrCorrupt, f.shards[i], f.meta)
	}
	created, err := f.client.SetNX(ctx, f.meta, want, 0).Result()
	if err != nil {
		return false, fmt.Errorf("redisfilter: %s: %w", f.meta, err)
	}
	return created, nil
}

// readMeta returns the meta key's value, "" if there is none, read up to
// a bound: a value written by another program may be of any length.
func (f *Filter) readMeta(ctx context.Context) (string, error) {
	const most = 512 // well over a record's length
	return f.client.GetRange(ctx, f.meta, 0, most-1).Result()
}

// lengths returns each shard's length in bytes, 0 for a missing one.
func (f *Filter) lengths(ctx context.Context) ([]int64, error) {
	pipe := f.client.Pipeline()
	cmds := make([]*redis.IntCmd, len(f.shards))
	for i, key := range f.shards {
		cmds[i] = pipe.StrLen(ctx, key)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, fmt.Errorf("redisfilter: %s: %w", f.name, err)
	}
	lens := make([]int64, len(cmds))
	for i, c := range cmds {
		lens[i] = c.Val()
	}
	return lens, nil
}

// shardLen returns shard i's length in bytes.
func (f *Filter) shardLen(i int) int64 {
	size := f.shardBlocks * blockBytes
	if i < len(f.shards)-1 {
		return int64(size)
	}
	return int64(f.geom.M()/8 - uint64(len(f.shards)-1)*size)
}

// allocate writes every shard that does not exist (or every shard, with
// reset) as zeros of its full length. A string Redis grows by BITFIELD
// or SETRANGE is given twice what it needs (sds's greedy growth, below
// 1 MiB), one written whole is not: allocated up front, a shard costs its
// bytes. Creating it with SET NX leaves a shard that another process
// created meanwhile as it is. A shorter shard (grown bit by bit, as
// before shards were allocated) is extended with zeros by a BITFIELD
// that adds 0 to its last byte, which keeps concurrent adds; a longer
// one is refused (ErrCorrupt): it is not this filter's.
func (f *Filter) allocate(ctx context.Context, reset bool) error {
	lens := make([]int64, len(f.shards))
	if !reset {
		var err error
		if lens, err = f.lengths(ctx); err != nil {
			return err
		}
	}
	zeros := make([]byte, f.shardLen(0))
	const perRound = 8 // shards per round trip
	for from := 0; from < len(f.shards); {
		pipe := f.client.Pipeline()
		for sent := 0; sent < perRound && from < len(f.shards); from++ {
			want := f.shardLen(from)
			switch n := lens[from]; {
			case n == want:
				continue
			case n > want:
				return fmt.Errorf("%w: %s holds %d bytes, its part of the array %d", ErrCorrupt, f.shards[from], n, want)
			case n > 0:
				pipe.BitField(ctx, f.shards[from], "OVERFLOW", "WRAP", "INCRBY", "u8", (want-1)*8, 0)
				sent++
				continue
			}
			v := zeros[:want]
			if reset {
				pipe.Set(ctx, f.shards[from], v, 0)
			} else {
				pipe.SetNX(ctx, f.shards[from], v, 0)
			}
			sent++
		}
		if pipe.Len() == 0 {
			continue
		}
		if _, err := pipe.Exec(ctx); err != nil {
			return fmt.Errorf("redisfilter: %s: writing shards: %w", f.name, err)
		}
	}
	return nil
}

// record is the meta key's value: every parameter that places a bit. The
// seed is recorded by a keyed hash of it, which tells seeds apart without
// storing one.
func (f *Filter) record(shardBytes int) string {
	seedTag := hashing.SumStringSeed("bloomcast redisfilter seed", f.geom.Seed()).Lo
	return fmt.Sprintf("bloomcast redisfilter 1 layout=blocked m=%d k=%d scheme=%d seed-tag=%016x shard-bytes=%d",
		f.geom.M(), f.geom.K(), f.geom.Scheme().ID(), seedTag, shardBytes)
}

// Geometry returns the filter's geometry: its shape, seed and hashing, as
// bloom.Filter's. Hash keys with it for the ...Hash methods.
func (f *Filter) Geometry() bloom.Geometry { return f.geom }

// Shape returns the filter's shape.
func (f *Filter) Shape() params.Shape { return f.geom.Shape() }

// Keys returns the filter's Redis keys: the meta key, then the shards in
// order.
func (f *Filter) Keys() []string { return append([]string{f.meta}, f.shards...) }

// probe is where a key's block and bits are in Redis.
type probe struct {
	shard int       // index in f.shards
	start int64     // byte offset of the block in the shard
	mask  [8]uint64 // the key's bits in its block: bit i at mask[i/64] bit i%64
}

// locate returns where h's block and probed bits are.
func (f *Filter) locate(h hashing.Hash128) probe {
	var buf [params.MaxK]uint64
	pos := f.geom.Positions(h, &buf)
	block := pos[0] / params.BlockedBits
	p := probe{
		shard: int(block / f.shardBlocks),
		start: int64(block%f.shardBlocks) * blockBytes,
	}
	for _, b := range pos {
		i := b % params.BlockedBits
		p.mask[i/64] |= 1 << (i % 64)
	}
	return p
}

// appendOffsets appends to args Redis's bit offset of each of p's
// distinct bits (in its shard), for addScript.
func (p *probe) appendOffsets(args []any) []any {
	for w, m := range p.mask {
		for ; m != 0; m &= m - 1 {
			i := int64(w*64) + int64(bits.TrailingZeros64(m))
			// bit i of the block is bit i%8 of byte i/8, low first;
			// Redis counts a byte's bits from the high one: offset ^ 7.
			args = append(args, (p.start*8+i)^7)
		}
	}
	return args
}

// has reports whether block, the bytes GETRANGE returned for p's block,
// has all of p's bits set.
func (p *probe) has(block string) bool {
	for w, m := range p.mask {
		var word uint64
		for j := 0; j < 8; j++ {
			if at := w*8 + j; at < len(block) {
				word |= uint64(block[at]) << (8 * j)
			}
		}
		if word&m != m {
			return false
		}
	}
	return true
}

// Add inserts key: one EVALSHA on its shard (BITFIELD, if the shard is
// whole). A shard missing or not of its length is ErrCorrupt (with
// ErrNotApplied).
func (f *Filter) Add(ctx context.Context, key []byte) error {
	if f.client == nil {
		return ErrZero
	}
	return f.AddHash(ctx, f.geom.Hash(key))
}

// AddString is Add for a string key.
func (f *Filter) AddString(ctx context.Context, key string) error {
	if f.client == nil {
		return ErrZero
	}
	return f.AddHash(ctx, f.geom.HashString(key))
}

// AddHash inserts the key whose hash (by Geometry) is h. An error wraps
// ErrNotApplied: the key may or may not have been added; and ErrCorrupt
// if its shard is missing or not of its length, when it was not.
func (f *Filter) AddHash(ctx context.Context, h hashing.Hash128) error {
	if f.client == nil {
		return ErrZero
	}
	p := f.locate(h)
	err := addScript.Run(ctx, f.client, []string{f.shards[p.shard]}, f.addArgs(&p)...).Err()
	if err != nil {
		return fmt.Errorf("%w: add to %s: %w", ErrNotApplied, f.shards[p.shard], f.shardError(p.shard, err))
	}
	return nil
}

// addScript sets bits in a shard (KEYS[1]), at the Redis bit offsets
// ARGV[2:], one key's or a batch round's for that shard, only if the
// shard has its whole length (ARGV[1]); otherwise it fails with
// "BADSHARD <length>". A BITFIELD alone would create a shard that was
// deleted or evicted, empty: the keys added before would then be false
// negatives, with no error anywhere. Redis runs a script atomically, so
// no DEL comes between the check and the bits. The bits go in BITFIELDs
// of at most addScriptSets "SET u1 offset 1" each: Lua's unpack has a
// limit on the values it returns (8,000 in Redis's Lua).
var addScript = redis.NewScript(`
local n = redis.call('STRLEN', KEYS[1])
if n ~= tonumber(ARGV[1]) then
	return redis.error_reply('BADSHARD ' .. n)
end
local args, sets = {}, 0
for i = 2, #ARGV do
	args[#args + 1] = 'SET'
	args[#args + 1] = 'u1'
	args[#args + 1] = ARGV[i]
	args[#args + 1] = 1
	sets = sets + 1
	if sets == ` + strconv.Itoa(addScriptSets) + ` or i == #ARGV then
		redis.call('BITFIELD', KEYS[1], unpack(args))
		args, sets = {}, 0
	end
end
return #ARGV - 1
`)

// addScriptSets is how many bits addScript sets in one BITFIELD: 4 values
// each, well within unpack's limit.
const addScriptSets = 1024

// importScript ORs ARGV[1] into a shard (KEYS[1]) through a temporary
// key beside it (KEYS[2]) if the shard has ARGV[1]'s length, and otherwise
// fails as addScript does.
var importScript = redis.NewScript(`
local n = redis.call('STRLEN', KEYS[1])
if n ~= string.len(ARGV[1]) then
	return redis.error_reply('BADSHARD ' .. n)
end
redis.call('SET', KEYS[2], ARGV[1])
redis.call('BITOP', 'OR', KEYS[1], KEYS[1], KEYS[2])
redis.call('DEL', KEYS[2])
return 1
`)

// addArgs returns addScript's arguments for p: its shard's length, then
// the offsets of its bits.
func (f *Filter) addArgs(p *probe) []any {
	return p.appendOffsets([]any{f.shardLen(p.shard)})
}

// shardError returns addScript's refusal of shard i as ErrCorrupt, other
// errors as they are.
func (f *Filter) shardError(i int, err error) error {
	n, ok := strings.CutPrefix(err.Error(), "BADSHARD ")
	if !ok {
		return err
	}
	return fmt.Errorf("%w: shard %d holds %s bytes, its part of the array %d (0: missing)", ErrCorrupt, i, n, f.shardLen(i))
}

// Contains reports whether key may be in the set: one GETRANGE of its
// 64-byte block.
func (f *Filter) Contains(ctx context.Context, key []byte) (bool, error) {
	if f.client == nil {
		return false, ErrZero
	}
	return f.ContainsHash(ctx, f.geom.Hash(key))
}

// ContainsString is Contains for a string key.
func (f *Filter) ContainsString(ctx context.Context, key string) (bool, error) {
	if f.client == nil {
		return false, ErrZero
	}
	return f.ContainsHash(ctx, f.geom.HashString(key))
}

// ContainsHash reports whether the key whose hash is h may be in the set.
func (f *Filter) ContainsHash(ctx context.Context, h hashing.Hash128) (bool, error) {
	if f.client == nil {
		return false, ErrZero
	}
	p := f.locate(h)
	block, err := f.client.GetRange(ctx, f.shards[p.shard], p.start, p.start+blockBytes-1).Result()
	if err == nil {
		err = f.checkBlock(&p, block)
	}
	if err != nil {
		return false, fmt.Errorf("%w: query %s: %w", ErrNotApplied, f.shards[p.shard], err)
	}
	return p.has(block), nil
}

// checkBlock refuses a block GETRANGE returned short: the shard is
// missing or truncated (New writes every shard whole), and its zeros
// would answer "not present" for keys added.
func (f *Filter) checkBlock(p *probe, block string) error {
	if len(block) != blockBytes {
		return fmt.Errorf("%w: %d bytes at offset %d, want %d (the shard is missing or truncated)", ErrCorrupt, len(block), p.start, blockBytes)
	}
	return nil
}

// BatchError is the error of a batch some of whose keys were not applied
// (AddBatch) or not answered (ContainsBatch). Every key of the batch not
// in Failed was. It wraps ErrNotApplied and the first failure (Err).
//
// The zero BatchError names no key and no cause.
type BatchError struct {
	Op     string   // "add" or "query"
	Total  int      // keys in the batch
	Failed []int    // indexes in the batch of the keys not applied or not answered, ascending
	Keys   [][]byte // the keys of Failed, when the batch was given keys (nil for hashes)
	Err    error    // the first failure
}

// Error names the count and the first few keys (or indexes) not applied.
func (e *BatchError) Error() string {
	var b strings.Builder
	verb := "applied"
	if e.Op == "query" {
		verb = "answered"
	}
	fmt.Fprintf(&b, "redisfilter: %s: %d of %d keys not %s:", e.Op, len(e.Failed), e.Total, verb)
	const show = 5
	for i, at := range e.Failed {
		if i == show {
			fmt.Fprintf(&b, " and %d more", len(e.Failed)-show)
			break
		}
		if i < len(e.Keys) {
			fmt.Fprintf(&b, " %q", e.Keys[i])
		} else {
			fmt.Fprintf(&b, " #%d", at)
		}
	}
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	return b.String()
}

// Unwrap returns ErrNotApplied and the first failure.
func (e *BatchError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrNotApplied}
	}
	return []error{ErrNotApplied, e.Err}
}

// AddBatch inserts every key, pipelined (Config.Pipeline commands per
// round trip, split by node on a cluster). On a failure it stops after
// the round in which the failure occurred and returns a *BatchError
// naming the keys not applied: those whose command failed and those not
// sent.
func (f *Filter) AddBatch(ctx context.Context, keys [][]byte) error {
	if f.client == nil {
		return ErrZero
	}
	hs := make([]hashing.Hash128, len(keys))
	for i, k := range keys {
		hs[i] = f.geom.Hash(k)
	}
	return withKeys(f.AddBatchHash(ctx, hs), keys)
}

// AddBatchHash is AddBatch for hashes (by Geometry).
func (f *Filter) AddBatchHash(ctx context.Context, hs []hashing.Hash128) error {
	if f.client == nil {
		return ErrZero
	}
	return f.batch(ctx, "add", hs, f.sendAdds, nil)
}

// sendAdds queues one addScript for each shard the round's probes
// touch, with all their bits: a script call costs Redis more than a
// BITFIELD, and one per key made a batched add about twice as slow.
// Each probe's command is its shard's, so a shard that fails fails the
// round's keys in it, and only those.
func (f *Filter) sendAdds(ctx context.Context, p redis.Pipeliner, probes []probe, cmds []redis.Cmder) {
	group := make(map[int]int) // shard → its place in shards and args, in first-seen order
	var shards []int
	var args [][]any
	for j := range probes {
		pr := &probes[j]
		g, ok := group[pr.shard]
		if !ok {
			g = len(shards)
			group[pr.shard] = g
			shards = append(shards, pr.shard)
			args = append(args, []any{f.shardLen(pr.shard)})
		}
		args[g] = pr.appendOffsets(args[g])
	}
	sent := make([]redis.Cmder, len(shards))
	for g, i := range shards {
		sent[g] = addScript.EvalSha(ctx, p, []string{f.shards[i]}, args[g]...)
	}
	for j := range probes {
		cmds[j] = sent[group[probes[j].shard]]
	}
}

// ContainsBatch sets out[i] to whether keys[i] may be in the set,
// pipelined as AddBatch is. out must be at least as long as keys. On a
// failure it returns a *BatchError naming the keys not answered, whose
// out is false.
func (f *Filter) ContainsBatch(ctx context.Context, keys [][]byte, out []bool) error {
	if f.client == nil {
		return ErrZero
	}
	hs := make([]hashing.Hash128, len(keys))
	for i, k := range keys {
		hs[i] = f.geom.Hash(k)
	}
	return withKeys(f.ContainsBatchHash(ctx, hs, out), keys)
}

// ContainsBatchHash is ContainsBatch for hashes (by Geometry).
func (f *Filter) ContainsBatchHash(ctx context.Context, hs []hashing.Hash128, out []bool) error {
	if f.client == nil {
		return ErrZero
	}
	if len(out) < len(hs) {
		return fmt.Errorf("%w: %d results for %d keys", ErrConfig, len(out), len(hs))
	}
	clear(out[:len(hs)])
	return f.batch(ctx, "query", hs, func(ctx context.Context, p redis.Pipeliner, probes []probe, cmds []redis.Cmder) {
		for j := range probes {
			pr := &probes[j]
			cmds[j] = p.GetRange(ctx, f.shards[pr.shard], pr.start, pr.start+blockBytes-1)
		}
	}, func(i int, pr *probe, c redis.Cmder) error {
		block := c.(*redis.StringCmd).Val()
		if err := f.checkBlock(pr, block); err != nil {
			return fmt.Errorf("query %s: %w", f.shards[pr.shard], err)
		}
		out[i] = pr.has(block)
		return nil
	})
}

// withKeys fills a *BatchError's Keys from the batch's keys.
func withKeys(err error, keys [][]byte) error {
	var be *BatchError
	if errors.As(err, &be) {
		be.Keys = make([][]byte, len(be.Failed))
		for i, at := range be.Failed {
			be.Keys[i] = keys[at]
		}
	}
	return err
}

// sendRound's send queues on a pipeline the commands for a round's
// probes, cmds[j] the one that answers for probes[j].
type sender func(ctx context.Context, p redis.Pipeliner, probes []probe, cmds []redis.Cmder)

// batch sends the commands for f.pipeline hashes per round trip, and
// calls done for each hash whose command succeeded (if done is not nil);
// an error of done fails the hash. At the first round with a failure it
// stops and returns the *BatchError.
func (f *Filter) batch(ctx context.Context, op string, hs []hashing.Hash128, send sender, done func(int, *probe, redis.Cmder) error) error {
	probes := make([]probe, min(len(hs), f.pipeline))
	cmds := make([]redis.Cmder, len(probes))
	for from := 0; from < len(hs); from += f.pipeline {
		round := hs[from:min(from+f.pipeline, len(hs))]
		for j, h := range round {
			probes[j] = f.locate(h)
		}
		f.sendRound(ctx, probes[:len(round)], cmds, send)
		var failed []int
		var first error
		for j := range round {
			err := cmds[j].Err()
			if err != nil {
				err = f.shardError(probes[j].shard, err)
			} else if done != nil {
				err = done(from+j, &probes[j], cmds[j])
			}
			if err != nil {
				failed = append(failed, from+j)
				if first == nil {
					first = err
				}
			}
		}
		if f.afterRound != nil {
			f.afterRound(from + len(round))
		}
		if first == nil && ctx.Err() != nil && from+len(round) < len(hs) {
			first = ctx.Err()
		}
		if first != nil {
			for i := from + len(round); i < len(hs); i++ {
				failed = append(failed, i)
			}
			return &BatchError{Op: op, Total: len(hs), Failed: failed, Err: first}
		}
	}
	return nil
}

// sendRound sends the round's commands in one pipeline, into cmds.
// If a node had not the add script cached (a restart, SCRIPT FLUSH, a
// new master), which a pipelined EVALSHA cannot fall back from, it loads
// the script on every master and sends the round again, once: adds are
// idempotent.
func (f *Filter) sendRound(ctx context.Context, probes []probe, cmds []redis.Cmder, send sender) {
	for try := 0; ; try++ {
		pipe := f.client.Pipeline()
		send(ctx, pipe, probes, cmds)
		_, _ = pipe.Exec(ctx) // each command's own error is read by the caller
		if try > 0 || !slices.ContainsFunc(cmds[:len(probes)], func(c redis.Cmder) bool { return redis.HasErrorPrefix(c.Err(), "NOSCRIPT") }) {
			return
		}
		if addScript.Load(ctx, f.client).Err() != nil {
			return
		}
	}
}

// Snapshot returns the filter's bits as a bloom.Filter of the same shape
// and seed, with the count estimated from the bits (CountEstimated). Each
// shard is read atomically (GETRANGE), one after another: every add that
// returned before Snapshot was called is in it; adds made meanwhile may
// be. Encode it (WriteTo, digest.Encode) for a bloomcast file or digest.
func (f *Filter) Snapshot(ctx context.Context) (*bloom.Filter, error) {
	if f.client == nil {
		return nil, ErrZero
	}
	shape := f.geom.Shape()
	g, err := bloom.New(bloom.Config{Layout: bloom.Blocked, M: shape.M, K: shape.K, Seed: f.geom.Seed()})
	if err != nil {
		return nil, fmt.Errorf("redisfilter: snapshot: %w", err)
	}
	array := make([]byte, g.BitBytes())
	const perRound = 8 // shards per round trip: a few MiB each at most
	for from := 0; from < len(f.shards); from += perRound {
		pipe := f.client.Pipeline()
		cmds := make([]*redis.StringCmd, 0, perRound)
		for j, key := range f.shards[from:min(from+perRound, len(f.shards))] {
			// One byte past the part tells a longer shard without
			// reading all of it.
			cmds = append(cmds, pipe.GetRange(ctx, key, 0, f.shardLen(from+j)))
		}
		_, _ = pipe.Exec(ctx) // each command's own error is read below
		for j, c := range cmds {
			i := from + j
			part := f.shardPart(array, i)
			v, err := c.Bytes()
			if err != nil {
				return nil, fmt.Errorf("redisfilter: snapshot: %s: %w", f.shards[i], err)
			}
			if len(v) != len(part) {
				return nil, fmt.Errorf("%w: snapshot: %s holds %d bytes or more, its part of the array %d (0: missing)", ErrCorrupt, f.shards[i], len(v), len(part))
			}
			copy(part, v)
		}
	}
	if err := g.SetBitBytes(array); err != nil {
		return nil, fmt.Errorf("redisfilter: snapshot: %w", err)
	}
	g.SetCountFromBits()
	return g, nil
}

// shardPart returns shard i's part of the array's bytes.
func (f *Filter) shardPart(array []byte, i int) []byte {
	size := f.shardBlocks * blockBytes
	return array[uint64(i)*size : min(uint64(i+1)*size, uint64(len(array)))]
}

// WriteSnapshot writes a Snapshot to w as a bloomcast file (the raw
// frame, bloom.Filter.WriteTo).
func (f *Filter) WriteSnapshot(ctx context.Context, w io.Writer) (int64, error) {
	g, err := f.Snapshot(ctx)
	if err != nil {
		return 0, err
	}
	return g.WriteTo(w)
}

// Import ORs g's bits into the filter, shard by shard: each shard's bits
// are written to a temporary key beside it (the same hash tag) and ORed in
// by BITOP, in one script that Redis runs atomically, so concurrent adds
// are kept; a shard missing or not of its length is ErrCorrupt, and left
// as it is (BITOP alone would create it with g's bits only). g must have
// the filter's shape, seed and the default hashing scheme (ErrIncompatible).
// To replace the filter's contents, Clear it first. On an error, the
// shards before the failing one are imported.
func (f *Filter) Import(ctx context.Context, g *bloom.Filter) error {
	if f.client == nil {
		return ErrZero
	}
	switch {
	case g == nil || g.Scheme() == nil:
		return fmt.Errorf("%w: nil or zero bloom.Filter", ErrIncompatible)
	case g.Shape() != f.geom.Shape():
		return fmt.Errorf("%w: shape %+v, the filter's %+v", ErrIncompatible, g.Shape(), f.geom.Shape())
	case g.Seed() != f.geom.Seed():
		return fmt.Errorf("%w: another seed", ErrIncompatible)
	case g.Scheme().ID() != f.geom.Scheme().ID():
		return fmt.Errorf("%w: hashing scheme %d", ErrIncompatible, g.Scheme().ID())
	}
	array := g.AppendBitBytes(nil)
	for i, key := range f.shards {
		part := f.shardPart(array, i)
		if allZero(part) {
			continue
		}
		err := importScript.Run(ctx, f.client, []string{key, key + ":import"}, part).Err()
		if err != nil {
			return fmt.Errorf("redisfilter: import into %s: %w", key, f.shardError(i, err))
		}
	}
	return nil
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// Clear removes every key from the filter: it writes every shard as
// zeros (one SET each, pipelined). Adds racing with Clear may survive it.
func (f *Filter) Clear(ctx context.Context) error {
	if f.client == nil {
		return ErrZero
	}
	if err := f.allocate(ctx, true); err != nil {
		return fmt.Errorf("redisfilter: clear: %w", err)
	}
	return nil
}
