package redisfilter_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/cluster/internal/redistest"
	"github.com/bloomcast/bloomcast/cluster/redisfilter"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/redis/go-redis/v9"
)

// redisAddr is the address of the server the examples use: one started by
// TestMain for the package's tests (a real deployment names its own).
var redisAddr string

// TestMain starts a server for the examples. Without redis-server the
// examples are skipped (-test.skip), as the tests are, unless
// BLOOMCAST_REQUIRE_REDIS is set.
func TestMain(m *testing.M) {
	flag.Parse()
	ok, err := redistest.Installed()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if !ok || os.Getenv("BLOOMCAST_REDISFILTER_WRITER") != "" { // no server, or a writer process of TestConcurrentWriters
		skip := "^Example"
		if s := flag.Lookup("test.skip").Value.String(); s != "" {
			skip += "|" + s
		}
		_ = flag.Set("test.skip", skip) // the flag exists: flag.Lookup found it
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "redisfilter-example")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	s, err := redistest.Start(dir, false)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	redisAddr = s.Addr
	code := m.Run()
	s.Kill()
	_ = os.RemoveAll(dir) // a temporary directory
	os.Exit(code)
}

func Example() {
	ctx := context.Background()
	// A *redis.ClusterClient works the same for a Redis Cluster.
	client := redis.NewClient(&redis.Options{Addr: redisAddr})
	defer client.Close()

	f, err := redisfilter.New(ctx, redisfilter.Config{Client: client, Name: "example", N: 100000, P: 0.01})
	if err != nil {
		panic(err)
	}
	if err := f.AddString(ctx, "http://example.com/a"); err != nil {
		panic(err)
	}
	a, _ := f.ContainsString(ctx, "http://example.com/a")
	b, _ := f.ContainsString(ctx, "http://example.com/b")
	fmt.Println(a, b)
	// Output: true false
}

func ExampleFilter_AddBatch() {
	ctx := context.Background()
	client := redis.NewClient(&redis.Options{Addr: redisAddr})
	defer client.Close()
	f, err := redisfilter.New(ctx, redisfilter.Config{Client: client, Name: "example-batch", N: 1000, P: 0.001})
	if err != nil {
		panic(err)
	}
	keys := [][]byte{[]byte("alpha"), []byte("beta"), []byte("gamma")}
	if err := f.AddBatch(ctx, keys[:2]); err != nil {
		// A *redisfilter.BatchError names the keys not applied; retry them.
		panic(err)
	}
	out := make([]bool, len(keys))
	if err := f.ContainsBatch(ctx, keys, out); err != nil {
		panic(err)
	}
	fmt.Println(out)
	// Output: [true true false]
}

func ExampleFilter_Snapshot() {
	ctx := context.Background()
	client := redis.NewClient(&redis.Options{Addr: redisAddr})
	defer client.Close()
	c := redisfilter.Config{Client: client, Name: "example-snapshot", N: 1000, P: 0.01, Seed: 5}
	f, err := redisfilter.New(ctx, c)
	if err != nil {
		panic(err)
	}
	_ = f.AddString(ctx, "alpha")

	// The snapshot is the bloom.Filter of the same Config, bit for bit;
	// its bloomcast file is what WriteSnapshot writes.
	local := bloom.MustNew(bloom.Config{Layout: bloom.Blocked, N: 1000, P: 0.01, Seed: 5})
	local.AddString("alpha")
	var file bytes.Buffer
	if _, err := f.WriteSnapshot(ctx, &file); err != nil {
		panic(err)
	}
	snap, err := bloom.Decode(file.Bytes(), envelope.Limits{})
	if err != nil {
		panic(err)
	}
	fmt.Println(snap.Equal(local), snap.ContainsString("alpha"))
	// Output: true true
}
