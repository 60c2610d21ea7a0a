package hits

import (
	"fmt"
	"io"
	"strings"

	"github.com/bloomcast/bloomcast/bench/compare"
)

// WriteMarkdown prints the environment, every round and the medians with
// their ratios to Squid's.
func WriteMarkdown(w io.Writer, rep *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s; %s; %s.\n\n", rep.Env.Measured(false), rep.SquidVersion, rep.WrkVersion)
	if rep.Peer {
		fmt.Fprintf(&b, "Peer hits: one origin with %d objects of %d bytes; each proxy a pair, a front storing nothing and its peer "+
			"holding every object, the front routing each request by the peer's digest (the node pair: `--peer`; the Squid pair: a "+
			"sibling `cache_peer` whose Cache Digest the front fetched). `wrk -t%d -c%d -d%.0fs --latency` sending absolute-URI "+
			"requests to one front at a time, rounds interleaved. CPU is both processes' per request. Check: the peer counted "+
			"every request as a hit, the front counted them, and the origin saw none.\n\n",
			rep.Objects, rep.ObjectBytes, rep.Threads, rep.Connections, rep.DurationS)
	} else {
		fmt.Fprintf(&b, "One origin with %d objects of %d bytes, all cached hits in each proxy; `wrk -t%d -c%d -d%.0fs --latency` "+
			"sending absolute-URI requests through one proxy at a time, rounds interleaved. CPU is the proxy process's own per request. "+
			"Check: the proxy counted every request as a hit (node /metrics, Squid's cache manager counters) and the origin saw none.\n\n",
			rep.Objects, rep.ObjectBytes, rep.Threads, rep.Connections, rep.DurationS)
	}
	if rep.ProxyCPUs != "" {
		fmt.Fprintf(&b, "Pinned: every proxy process on CPU %s, wrk on CPUs %s (taskset).\n\n", rep.ProxyCPUs, rep.WrkCPUs)
	}
	b.WriteString("| round | proxy | hits/s | p50 ms | p90 ms | p99 ms | CPU µs/hit | check |\n")
	b.WriteString("|--:|---|--:|--:|--:|--:|--:|---|\n")
	for _, r := range rep.Rounds {
		check := fmt.Sprintf("ok: %d hits counted", r.ProxyHits)
		if err := r.Check(rep.Connections); err != nil {
			check = "**FAILED**: " + err.Error()
		}
		fmt.Fprintf(&b, "| %d | %s | %.0f | %.2f | %.2f | %.2f | %.1f | %s |\n",
			r.Round, r.Name(), r.RPS, r.P50Us/1e3, r.P90Us/1e3, r.P99Us/1e3, r.CPUUsPerRequest, check)
	}
	floor, fifo := false, false
	for _, r := range rep.Rounds {
		floor = floor || r.Proxy == ProxyFloor
		fifo = fifo || r.Wake == WakeFIFO
	}
	switch {
	case floor && rep.Peer:
		b.WriteString("\nThe floor is a pair of Go net/http servers at GOMAXPROCS=1, the front forwarding every request " +
			"through net/http's client to the other, which answers from memory with a hit's header fields; no cache in " +
			"either (`cmd/hitfloor`). CPU above it is in brackets.\n")
	case floor:
		b.WriteString("\nThe floor is Go's net/http server at GOMAXPROCS=1 answering every request from memory with a hit's " +
			"header fields and no cache behind it (`cmd/hitfloor`); CPU above it is in brackets.\n")
	}
	if fifo {
		b.WriteString("\n(" + WakeFIFO + ") marks a server built with a Go runtime whose network poller runs the goroutines " +
			"it finds ready in the order epoll reported them (`hits.FIFOOverlay`); the runtime as it is runs them newest " +
			"first. Its CPU above the floor is above the floor built the same way.\n")
	}
	b.WriteString("\n| proxy (median of rounds) | hits/s | p50 ms | p90 ms | p99 ms | CPU µs/hit | hits/s vs Squid | p99 vs Squid | CPU/hit vs Squid |\n")
	b.WriteString("|---|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, s := range rep.Summaries {
		cpu := fmt.Sprintf("%.1f", s.CPUUs)
		if floor && !strings.HasPrefix(s.Name, "floor: ") {
			cpu += fmt.Sprintf(" (%.1f)", s.CPUUsAboveFloor)
		}
		fmt.Fprintf(&b, "| %s | %.0f | %.2f | %.2f | %.2f | %s | %.2f | %.2f | %.2f |\n",
			s.Name, s.RPS, s.P50Us/1e3, s.P90Us/1e3, s.P99Us/1e3, cpu, s.RPSRatio, s.P99Ratio, s.CPUUsRatio)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON writes a report as indented JSON.
func WriteJSON(w io.Writer, rep *Report) error {
	return compare.EncodeJSON(w, rep)
}

// WriteFillMarkdown prints a fill run: for each set and proxy, the
// objects held, the bytes accounted and the resident memory, in all and
// per object held.
func WriteFillMarkdown(w io.Writer, rep *FillReport) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s; %s.\n\n", rep.Env.Measured(false), rep.SquidVersion)
	fmt.Fprintf(&b, "Each set requested once, %d requests at a time, through a fresh `bloomcast serve --memory %dMiB` "+
		"and a fresh Squid with `cache_mem %d MB` and no disk cache, from a loopback origin. "+
		"Accounted: the node's bloomcast_cache_bytes; Squid's Storage Mem size (its memory cache's pages), "+
		"with its Total accounted in brackets. RSS per object: growth of VmRSS over the fill per object held.\n\n",
		rep.Workers, rep.MemoryMiB, rep.MemoryMiB)
	b.WriteString("| objects asked × size | proxy | held | accounted MB | accounted B/object | RSS MiB (peak) | RSS B/object | RSS / accounted |\n")
	b.WriteString("|---|---|--:|--:|--:|--:|--:|--:|\n")
	for _, f := range rep.Fills {
		acc := fmt.Sprintf("%.1f", float64(f.Accounted)/1e6)
		if f.SquidTotalAccounted > 0 {
			acc += fmt.Sprintf(" (%.1f)", float64(f.SquidTotalAccounted)/1e6)
		}
		fmt.Fprintf(&b, "| %d × %d B | %s | %d | %s | %.0f | %.0f (%.0f) | %.0f | %.2f |\n",
			f.Set.Objects, f.Set.Bytes, f.Proxy, f.Held, acc, f.AccountedPerObject(),
			float64(f.RSS)/(1<<20), float64(f.Peak)/(1<<20), f.RSSPerObject(), float64(f.RSS)/float64(max(f.Accounted, 1)))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteFillJSON writes a fill report as indented JSON.
func WriteFillJSON(w io.Writer, rep *FillReport) error {
	return compare.EncodeJSON(w, rep)
}
