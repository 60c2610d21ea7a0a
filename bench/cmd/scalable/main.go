// Command scalable measures bloomcast's scalable Bloom filter (package
// scalable) against tylertreat/BoomFilters' ScalableBloomFilter on the same
// keys in one run, the two interleaved at every step (adds, then queries
// of present and of absent keys), for each n asked: nanoseconds per add
// and per query on the CPU-time clock of the measuring thread (and the
// wall clock), bytes per key (the Go heap the filter holds after a
// collection), layers, and the measured false-positive rate. It prints
// the Markdown table of docs/BENCHMARKS.md, "Scalable filters":
//
//	go run ./cmd/scalable -n 100000,10000000 -start 10000 -p 0.01 -queries 1000000
//
// Both start at -start keys and target a compound rate of -p: bloomcast
// with its defaults (each layer twice the keys of the one before, rates
// tightening by r = 0.5), BoomFilters with its own default tightening
// r = 0.8 and every layer of -start keys (it does not grow its layers),
// given fpRate = p·(1 − r) so that its series too sums to p (its first
// layer is built for fpRate, not p·(1 − r)).
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/bloomcast/bloomcast/bench/compare"
	"github.com/bloomcast/bloomcast/scalable"
	boom "github.com/tylertreat/BoomFilters"
)

// boomR is BoomFilters' default tightening ratio
// (NewDefaultScalableBloomFilter).
const boomR = 0.8

type contender struct {
	name   string
	build  func() any
	add    func(f any, key []byte)
	has    func(f any, key []byte) bool
	layers func(f any) int
}

func contenders(start uint64, p float64) []contender {
	return []contender{
		{
			name: "bloomcast scalable (s = 2, r = 0.5, blocked)",
			build: func() any {
				return scalable.MustNew(scalable.Config{Capacity: start, P: p})
			},
			add: func(f any, key []byte) {
				if err := f.(*scalable.Filter).Add(key); err != nil {
					panic(err)
				}
			},
			has:    func(f any, key []byte) bool { return f.(*scalable.Filter).Contains(key) },
			layers: func(f any) int { return f.(*scalable.Filter).Layers() },
		},
		{
			name:   "BoomFilters ScalableBloomFilter (s = 1, r = 0.8, partitioned)",
			build:  func() any { return boom.NewScalableBloomFilter(uint(start), p*(1-boomR), boomR) },
			add:    func(f any, key []byte) { f.(*boom.ScalableBloomFilter).Add(key) },
			has:    func(f any, key []byte) bool { return f.(*boom.ScalableBloomFilter).Test(key) },
			layers: func(f any) int { return boomLayers(f.(*boom.ScalableBloomFilter)) },
		},
	}
}

// boomLayers counts a BoomFilters filter's layers from its serialised
// form's header: WriteTo writes r, fp, p, hint and the number of filters
// as its first five 8-byte fields.
func boomLayers(f *boom.ScalableBloomFilter) int {
	var w headWriter
	_, _ = f.WriteTo(&w) // headWriter never fails; the header is all it keeps
	return int(binary.BigEndian.Uint64(w.b[32:40]))
}

type headWriter struct{ b []byte }

func (w *headWriter) Write(p []byte) (int, error) {
	if len(w.b) < 40 {
		w.b = append(w.b, p[:min(len(p), 40-len(w.b))]...)
	}
	return len(p), nil
}

// key writes key i of a set (tag 0: added; 1: never added) into buf.
func key(buf *[16]byte, tag byte, i uint64) []byte {
	binary.LittleEndian.PutUint64(buf[:], i*0x9E3779B97F4A7C15)
	binary.LittleEndian.PutUint64(buf[8:], uint64(tag)<<56|i)
	return buf[:]
}

type row struct {
	name           string
	n              uint64
	add, hit, miss compare.Sample
	bytesPerKey    float64
	layers         int
	fp             float64 // measured on the absent keys
	falseNegatives int
}

// heap returns the bytes the Go heap holds after a collection.
func heap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// chunk is how many keys a contender takes before the other has its turn.
const chunk = 1 << 15

// pass runs op on keys [from, to) of a set for every contender in turn,
// chunk by chunk, and adds each one's time (in ns, both clocks) to sums.
func pass(cs []contender, filters []any, from, to uint64, sums [][2]float64, op func(c contender, f any, i uint64)) {
	for lo := from; lo < to; lo += chunk {
		hi := min(to, lo+chunk)
		for i, c := range cs {
			w := compare.StartWatch()
			f := filters[i]
			for j := lo; j < hi; j++ {
				op(c, f, j)
			}
			s := w.Stop(int(hi - lo))
			sums[i][0] += s.CPU * float64(hi-lo)
			sums[i][1] += s.Wall * float64(hi-lo)
		}
	}
}

func perKey(sum [2]float64, n uint64) compare.Sample {
	return compare.Sample{CPU: sum[0] / float64(n), Wall: sum[1] / float64(n)}
}

func measure(n, start uint64, p float64, queries uint64) []row {
	cs := contenders(start, p)
	rows := make([]row, len(cs))
	filters := make([]any, len(cs))
	h0 := heap()
	for i, c := range cs {
		rows[i] = row{name: c.name, n: n}
		filters[i] = c.build()
	}
	var buf [16]byte
	sums := make([][2]float64, len(cs))
	pass(cs, filters, 0, n, sums, func(c contender, f any, j uint64) { c.add(f, key(&buf, 0, j)) })
	for i := range cs {
		rows[i].add = perKey(sums[i], n)
		rows[i].layers = cs[i].layers(filters[i])
	}
	// Present keys: q of the n, evenly spread; absent: q never added.
	q := min(queries, n)
	stride := n / q
	hits := make([]int, len(cs))
	sums = make([][2]float64, len(cs))
	pass(cs, filters, 0, q, sums, func(c contender, f any, j uint64) {
		if !c.has(f, key(&buf, 0, j*stride)) {
			hits[indexOf(cs, c)]++
		}
	})
	for i := range cs {
		rows[i].hit, rows[i].falseNegatives = perKey(sums[i], q), hits[i]
		hits[i] = 0
	}
	sums = make([][2]float64, len(cs))
	pass(cs, filters, 0, queries, sums, func(c contender, f any, j uint64) {
		if c.has(f, key(&buf, 1, j)) {
			hits[indexOf(cs, c)]++
		}
	})
	for i := range cs {
		rows[i].miss, rows[i].fp = perKey(sums[i], queries), float64(hits[i])/float64(queries)
	}
	// Memory: both held, then the first dropped.
	both := heap()
	filters[0] = nil
	second := heap()
	runtime.KeepAlive(filters)
	rows[0].bytesPerKey = float64(both-min(both, second)) / float64(n)
	rows[1].bytesPerKey = float64(second-min(second, h0)) / float64(n)
	return rows
}

// indexOf finds c among cs by name (the closures of pass know only c).
func indexOf(cs []contender, c contender) int {
	for i := range cs {
		if cs[i].name == c.name {
			return i
		}
	}
	return -1
}

func main() {
	nFlag := flag.String("n", "100000,10000000", "comma-separated key counts")
	start := flag.Uint64("start", 10000, "keys in the first layer")
	p := flag.Float64("p", 0.01, "target compound false-positive rate")
	queries := flag.Uint64("queries", 1000000, "absent keys queried, and present keys (at most n)")
	flag.Parse()
	var ns []uint64
	for _, s := range strings.Split(*nFlag, ",") {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil || n == 0 {
			fmt.Fprintln(os.Stderr, "scalable: -n:", s)
			os.Exit(2)
		}
		ns = append(ns, n)
	}
	env := compare.StartRunEnv()
	var rows []row
	for _, n := range ns {
		t := time.Now()
		rows = append(rows, measure(n, *start, *p, *queries)...)
		fmt.Fprintf(os.Stderr, "n = %d: %v\n", n, time.Since(t).Round(time.Second))
	}
	env.LoadEnd = compare.LoadAvg()
	fmt.Printf("%s, %s, %d CPUs, GOMAXPROCS %d, load %s → %s; CPU-time clock (wall in parentheses)\n\n",
		env.CPU, env.GoVersion, env.NumCPU, env.GOMAXPROCS, env.LoadStart, env.LoadEnd)
	fmt.Println("| n | filter | layers | ns/add | ns/query present | ns/query absent | bytes/key | measured rate |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	for _, r := range rows {
		fn := ""
		if r.falseNegatives > 0 {
			fn = fmt.Sprintf(" (%d false negatives!)", r.falseNegatives)
		}
		fmt.Printf("| %d | %s | %d | %.0f (%.0f) | %.0f (%.0f) | %.0f (%.0f) | %.2f | %.4f%%%s |\n",
			r.n, r.name, r.layers, r.add.CPU, r.add.Wall, r.hit.CPU, r.hit.Wall, r.miss.CPU, r.miss.Wall, r.bytesPerKey, 100*r.fp, fn)
	}
}
