package replay

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/bloomcast/bloomcast/sim"
)

// Request is one request of a trace replayed through a cache cluster: a
// client of proxy Proxy asks for URL, an object of Size bytes.
// The zero value has no URL, so it is not a request a replay can send.
type Request struct {
	Proxy  int     // index of the client's proxy, 0 ≤ Proxy < Trace.Proxies
	Client int     // index of the client, 0 ≤ Client < Trace.Clients
	URL    string  // absolute http or https URL
	Size   int64   // the object's body size in bytes
	Time   float64 // seconds since the trace's first request
}

// Trace is a request trace: a Squid access.log ([ParseAccessLog]) or a
// synthetic workload ([SyntheticTrace]).
// The zero Trace has no requests: ReplayCluster reports ErrTrace for it.
type Trace struct {
	Requests []Request
	Proxies  int // proxies the clients are spread over
	Clients  int // distinct clients
	// Objects is the number of distinct URLs and UniqueBytes the sum of
	// their sizes: the working set a cache would need to hold.
	Objects     int
	UniqueBytes int64
	// Lines of an access.log not replayed: other methods than GET,
	// unsuccessful statuses, and lines that do not parse.
	SkippedMethod, SkippedStatus, Malformed int
}

// ErrTrace reports an unusable trace or generator configuration.
var ErrTrace = errors.New("replay: invalid trace")

// maxLogLine bounds one access.log line.
const maxLogLine = 1 << 20

// MaxLogObjectBytes is the largest object size ParseAccessLog accepts;
// a line claiming more is counted as malformed, since the replay's
// origin would have to send it.
const MaxLogObjectBytes = 1 << 30

// ParseAccessLog reads a Squid access.log in Squid's native format
// (logformat squid: "time elapsed client code/status bytes method URL
// user hierarchy/from type", whitespace-separated; the node's own access
// log writes it too) and returns its GET requests, spread over proxies
// by client: the clients, in order of first appearance, go to proxies
// round robin, so that each client stays with one proxy as in Fan et
// al.'s trace-driven simulations.
//
// It replays GET requests with status 2xx or 304 (other methods, errors
// and aborted requests, status 000, are counted and skipped, as are lines
// that do not parse). The bytes field becomes the object's size; an
// object keeps the size of its first request in the trace, so that the
// origin of a replay serves one size per URL. Blank lines are ignored;
// a line longer than 1 MiB is an error. Sizes above MaxLogObjectBytes
// count as malformed.
func ParseAccessLog(r io.Reader, proxies int) (*Trace, error) {
	if proxies < 1 {
		return nil, fmt.Errorf("%w: %d proxies", ErrTrace, proxies)
	}
	t := &Trace{Proxies: proxies}
	clients := map[string]int{}
	sizes := map[string]int64{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLogLine)
	start := math.NaN()
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) < 7 {
			t.Malformed++
			continue
		}
		if f[5] != "GET" {
			t.SkippedMethod++
			continue
		}
		when, err1 := strconv.ParseFloat(f[0], 64)
		_, status, ok := strings.Cut(f[3], "/")
		code, err2 := strconv.Atoi(status)
		size, err3 := strconv.ParseInt(f[4], 10, 64)
		u, err4 := url.Parse(f[6])
		if err1 != nil || !ok || err2 != nil || err3 != nil || size < 0 || size > MaxLogObjectBytes || err4 != nil ||
			(u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || math.IsInf(when, 0) || math.IsNaN(when) {
			t.Malformed++
			continue
		}
		if (code < 200 || code > 299) && code != 304 {
			t.SkippedStatus++
			continue
		}
		c, seen := clients[f[2]]
		if !seen {
			c = len(clients)
			clients[f[2]] = c
		}
		if first, seen := sizes[f[6]]; seen {
			size = first
		} else {
			sizes[f[6]] = size
			t.UniqueBytes += size
		}
		if math.IsNaN(start) {
			start = when
		}
		t.Requests = append(t.Requests, Request{Proxy: c % proxies, Client: c, URL: f[6], Size: size, Time: when - start})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("replay: reading access.log: %w", err)
	}
	t.Clients, t.Objects = len(clients), len(sizes)
	return t, nil
}

// SyntheticConfig describes a synthetic web workload. Zero fields take
// the defaults shown.
// The zero value is the default workload.
type SyntheticConfig struct {
	Proxies  int // proxies; default 4
	Clients  int // clients, client c using proxy c mod Proxies; default 16 per proxy
	Requests int // requests; default 200000
	// Objects is the size of the catalogue the requests draw from at any
	// time; default Requests/4.
	Objects int
	// Zipf is the exponent α of the popularity law: the object of rank r
	// (from 1) is asked with probability ∝ 1/r^α. Web traces give
	// 0.6–0.85 (Breslau et al., INFOCOM 1999); default 0.8.
	Zipf float64
	// Shift makes popularity local: proxy p ranks the catalogue rotated
	// by p·Shift·Objects places, so neighbouring proxies share most of
	// their popular objects but not their very hottest. 0 means 0.005; a
	// negative value means none (every proxy ranks alike).
	Shift float64
	// Churn is the probability that a request is for a new object, born
	// at a Zipf-drawn rank and replacing the object there, which is never
	// asked again: new content displacing old. 0 means 0.05; a negative
	// value means none.
	Churn float64
	// Object sizes are lognormal with median MedianSize and shape
	// SizeSigma, bounded to [MinSize, MaxSize]: defaults 4 KiB, 1.2, 64 B
	// and 256 KiB (mean about 8 KiB, the heavy tail cut where a replay on
	// loopback would spend its time copying).
	MedianSize       float64
	SizeSigma        float64
	MinSize, MaxSize int64
	Seed             uint64
}

// Bounds of SyntheticConfig.
const (
	MaxSyntheticRequests = 1 << 26
	MaxSyntheticObjects  = 1 << 24
	MaxProxies           = 64
)

func (c *SyntheticConfig) defaults() error {
	if c.Proxies == 0 {
		c.Proxies = 4
	}
	if c.Clients == 0 {
		c.Clients = 16 * c.Proxies
	}
	if c.Requests == 0 {
		c.Requests = 200000
	}
	if c.Objects == 0 {
		c.Objects = max(c.Requests/4, 1)
	}
	if c.Zipf == 0 {
		c.Zipf = 0.8
	}
	if c.Shift == 0 {
		c.Shift = 0.005
	}
	if c.Churn == 0 {
		c.Churn = 0.05
	}
	if c.MedianSize == 0 {
		c.MedianSize = 4096
	}
	if c.SizeSigma == 0 {
		c.SizeSigma = 1.2
	}
	if c.MinSize == 0 {
		c.MinSize = 64
	}
	if c.MaxSize == 0 {
		c.MaxSize = 256 << 10
	}
	switch {
	case c.Proxies < 1 || c.Proxies > MaxProxies:
		return fmt.Errorf("%w: %d proxies (want 1 to %d)", ErrTrace, c.Proxies, MaxProxies)
	case c.Clients < c.Proxies:
		return fmt.Errorf("%w: %d clients for %d proxies", ErrTrace, c.Clients, c.Proxies)
	case c.Requests < 1 || c.Requests > MaxSyntheticRequests:
		return fmt.Errorf("%w: %d requests (want 1 to %d)", ErrTrace, c.Requests, MaxSyntheticRequests)
	case c.Objects < 1 || c.Objects > MaxSyntheticObjects:
		return fmt.Errorf("%w: %d objects (want 1 to %d)", ErrTrace, c.Objects, MaxSyntheticObjects)
	case !(c.Zipf > 0 && c.Zipf <= 3):
		return fmt.Errorf("%w: Zipf exponent %g (want (0, 3])", ErrTrace, c.Zipf)
	case !(c.Shift < 1) || !(c.Churn < 1) || math.IsNaN(c.Shift) || math.IsNaN(c.Churn):
		return fmt.Errorf("%w: shift %g, churn %g (want below 1)", ErrTrace, c.Shift, c.Churn)
	case !(c.MedianSize >= 1 && c.SizeSigma >= 0 && c.SizeSigma <= 10) || c.MinSize < 0 || c.MaxSize < c.MinSize:
		return fmt.Errorf("%w: sizes median %g, sigma %g, bounds [%d, %d]", ErrTrace, c.MedianSize, c.SizeSigma, c.MinSize, c.MaxSize)
	}
	return nil
}

// SyntheticTrace generates a web workload from cfg: requests drawn from a
// Zipf popularity law over a catalogue of objects, ranked differently at
// each proxy (Shift), with new objects displacing old ones (Churn) and
// lognormal sizes. Each request's client is drawn uniformly and uses
// proxy client mod Proxies; requests are a nominal 10 ms apart. The URLs
// are those of [sim.Keys]. The same configuration gives the same trace on
// every platform and Go release.
func SyntheticTrace(cfg SyntheticConfig) (*Trace, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	g := splitMix{state: cfg.Seed ^ 0x7ace_5eed}
	cdf := zipfCDF(cfg.Objects, cfg.Zipf)
	shift := 0
	if cfg.Shift > 0 {
		shift = int(cfg.Shift * float64(cfg.Objects))
	}
	slots := make([]int, cfg.Objects) // object id at each rank (before the shift)
	for i := range slots {
		slots[i] = i
	}
	next := cfg.Objects
	ids := make([]int, cfg.Requests)
	t := &Trace{Proxies: cfg.Proxies, Requests: make([]Request, cfg.Requests)}
	for i := range t.Requests {
		client := int(uniformBelow(&g, uint64(cfg.Clients)))
		proxy := client % cfg.Proxies
		rank := sort.SearchFloat64s(cdf, unitFloat(&g))
		slot := (min(rank, cfg.Objects-1) + proxy*shift) % cfg.Objects
		if cfg.Churn > 0 && unitFloat(&g) < cfg.Churn {
			slots[slot] = next
			next++
		}
		ids[i] = slots[slot]
		t.Requests[i] = Request{Proxy: proxy, Client: client, Time: float64(i) / 100}
	}
	urls := sim.Keys(cfg.Seed, next)
	sizes := make([]int64, next)
	seen := make([]bool, next)
	for id := range sizes {
		sizes[id] = objectSize(cfg, uint64(id))
	}
	clients := make([]bool, cfg.Clients)
	for i, id := range ids {
		t.Requests[i].URL, t.Requests[i].Size = urls[id], sizes[id]
		if !seen[id] {
			seen[id] = true
			t.Objects++
			t.UniqueBytes += sizes[id]
		}
		if c := t.Requests[i].Client; !clients[c] {
			clients[c] = true
			t.Clients++
		}
	}
	return t, nil
}

// zipfCDF returns the cumulative probabilities of ranks 1..n under
// Zipf's law with exponent alpha; the last is exactly 1.
func zipfCDF(n int, alpha float64) []float64 {
	cdf := make([]float64, n)
	sum := 0.0
	for r := range cdf {
		sum += math.Pow(float64(r+1), -alpha)
		cdf[r] = sum
	}
	for r := range cdf {
		cdf[r] /= sum
	}
	cdf[n-1] = 1
	return cdf
}

// objectSize draws object id's size from its own generator, so that an
// object's size does not depend on the order of the draws.
func objectSize(cfg SyntheticConfig, id uint64) int64 {
	g := splitMix{state: cfg.Seed ^ (id+1)*0xD1B54A32D192ED03}
	// Box–Muller: one standard normal from two uniforms.
	u1, u2 := 1-unitFloat(&g), unitFloat(&g) // u1 in (0, 1]
	z := math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2)
	s := int64(math.Round(cfg.MedianSize * math.Exp(cfg.SizeSigma*z)))
	return min(max(s, cfg.MinSize), cfg.MaxSize)
}

// unitFloat returns a uniform float64 in [0, 1).
func unitFloat(g *splitMix) float64 { return float64(g.next()>>11) / (1 << 53) }

// uniformBelow returns a uniform integer in [0, n), n ≥ 1 (Lemire's
// multiply-shift with rejection).
func uniformBelow(g *splitMix, n uint64) uint64 {
	for {
		hi, lo := bits.Mul64(g.next(), n)
		if lo >= n || lo >= -n%n {
			return hi
		}
	}
}

// splitMix is the SplitMix64 generator (Steele, Lea and Flood, "Fast
// splittable pseudorandom number generators", OOPSLA 2014), as package sim
// draws its keys with: a fixed, documented sequence, unlike math/rand,
// whose streams may change between Go releases.
type splitMix struct{ state uint64 }

func (g *splitMix) next() uint64 {
	g.state += 0x9E3779B97F4A7C15
	z := g.state
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	return z ^ z>>31
}
