// Command redisbench measures redisfilter on loopback, side by side with
// the naive way of keeping a Bloom filter in Redis: the same bits, set and
// tested with one SETBIT or GETBIT per probe. It starts its own servers
// (redis-server and redis-cli must be installed): a single Redis and a
// Redis Cluster of three masters, and prints a Markdown table of adds and
// queries per second for each number of concurrent clients, the batched
// rates, and the bytes per key.
//
//	cd cluster && go run ./cmd/redisbench -n 1000000 -seconds 2
//
// Each client is a goroutine adding or querying one key at a time and
// waiting for the answer. The naive add sends its k SETBITs one after the
// other; the naive query stops at the first GETBIT that answers 0, but it
// queries keys that were added, so all k are read, as redisfilter's
// queries of the same keys read one block.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bloomcast/bloomcast/cluster/internal/redistest"
	"github.com/bloomcast/bloomcast/cluster/redisfilter"
	"github.com/bloomcast/bloomcast/params"
	"github.com/redis/go-redis/v9"
)

func main() {
	n := flag.Int("n", 1000000, "keys the filter is sized for and filled with")
	p := flag.Float64("p", 0.01, "false-positive rate the filter is sized for")
	seconds := flag.Float64("seconds", 2, "duration of each measurement")
	clientList := flag.String("clients", "1,8,64", "numbers of concurrent clients")
	flag.Parse()
	var clients []int
	for _, s := range strings.Split(*clientList, ",") {
		c, err := strconv.Atoi(s)
		if err != nil || c < 1 {
			fatal(fmt.Errorf("-clients: %q", s))
		}
		clients = append(clients, c)
	}
	dir, err := os.MkdirTemp("", "redisbench")
	if err != nil {
		fatal(err)
	}
	defer func() { _ = os.RemoveAll(dir) }() // a temporary directory
	b := bench{n: *n, p: *p, d: time.Duration(*seconds * float64(time.Second)), clients: clients}

	single, err := redistest.Start(filepath.Join(dir, "single"), false)
	if err != nil {
		fatal(err)
	}
	rows := b.run("single", redis.NewClient(&redis.Options{Addr: single.Addr, PoolSize: 128}), []string{single.Addr})
	single.Kill()
	cl, err := redistest.StartCluster(filepath.Join(dir, "cluster"), 3)
	if err != nil {
		fatal(err)
	}
	rows = append(rows, b.run("cluster", redis.NewClusterClient(&redis.ClusterOptions{Addrs: cl.Addrs(), PoolSize: 128}), cl.Addrs())...)
	cl.Stop()
	for _, r := range rows {
		fmt.Println(r)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "redisbench:", err)
	os.Exit(1)
}

type bench struct {
	n       int
	p       float64
	d       time.Duration
	clients []int
}

// run measures one deployment and returns its table rows.
func (b *bench) run(name string, client redis.UniversalClient, nodes []string) []string {
	ctx := context.Background()
	defer func() { _ = client.Close() }() // the deployment is stopped next
	before := usedMemory(ctx, nodes)
	f, err := redisfilter.New(ctx, redisfilter.Config{Client: client, Name: "bench", N: uint64(b.n), P: b.p})
	if err != nil {
		fatal(err)
	}
	shape := f.Shape()
	fmt.Fprintf(os.Stderr, "%s: m = %d bits, k = %d, %d shards\n", name, shape.M, shape.K, len(f.Keys())-1)

	// Fill by batches, timed: the batched add rate.
	keys := make([][]byte, b.n)
	for i := range keys {
		keys[i] = []byte("key-" + strconv.Itoa(i))
	}
	start := time.Now()
	if err := f.AddBatch(ctx, keys); err != nil {
		fatal(err)
	}
	batchAdd := float64(b.n) / time.Since(start).Seconds()
	after := usedMemory(ctx, nodes)
	out := make([]bool, b.n)
	start = time.Now()
	if err := f.ContainsBatch(ctx, keys, out); err != nil {
		fatal(err)
	}
	batchQuery := float64(b.n) / time.Since(start).Seconds()

	var rows []string
	if name == "single" {
		rows = append(rows,
			"| deployment | clients | adds/s, Add (EVALSHA) | adds/s, SETBIT per bit | × | queries/s, GETRANGE | queries/s, GETBIT per bit | × |",
			"|---|---:|---:|---:|---:|---:|---:|---:|")
	}
	shards := f.Keys()[1:]
	shardBits := uint64(redisfilter.DefaultShardBytes * 8)
	g := f.Geometry()
	for _, c := range b.clients {
		add := b.rate(c, func(id, i int) error {
			return f.AddString(ctx, "add-"+strconv.Itoa(id)+"-"+strconv.Itoa(i))
		})
		naiveAdd := b.rate(c, func(id, i int) error {
			var buf [params.MaxK]uint64
			for _, bit := range g.Positions(g.HashString("naive-"+strconv.Itoa(id)+"-"+strconv.Itoa(i)), &buf) {
				if err := client.SetBit(ctx, shards[bit/shardBits], int64(bit%shardBits)^7, 1).Err(); err != nil {
					return err
				}
			}
			return nil
		})
		query := b.rate(c, func(id, i int) error {
			ok, err := f.Contains(ctx, keys[(id*7919+i)%b.n])
			if err == nil && !ok {
				err = fmt.Errorf("key %d missing", (id*7919+i)%b.n)
			}
			return err
		})
		naiveQuery := b.rate(c, func(id, i int) error {
			var buf [params.MaxK]uint64
			for _, bit := range g.Positions(g.Hash(keys[(id*7919+i)%b.n]), &buf) {
				v, err := client.GetBit(ctx, shards[bit/shardBits], int64(bit%shardBits)^7).Result()
				if err != nil || v == 0 {
					return err
				}
			}
			return nil
		})
		rows = append(rows, fmt.Sprintf("| %s | %d | %s | %s | %.1f | %s | %s | %.1f |",
			name, c, thousands(add), thousands(naiveAdd), add/naiveAdd, thousands(query), thousands(naiveQuery), query/naiveQuery))
	}
	fmt.Fprintf(os.Stderr, "%s: batched (AddBatch, ContainsBatch, one caller, %d commands per round trip): %s adds/s, %s queries/s\n",
		name, redisfilter.DefaultPipeline, thousands(batchAdd), thousands(batchQuery))
	rows = append(rows, fmt.Sprintf("| %s, batched | 1 | %s (AddBatch) | | | %s (ContainsBatch) | | |", name, thousands(batchAdd), thousands(batchQuery)))
	fmt.Fprintf(os.Stderr, "%s: %.2f bytes of bit array per key; Redis used_memory grew by %.2f bytes per key\n",
		name, float64(shape.M)/8/float64(b.n), float64(after-before)/float64(b.n))
	return rows
}

// rate runs op from c goroutines for b.d and returns the operations per
// second.
func (b *bench) rate(c int, op func(id, i int) error) float64 {
	var done atomic.Int64
	var wg sync.WaitGroup
	deadline := time.Now().Add(b.d)
	start := time.Now()
	for id := range c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; time.Now().Before(deadline); i++ {
				if err := op(id, i); err != nil {
					fatal(err)
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	return float64(done.Load()) / time.Since(start).Seconds()
}

// usedMemory sums INFO memory's used_memory over the nodes.
func usedMemory(ctx context.Context, nodes []string) int64 {
	var sum int64
	for _, addr := range nodes {
		c := redis.NewClient(&redis.Options{Addr: addr})
		info, err := c.Info(ctx, "memory").Result()
		_ = c.Close() // only queried
		if err != nil {
			fatal(err)
		}
		for _, line := range strings.Split(info, "\n") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(line), "used_memory:"); ok {
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					fatal(err)
				}
				sum += n
			}
		}
	}
	return sum
}

// thousands formats a rate with a thin space between thousands.
func thousands(x float64) string {
	s := strconv.FormatInt(int64(x+0.5), 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + " " + s[i:]
	}
	return s
}
