package redisfilter

import (
	"context"
	"strconv"
	"testing"

	"github.com/bloomcast/bloomcast/cluster/internal/redistest"
	"github.com/redis/go-redis/v9"
)

// BenchmarkAddBatch adds keys by AddBatch to a filter of 10^6 keys at
// p = 1% in one Redis on loopback (default shards and pipeline): ns/op
// is per key, a round trip of DefaultPipeline keys shared among them.
func BenchmarkAddBatch(b *testing.B) {
	s := redistest.Single(b)
	ctx := context.Background()
	client := redis.NewClient(&redis.Options{Addr: s.Addr})
	defer func() { _ = client.Close() }()
	f, err := New(ctx, Config{Client: client, Name: "bench", N: 1_000_000, P: 0.01})
	if err != nil {
		b.Fatal(err)
	}
	keys := make([][]byte, DefaultPipeline*16)
	for i := range keys {
		keys[i] = []byte("https://example.com/object/" + strconv.Itoa(i))
	}
	b.ResetTimer()
	for done := 0; done < b.N; done += len(keys) {
		batch := keys[:min(len(keys), b.N-done)]
		if err := f.AddBatch(ctx, batch); err != nil {
			b.Fatal(err)
		}
	}
}
