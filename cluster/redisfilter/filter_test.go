package redisfilter

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/cluster/internal/redistest"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/params"
	"github.com/redis/go-redis/v9"
)

func TestCRC16(t *testing.T) {
	// The Redis Cluster specification's test vector.
	if got := crc16("123456789"); got != 0x31C3 {
		t.Fatalf("crc16(123456789) = %#x, want 0x31c3", got)
	}
	tags := slotTags()
	for slot, tag := range tags {
		if tag == "" || keySlot(tag) != slot {
			t.Fatalf("slot %d: tag %q has slot %d", slot, tag, keySlot(tag))
		}
	}
}

func TestConfigErrors(t *testing.T) {
	ctx := context.Background()
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}) // never reached
	defer func() { _ = client.Close() }()
	for _, c := range []Config{
		{},
		{Client: client, N: 100, P: 0.01},
		{Client: client, Name: "a{b}", N: 100, P: 0.01},
		{Client: client, Name: "a", N: 100, P: 1.5},
		{Client: client, Name: "a", M: 1000, P: 0.01},
		{Client: client, Name: "a", N: 100, P: 0.01, ShardBytes: 100},
		{Client: client, Name: "a", N: 100, P: 0.01, ShardBytes: MaxShardBytes + 64},
		{Client: client, Name: "a", N: 100, P: 0.01, Pipeline: -1},
	} {
		if _, err := New(ctx, c); !errors.Is(err, ErrConfig) {
			t.Errorf("New(%+v): %v, want ErrConfig", c, err)
		}
	}
}

func TestZeroFilter(t *testing.T) {
	var f Filter
	ctx := context.Background()
	if err := f.AddString(ctx, "a"); !errors.Is(err, ErrZero) {
		t.Error("Add:", err)
	}
	if _, err := f.ContainsString(ctx, "a"); !errors.Is(err, ErrZero) {
		t.Error("Contains:", err)
	}
	if err := f.AddBatch(ctx, [][]byte{[]byte("a")}); !errors.Is(err, ErrZero) {
		t.Error("AddBatch:", err)
	}
	if _, err := f.Snapshot(ctx); !errors.Is(err, ErrZero) {
		t.Error("Snapshot:", err)
	}
	if err := f.Import(ctx, nil); !errors.Is(err, ErrZero) {
		t.Error("Import:", err)
	}
}

// newLocal returns the bloom.Filter that c describes.
func newLocal(t testing.TB, c Config) *bloom.Filter {
	t.Helper()
	g, err := bloom.New(bloom.Config{Layout: bloom.Blocked, N: c.N, P: c.P, M: c.M, K: c.K, Seed: c.Seed, Folds: c.Folds})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func keysFrom(prefix string, from, to int) [][]byte {
	keys := make([][]byte, 0, to-from)
	for i := from; i < to; i++ {
		keys = append(keys, []byte(prefix+strconv.Itoa(i)))
	}
	return keys
}

// commandLog records the commands a client sends.
type commandLog struct {
	mu   sync.Mutex
	args [][]any
}

func (l *commandLog) DialHook(next redis.DialHook) redis.DialHook { return next }
func (l *commandLog) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		l.mu.Lock()
		l.args = append(l.args, cmd.Args())
		l.mu.Unlock()
		return next(ctx, cmd)
	}
}
func (l *commandLog) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		l.mu.Lock()
		for _, c := range cmds {
			l.args = append(l.args, c.Args())
		}
		l.mu.Unlock()
		return next(ctx, cmds)
	}
}

func (l *commandLog) take() [][]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	a := l.args
	l.args = nil
	return a
}

// TestLayout checks, on a single server, that an add is one EVALSHA and
// a query one GETRANGE of 64 bytes, that each probed bit is where Redis's
// GETBIT finds it (the bit order within a byte), and that the shards hold
// byte for byte what a local bloom.Filter fed the same keys holds.
func TestLayout(t *testing.T) {
	s := redistest.Single(t)
	ctx := context.Background()
	client := redis.NewClient(&redis.Options{Addr: s.Addr})
	defer func() { _ = client.Close() }()
	log := &commandLog{}
	client.AddHook(log)
	c := Config{Client: client, Name: "layout", N: 5000, P: 0.01, Seed: 42, ShardBytes: 1024}
	f, err := New(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	local := newLocal(t, c)
	if f.Shape() != local.Shape() {
		t.Fatalf("shape %+v, bloom.New gives %+v", f.Shape(), local.Shape())
	}
	if want := (local.M()/8 + 1023) / 1024; uint64(len(f.Keys())-1) != want {
		t.Fatalf("%d shards, want %d", len(f.Keys())-1, want)
	}
	// New wrote every shard whole.
	array := local.AppendBitBytes(nil)
	for i, key := range f.shards {
		if n, err := client.StrLen(ctx, key).Result(); err != nil || n != int64(len(f.shardPart(array, i))) {
			t.Fatalf("%s: STRLEN %d, %v; want %d", key, n, err, len(f.shardPart(array, i)))
		}
	}
	log.take()
	for i := range 300 {
		key := "key-" + strconv.Itoa(i)
		if err := f.AddString(ctx, key); err != nil {
			t.Fatal(err)
		}
		local.AddString(key)
		cmds := log.take()
		if len(cmds) != 1 || cmds[0][0] != "evalsha" {
			t.Fatalf("add %q sent %v, want one EVALSHA", key, cmds)
		}
		// Every probed bit is set where GETBIT finds it.
		var buf [params.MaxK]uint64
		g := f.Geometry()
		for _, b := range g.Positions(g.HashString(key), &buf) {
			shardBits := f.shardBlocks * params.BlockedBits
			bit, err := client.GetBit(ctx, f.shards[b/shardBits], int64(b%shardBits)^7).Result()
			if err != nil || bit != 1 {
				t.Fatalf("%q: bit %d: GETBIT %d, %v", key, b, bit, err)
			}
		}
		log.take()
		ok, err := f.ContainsString(ctx, key)
		if err != nil || !ok {
			t.Fatalf("Contains(%q) = %v, %v", key, ok, err)
		}
		cmds = log.take()
		if len(cmds) != 1 || cmds[0][0] != "getrange" {
			t.Fatalf("query %q sent %v, want one GETRANGE", key, cmds)
		}
		start, end := cmds[0][2].(int64), cmds[0][3].(int64)
		if end-start+1 != 64 || start%64 != 0 {
			t.Fatalf("query %q read bytes %d..%d, want one aligned 64-byte block", key, start, end)
		}
	}
	want := local.AppendBitBytes(nil)
	for i, key := range f.shards {
		v, err := client.Get(ctx, key).Bytes()
		if errors.Is(err, redis.Nil) {
			v = nil
		} else if err != nil {
			t.Fatal(err)
		}
		part := f.shardPart(want, i)
		got := make([]byte, len(part))
		copy(got, v)
		if len(v) > len(part) || !bytes.Equal(got, part) {
			t.Fatalf("shard %d differs from the local filter's bytes", i)
		}
	}
	snap, err := f.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !snap.Equal(local) {
		t.Fatal("snapshot differs from the local filter")
	}
	// Absent keys answer as the local filter does (false positives too).
	for i := range 2000 {
		key := "absent-" + strconv.Itoa(i)
		ok, err := f.ContainsString(ctx, key)
		if err != nil || ok != local.ContainsString(key) {
			t.Fatalf("Contains(%q) = %v, %v; local %v", key, ok, err, local.ContainsString(key))
		}
	}
}

func TestMismatch(t *testing.T) {
	s := redistest.Single(t)
	ctx := context.Background()
	client := redis.NewClient(&redis.Options{Addr: s.Addr})
	defer func() { _ = client.Close() }()
	c := Config{Client: client, Name: "m", M: 1 << 16, K: 7, Seed: 1}
	if _, err := New(ctx, c); err != nil {
		t.Fatal(err)
	}
	if _, err := New(ctx, c); err != nil {
		t.Fatal("the same Config again:", err)
	}
	for _, d := range []Config{
		{Client: client, Name: "m", M: 1 << 16, K: 6, Seed: 1},
		{Client: client, Name: "m", M: 1 << 17, K: 7, Seed: 1},
		{Client: client, Name: "m", M: 1 << 16, K: 7, Seed: 2},
		{Client: client, Name: "m", M: 1 << 16, K: 7, Seed: 1, ShardBytes: 1024},
	} {
		if _, err := New(ctx, d); !errors.Is(err, ErrMismatch) {
			t.Errorf("%+v: %v, want ErrMismatch", d, err)
		}
	}
}

// TestBatchAndImport checks batches against single operations, and Import
// and Clear, on a single server.
func TestBatchAndImport(t *testing.T) {
	s := redistest.Single(t)
	ctx := context.Background()
	client := redis.NewClient(&redis.Options{Addr: s.Addr})
	defer func() { _ = client.Close() }()
	c := Config{Client: client, Name: "batch", N: 20000, P: 0.01, ShardBytes: 4096, Pipeline: 100}
	f, err := New(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	local := newLocal(t, c)
	keys := keysFrom("b-", 0, 5000)
	if err := f.AddBatch(ctx, keys); err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		local.Add(k)
	}
	probe := append(keysFrom("b-", 0, 5000), keysFrom("x-", 0, 5000)...)
	out := make([]bool, len(probe))
	if err := f.ContainsBatch(ctx, probe, out); err != nil {
		t.Fatal(err)
	}
	for i, k := range probe {
		if out[i] != local.Contains(k) {
			t.Fatalf("ContainsBatch %q = %v, local %v", k, out[i], local.Contains(k))
		}
	}
	// Import ORs another filter in.
	other := newLocal(t, c)
	for _, k := range keysFrom("i-", 0, 3000) {
		other.Add(k)
		local.Add(k)
	}
	if err := f.Import(ctx, other); err != nil {
		t.Fatal(err)
	}
	snap, err := f.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !snap.Equal(local) {
		t.Fatal("after Import the snapshot is not the union")
	}
	var file bytes.Buffer
	if _, err := f.WriteSnapshot(ctx, &file); err != nil {
		t.Fatal(err)
	}
	back, err := bloom.Decode(file.Bytes(), envelope.Limits{})
	if err != nil || !back.Equal(local) {
		t.Fatalf("the written snapshot decodes to another filter: %v", err)
	}
	if err := f.Import(ctx, newLocal(t, Config{N: 100, P: 0.01})); !errors.Is(err, ErrIncompatible) {
		t.Fatalf("Import of another shape: %v", err)
	}
	if err := f.Clear(ctx); err != nil {
		t.Fatal(err)
	}
	if snap, err := f.Snapshot(ctx); err != nil || snap.FillRatio() != 0 {
		t.Fatalf("after Clear: %v, fill %v", err, snap.FillRatio())
	}
}

// TestBatchAddsOneScriptPerShard checks that a batch of adds sends one
// script a round for each shard its keys fall in, not one a key, and
// sets the bits a local filter fed the same keys sets: with many shards,
// and with one shard whose round holds more bits than one BITFIELD of
// the script sets (addScriptSets).
func TestBatchAddsOneScriptPerShard(t *testing.T) {
	s := redistest.Single(t)
	ctx := context.Background()
	client := redis.NewClient(&redis.Options{Addr: s.Addr})
	defer func() { _ = client.Close() }()
	log := &commandLog{}
	client.AddHook(log)
	for _, c := range []Config{
		{Client: client, Name: "shards", N: 20000, P: 0.01, ShardBytes: 1024, Pipeline: 500},
		{Client: client, Name: "oneshard", N: 2000, P: 0.01, Pipeline: 1000},
	} {
		f, err := New(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		shards := len(f.Keys()) - 1
		keys := keysFrom(c.Name+"-", 0, 2000)
		rounds := (len(keys) + c.Pipeline - 1) / c.Pipeline
		log.take()
		if err := f.AddBatch(ctx, keys); err != nil {
			t.Fatal(err)
		}
		scripts := 0
		for _, cmd := range log.take() {
			if cmd[0] == "evalsha" {
				scripts++
			}
		}
		if want := rounds * min(shards, c.Pipeline); scripts > want {
			t.Errorf("%s: %d keys in %d rounds over %d shards sent %d scripts, want at most %d", c.Name, len(keys), rounds, shards, scripts, want)
		}
		local := newLocal(t, c)
		for _, k := range keys {
			local.Add(k)
		}
		snap, err := f.Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(snap.AppendBitBytes(nil), local.AppendBitBytes(nil)) {
			t.Fatalf("%s: the batch set %d bits, a local filter %d, or other ones", c.Name, snap.SetBits(), local.SetBits())
		}
	}
}

// writerEnv carries a writer process's task: "single|cluster addrs from to".
const writerEnv = "BLOOMCAST_REDISFILTER_WRITER"

// writerConfig is the filter the 16 writer processes share.
func writerConfig(client redis.UniversalClient) Config {
	return Config{Client: client, Name: "writers", N: 32000, P: 0.01, Seed: 7, ShardBytes: 4096, Pipeline: 64}
}

func clientFor(mode string, addrs []string) redis.UniversalClient {
	if mode == "cluster" {
		return redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs})
	}
	return redis.NewClient(&redis.Options{Addr: addrs[0]})
}

// TestWriterProcess is one of TestConcurrentWriters' processes; it runs
// only with writerEnv set.
func TestWriterProcess(t *testing.T) {
	task := os.Getenv(writerEnv)
	if task == "" {
		t.Skip("a writer process of TestConcurrentWriters")
	}
	var mode, addrs string
	var from, to int
	if _, err := fmt.Sscan(task, &mode, &addrs, &from, &to); err != nil {
		t.Fatal(err)
	}
	client := clientFor(mode, strings.Split(addrs, ","))
	defer func() { _ = client.Close() }()
	ctx := context.Background()
	f, err := New(ctx, writerConfig(client))
	if err != nil {
		t.Fatal(err)
	}
	// Half one by one, half in batches, interleaved.
	for i := from; i < to; i += 100 {
		end := min(i+100, to)
		if (i/100)%2 == 0 {
			for j := i; j < end; j++ {
				if err := f.AddString(ctx, "w-"+strconv.Itoa(j)); err != nil {
					t.Fatal(err)
				}
			}
		} else if err := f.AddBatch(ctx, keysFrom("w-", i, end)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestConcurrentWriters runs 16 writer processes adding distinct keys to
// one filter, on a single server and on a 3-master cluster; then every key
// is present and the snapshot is bit-identical to a local bloom.Filter fed
// the same keys.
func TestConcurrentWriters(t *testing.T) {
	const writers, perWriter = 16, 2000
	for _, mode := range []string{"single", "cluster"} {
		t.Run(mode, func(t *testing.T) {
			var addrs []string
			if mode == "single" {
				addrs = []string{redistest.Single(t).Addr}
			} else {
				addrs = redistest.NewCluster(t, 3).Addrs()
			}
			procs := make([]*exec.Cmd, writers)
			outs := make([]bytes.Buffer, writers)
			for w := range procs {
				cmd := exec.Command(os.Args[0], "-test.run=^TestWriterProcess$", "-test.count=1")
				cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %s %d %d", writerEnv, mode, strings.Join(addrs, ","), w*perWriter, (w+1)*perWriter))
				cmd.Stdout, cmd.Stderr = &outs[w], &outs[w]
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				procs[w] = cmd
			}
			for w, cmd := range procs {
				if err := cmd.Wait(); err != nil {
					t.Fatalf("writer %d: %v\n%s", w, err, outs[w].String())
				}
			}
			client := clientFor(mode, addrs)
			defer func() { _ = client.Close() }()
			ctx := context.Background()
			f, err := New(ctx, writerConfig(client))
			if err != nil {
				t.Fatal(err)
			}
			keys := keysFrom("w-", 0, writers*perWriter)
			out := make([]bool, len(keys))
			if err := f.ContainsBatch(ctx, keys, out); err != nil {
				t.Fatal(err)
			}
			for i, ok := range out {
				if !ok {
					t.Fatalf("%q missing", keys[i])
				}
			}
			local := newLocal(t, writerConfig(nil))
			for _, k := range keys {
				local.Add(k)
			}
			snap, err := f.Snapshot(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !snap.Equal(local) || !bytes.Equal(snap.AppendBitBytes(nil), local.AppendBitBytes(nil)) {
				t.Fatal("the snapshot differs from the local filter")
			}
			if mode == "cluster" {
				checkSpread(t, ctx, client.(*redis.ClusterClient), f)
			}
		})
	}
}

// checkSpread checks the shards' slots against CLUSTER KEYSLOT and that
// every master holds some.
func checkSpread(t *testing.T, ctx context.Context, c *redis.ClusterClient, f *Filter) {
	t.Helper()
	shardsInfo, err := c.ClusterShards(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	for _, key := range f.shards {
		slot, err := c.ClusterKeySlot(ctx, key).Result()
		if err != nil {
			t.Fatal(err)
		}
		_, rest, _ := strings.Cut(key, "{")
		if want := keySlot(strings.TrimSuffix(rest, "}")); int(slot) != want {
			t.Fatalf("%s: Redis says slot %d, crc16 %d", key, slot, want)
		}
		for _, sh := range shardsInfo {
			for _, r := range sh.Slots {
				if slot >= r.Start && slot <= r.End {
					per[sh.Nodes[0].ID]++
				}
			}
		}
	}
	if len(per) != 3 {
		t.Fatalf("%d shards on %d masters: %v", len(f.shards), len(per), per)
	}
	t.Logf("%d shards over the masters: %v", len(f.shards), per)
}

// TestKilledMaster kills a master of a 3-master cluster in the middle of a
// batch: the batch returns an error naming keys not applied, and every
// key it did not name is present once the master is back (it restarts
// from its append-only file, fsynced before every reply).
func TestKilledMaster(t *testing.T) {
	cl := redistest.NewCluster(t, 3, "appendonly yes", "appendfsync always")
	ctx := context.Background()
	client := redis.NewClusterClient(&redis.ClusterOptions{Addrs: cl.Addrs(), MaxRetries: 1, DialTimeout: time.Second})
	defer func() { _ = client.Close() }()
	c := Config{Client: client, Name: "killed", N: 200000, P: 0.01, ShardBytes: 16384, Pipeline: 256}
	f, err := New(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	keys := keysFrom("k-", 0, 100000)
	victim := cl.Nodes[1]
	var once sync.Once
	f.afterRound = func(sent int) {
		if sent >= 20*c.Pipeline {
			once.Do(victim.Kill)
		}
	}
	err = f.AddBatch(ctx, keys)
	f.afterRound = nil
	var be *BatchError
	if !errors.As(err, &be) || !errors.Is(err, ErrNotApplied) {
		t.Fatalf("AddBatch with a master killed: %v, want a *BatchError", err)
	}
	if len(be.Failed) == 0 || len(be.Failed) == len(keys) || len(be.Keys) != len(be.Failed) {
		t.Fatalf("%d of %d keys reported not applied (%d named)", len(be.Failed), len(keys), len(be.Keys))
	}
	if !strings.Contains(err.Error(), fmt.Sprintf("%q", be.Keys[0])) {
		t.Fatalf("the error does not name the first key not applied: %v", err)
	}
	t.Logf("%v", err)
	if err := victim.Restart(); err != nil {
		t.Fatal(err)
	}
	if err := cl.WaitOK(30 * time.Second); err != nil {
		t.Fatal(err)
	}
	failed := map[int]bool{}
	for _, i := range be.Failed {
		failed[i] = true
	}
	var applied [][]byte
	for i, k := range keys {
		if !failed[i] {
			applied = append(applied, k)
		}
	}
	out := make([]bool, len(applied))
	deadline := time.Now().Add(30 * time.Second)
	for {
		err = f.ContainsBatch(ctx, applied, out)
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond) // the client's slot map catching up
	}
	if err != nil {
		t.Fatal(err)
	}
	for i, ok := range out {
		if !ok {
			t.Fatalf("%q reported added but missing", applied[i])
		}
	}
	// The keys named can be retried.
	if err := f.AddBatch(ctx, be.Keys); err != nil {
		t.Fatal("retry:", err)
	}
}

// TestMovedSlots moves 1500 slots of one master, among them some shards'
// (redis-cli --cluster reshard, keys migrated live), while batches of adds
// run: every key a batch did not name as not applied is present afterwards,
// and the filter is still the local one of those keys.
func TestMovedSlots(t *testing.T) {
	cl := redistest.NewCluster(t, 3)
	ctx := context.Background()
	client := redis.NewClusterClient(&redis.ClusterOptions{Addrs: cl.Addrs()})
	defer func() { _ = client.Close() }()
	c := Config{Client: client, Name: "moved", N: 200000, P: 0.01, ShardBytes: 4096, Pipeline: 128}
	f, err := New(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, 2)
	for i := range ids {
		rc := redis.NewClient(&redis.Options{Addr: cl.Nodes[i].Addr})
		ids[i], err = rc.ClusterMyID(ctx).Result()
		_ = rc.Close() // only queried
		if err != nil {
			t.Fatal(err)
		}
	}
	before := onNode(t, client, f, cl.Nodes[1].Addr)
	_, cli, _ := redistest.Binaries()
	reshard := exec.Command(cli, "--cluster", "reshard", cl.Nodes[0].Addr, "--cluster-from", ids[0], "--cluster-to", ids[1],
		"--cluster-slots", "1500", "--cluster-yes")
	var reshardOut bytes.Buffer
	reshard.Stdout, reshard.Stderr = &reshardOut, &reshardOut
	if err := reshard.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- reshard.Wait() }()
	local := newLocal(t, c)
	var named, batches int
	for running := true; running; batches++ {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("reshard: %v\n%s", err, reshardOut.String())
			}
			running = false // one batch more after the move
		default:
		}
		keys := keysFrom("m"+strconv.Itoa(batches)+"-", 0, 1000)
		err := f.AddBatch(ctx, keys)
		failed := map[int]bool{}
		var be *BatchError
		if errors.As(err, &be) {
			named += len(be.Failed)
			for _, i := range be.Failed {
				failed[i] = true
			}
		} else if err != nil {
			t.Fatal(err)
		}
		for i, k := range keys {
			if !failed[i] {
				local.Add(k)
			}
		}
	}
	if err := cl.WaitOK(30 * time.Second); err != nil {
		t.Fatal(err)
	}
	snap, err := f.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Keys named may have been applied all the same: the snapshot holds
	// at least the local filter's bits, and exactly them if none was named.
	u := snap.Clone()
	if err := u.Union(local); err != nil {
		t.Fatal(err)
	}
	if !u.Equal(snap) || named == 0 && !snap.Equal(local) {
		t.Fatalf("after the move the filter lacks keys reported added (%d named not applied)", named)
	}
	if after := onNode(t, client, f, cl.Nodes[1].Addr); after <= before {
		t.Fatalf("%d shards on the second master before the move, %d after: the move took none", before, after)
	}
	t.Logf("%d batches of 1000 keys during the move, %d keys named not applied", batches, named)
}

// onNode returns how many of f's shards the master at addr holds.
func onNode(t *testing.T, client *redis.ClusterClient, f *Filter, addr string) int {
	t.Helper()
	n := 0
	for _, key := range f.shards {
		master, err := client.MasterForKey(context.Background(), key)
		if err != nil {
			t.Fatal(err)
		}
		if master.Options().Addr == addr {
			n++
		}
	}
	return n
}

// TestForeignValues checks that values under the filter's keys that New
// did not write (deleted, truncated, extended, of another type, a meta
// key removed) give ErrCorrupt or the server's error, never an answer
// read from zeros.
func TestForeignValues(t *testing.T) {
	s := redistest.Single(t)
	ctx := context.Background()
	client := redis.NewClient(&redis.Options{Addr: s.Addr})
	defer func() { _ = client.Close() }()
	c := Config{Client: client, Name: "h", M: 1 << 16, K: 7, Seed: 1, ShardBytes: 1024}
	f, err := New(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.AddString(ctx, "x"); err != nil {
		t.Fatal(err)
	}
	p := f.locate(f.geom.HashString("x"))
	shard := f.shards[p.shard]
	whole, err := client.Get(ctx, shard).Result()
	if err != nil {
		t.Fatal(err)
	}
	refused := func(what string, want error) {
		t.Helper()
		if ok, err := f.ContainsString(ctx, "x"); !errors.Is(err, want) || !errors.Is(err, ErrNotApplied) {
			t.Errorf("%s: Contains = %v, %v; want %v", what, ok, err, want)
		} else if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error of more than one line: %q", what, err)
		}
		out := make([]bool, 1)
		var be *BatchError
		if err := f.ContainsBatch(ctx, [][]byte{[]byte("x")}, out); !errors.As(err, &be) || !errors.Is(err, want) {
			t.Errorf("%s: ContainsBatch: %v, want a *BatchError wrapping %v", what, err, want)
		}
		if _, err := f.Snapshot(ctx); !errors.Is(err, want) {
			t.Errorf("%s: Snapshot: %v, want %v", what, err, want)
		}
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}

	must(client.Del(ctx, shard).Err())
	refused("deleted shard", ErrCorrupt)
	must(client.Set(ctx, shard, whole[:p.start+10], 0).Err())
	refused("truncated shard", ErrCorrupt)
	must(client.Set(ctx, shard, whole+"extra", 0).Err())
	if _, err := f.Snapshot(ctx); !errors.Is(err, ErrCorrupt) {
		t.Errorf("longer shard: Snapshot: %v, want ErrCorrupt", err)
	}
	if _, err := New(ctx, c); !errors.Is(err, ErrCorrupt) {
		t.Errorf("longer shard: New: %v, want ErrCorrupt", err)
	}
	must(client.Del(ctx, shard).Err())
	must(client.LPush(ctx, shard, "a").Err())
	if _, err := f.ContainsString(ctx, "x"); err == nil || !strings.Contains(err.Error(), "WRONGTYPE") {
		t.Errorf("list under a shard's key: %v, want WRONGTYPE", err)
	}

	// A shard grown bit by bit, as before New wrote shards whole, is
	// extended with its bits kept.
	must(client.Del(ctx, shard).Err())
	must(client.Set(ctx, shard, whole[:p.start+blockBytes], 0).Err())
	if _, err := New(ctx, c); err != nil {
		t.Fatal("short shard:", err)
	}
	if n := client.StrLen(ctx, shard).Val(); n != int64(len(whole)) {
		t.Errorf("short shard extended to %d bytes, want %d", n, len(whole))
	}
	if ok, err := f.ContainsString(ctx, "x"); !ok || err != nil {
		t.Errorf("short shard extended: Contains = %v, %v", ok, err)
	}

	// Shards without their meta key: the parameters they were made
	// with are unknown.
	must(client.Del(ctx, f.meta).Err())
	other := c
	other.M = 1 << 17
	if _, err := New(ctx, other); !errors.Is(err, ErrCorrupt) {
		t.Errorf("shards without a meta key: New: %v, want ErrCorrupt", err)
	}
	must(client.Set(ctx, f.meta, strings.Repeat("m", 1<<20), 0).Err())
	if _, err := New(ctx, c); !errors.Is(err, ErrMismatch) || len(err.Error()) > 1000 {
		t.Errorf("a meta key of 1 MiB: New: %.300v, want a short ErrMismatch", err)
	}
}

// TestMissingShardNotRecreated: an add to a shard deleted (or evicted)
// or truncated, or an Import into it, is refused with ErrCorrupt and
// leaves the shard as it is: a BITFIELD alone created it again, empty, and
// of 244 keys added before 227 then answered "absent" with no error (a
// BITOP alone, with the imported bits only). Adds work again once Clear
// writes the shards, and after the server's script cache is flushed.
func TestMissingShardNotRecreated(t *testing.T) {
	s := redistest.Single(t)
	ctx := context.Background()
	client := redis.NewClient(&redis.Options{Addr: s.Addr})
	defer func() { _ = client.Close() }()
	c := Config{Client: client, Name: "m", M: 1 << 16, K: 7, Seed: 1, ShardBytes: 1024}
	f, err := New(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	const victim = 3
	var keys [][]byte
	for _, k := range keysFrom("k", 0, 2000) {
		if f.locate(f.geom.Hash(k)).shard == victim {
			keys = append(keys, k)
		}
	}
	if err := f.AddBatch(ctx, keys); err != nil {
		t.Fatal(err)
	}
	shard := f.shards[victim]
	whole := client.Get(ctx, shard).Val()
	refused := func(what string, length int64) {
		t.Helper()
		err := f.Add(ctx, keys[len(keys)-1])
		if !errors.Is(err, ErrCorrupt) || !errors.Is(err, ErrNotApplied) || !strings.Contains(err.Error(), fmt.Sprintf("shard %d holds %d bytes", victim, length)) {
			t.Errorf("%s: Add: %v, want ErrCorrupt naming shard %d and %d bytes", what, err, victim, length)
		}
		var be *BatchError
		if err := f.AddBatch(ctx, keys); !errors.As(err, &be) || !errors.Is(err, ErrCorrupt) || len(be.Failed) != len(keys) {
			t.Errorf("%s: AddBatch: %v, want a *BatchError wrapping ErrCorrupt naming all %d keys", what, err, len(keys))
		}
		g := newLocal(t, c)
		for _, k := range keys {
			g.Add(k)
		}
		if err := f.Import(ctx, g); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: Import: %v, want ErrCorrupt", what, err)
		}
		if n := client.StrLen(ctx, shard).Val(); n != length {
			t.Errorf("%s: the refused adds and import left the shard %d bytes long, want %d", what, n, length)
		}
		if _, err := f.Contains(ctx, keys[0]); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: Contains: %v, want ErrCorrupt", what, err)
		}
	}
	if err := client.Del(ctx, shard).Err(); err != nil {
		t.Fatal(err)
	}
	refused("deleted", 0)
	if err := client.Set(ctx, shard, whole[:100], 0).Err(); err != nil {
		t.Fatal(err)
	}
	refused("truncated", 100)

	if err := f.Clear(ctx); err != nil {
		t.Fatal(err)
	}
	if err := client.ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if err := f.AddBatch(ctx, keys[:len(keys)/2]); err != nil {
		t.Fatalf("AddBatch after SCRIPT FLUSH: %v", err)
	}
	if err := client.ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	for _, k := range keys[len(keys)/2:] {
		if err := f.Add(ctx, k); err != nil {
			t.Fatalf("Add after SCRIPT FLUSH: %v", err)
		}
	}
	out := make([]bool, len(keys))
	if err := f.ContainsBatch(ctx, keys, out); err != nil || slices.Contains(out, false) {
		t.Fatalf("after Clear and adds again: %v, or a key absent", err)
	}
}
