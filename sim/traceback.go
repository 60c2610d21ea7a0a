package sim

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/params"
)

// Defaults and limits of TracebackConfig.
const (
	DefaultAttacks = 1000
	// DefaultTraffic is the number of packets per second the hosts of the
	// whole network send; a window lasts one second.
	DefaultTraffic = 20_000
	DefaultWindows = 8
	DefaultRing    = 4
	// MaxTracebackRouters bounds a traceback topology: routing keeps a
	// next-hop table of n² entries.
	MaxTracebackRouters = 4096
	// MaxAttacks and MaxTraffic bound the attacks kept in memory and the
	// packets per window, which the busiest router's digests grow with.
	MaxAttacks = 1 << 24
	MaxTraffic = 1 << 24
)

// DefaultTracebackRates returns the digests' target false-positive rates
// that a TracebackConfig without Rates sweeps.
func DefaultTracebackRates() []float64 { return []float64{0.001, 0.003, 0.01, 0.03, 0.1} }

// DefaultTopologyKinds lists the kinds a TracebackConfig without
// Topologies generates.
func DefaultTopologyKinds() []string {
	return []string{TopologyTree, TopologyRandom, TopologyPowerLaw}
}

// TracebackConfig describes a Traceback run. The zero value is the default
// run.
type TracebackConfig struct {
	// Topologies are the router graphs to simulate, in order; each must be
	// connected, with at most MaxTracebackRouters routers. nil means one
	// graph of each kind of DefaultTopologyKinds, of Routers routers,
	// generated from Seed.
	Topologies []*Topology
	// Routers is the size of the generated graphs; 0 means DefaultRouters.
	Routers int
	// Rates are the target false-positive rates the digests are sized for,
	// each in (0, 1); nil means DefaultTracebackRates. All rates see the
	// same traffic and attacks.
	Rates []float64
	// Attacks is the number of attack packets traced per topology and rate;
	// 0 means DefaultAttacks.
	Attacks int
	// Traffic is the number of background packets per one-second window,
	// between uniformly chosen pairs of routers' hosts; 0 means
	// DefaultTraffic.
	Traffic int
	// Windows is the number of one-second windows simulated; the attacks
	// are spread evenly over them. 0 means DefaultWindows.
	Windows int
	// Ring is the number of windows each router keeps: a query may come up
	// to Ring−1 windows after its packet passed. 0 means DefaultRing.
	Ring int
	// Headroom scales the packets per window each router's digest is sized
	// for, relative to the router's expected load; 0 means 1. A router
	// provisioned for its link's capacity has Headroom > 1 and fewer false
	// positives than its target.
	Headroom float64
	// Seed drives the generated topologies, the traffic, the attacks and
	// the digests' hash keys.
	Seed uint64
}

// TracebackResult is what Traceback measured for one topology and one
// target false-positive rate.
//
// The zero value is no result; Traceback fills one per run.
type TracebackResult struct {
	// Topology names the graph; Routers, Links and MaxDegree describe it.
	Topology  string
	Routers   int
	Links     int
	MaxDegree int
	// P is the false-positive rate every digest was sized for.
	P float64
	// Attacks is the number of attack packets traced.
	Attacks int
	// PathRouters is the mean number of routers an attack packet passed,
	// the attacker's and the victim's edge routers included.
	PathRouters float64
	// Queries is the mean number of routers asked per attack.
	Queries float64
	// NegativeQueries counts the routers asked that had not forwarded the
	// packet, over all attacks: each could answer "yes" falsely.
	NegativeQueries int
	// FalseBranches counts the routers off the attack path that entered a
	// reconstructed attack graph, over all attacks.
	FalseBranches int
	// ExpectedFalseBranches sums, over the negative queries, the queried
	// digest's false-positive rate computed from its bits
	// (bloom.Filter.FalsePositiveRate): the expected FalseBranches.
	ExpectedFalseBranches float64
	// ModelFalseBranches is the same sum with the rate params predicts from
	// each digest's shape and packet count.
	ModelFalseBranches float64
	// Variance is the variance of FalseBranches under the model, the sum of
	// f·(1−f) over the negative queries.
	Variance float64
	// Successes counts the attacks whose reconstructed graph was exactly
	// the attack path, so the source was identified with no false lead.
	Successes int
	// ExpectedSuccesses sums, over the attacks, the probability that no
	// neighbour of the path answers falsely: the product of (1 − f) over
	// them.
	ExpectedSuccesses float64
	// SuccessVariance is the variance of Successes under the model.
	SuccessVariance float64
	// BytesPerRouterSecond is the mean size of one router's digest for one
	// one-second window; MaxBytesPerRouterSecond is the busiest router's.
	BytesPerRouterSecond    float64
	MaxBytesPerRouterSecond int
	// BitsPerPacket is the digest bits per packet a router is sized for.
	BitsPerPacket float64
	// Ring is the number of windows kept; a router's digest memory is Ring
	// times its bytes per second.
	Ring int
}

// FalseBranchesPerAttack returns the measured false branches per attack.
func (r TracebackResult) FalseBranchesPerAttack() float64 {
	return float64(r.FalseBranches) / float64(r.Attacks)
}

// ExpectedPerAttack returns the expected false branches per attack.
func (r TracebackResult) ExpectedPerAttack() float64 {
	return r.ExpectedFalseBranches / float64(r.Attacks)
}

// StdError returns the standard deviation of FalseBranches under the
// model.
func (r TracebackResult) StdError() float64 { return math.Sqrt(r.Variance) }

// SuccessRate returns the fraction of attacks traced to their source alone.
func (r TracebackResult) SuccessRate() float64 { return float64(r.Successes) / float64(r.Attacks) }

// ExpectedSuccessRate returns the model's success rate.
func (r TracebackResult) ExpectedSuccessRate() float64 {
	return r.ExpectedSuccesses / float64(r.Attacks)
}

// Traceback simulates hash-based IP traceback (Snoeren, Partridge,
// Sanchez, Jones, Tchakountio, Kent and Strayer, "Hash-based IP
// traceback", SIGCOMM 2001, the Source Path Isolation Engine) on each
// topology, for each target rate.
//
// Hosts behind every router send background packets to hosts behind
// other routers over shortest paths; each router records the invariant
// bytes of every packet it forwards in a Bloom filter (a digest) for the
// current one-second window, sized with bloom.New for the router's
// expected packets per window at the target rate and keyed afresh per
// router and window, so that the false positives of different routers are
// independent, as SPIE's choice of hash functions makes them. Each router keeps the last Ring
// windows, so its memory is bounded; a topology whose digests would take
// more than 1 GiB in all (every rate, every window of the ring) is an
// error. Attackers send single packets with
// forged source addresses; Ring−1 windows later (the oldest query the
// ring can still answer) the victim traces each packet back: starting at
// its own edge router it asks every neighbour of every router in the
// graph so far whether its digest for that window holds the packet,
// breadth first, each router once (see also Broder and Mitzenmacher,
// "Network applications of Bloom filters: a survey", Internet Mathematics,
// 2004).
//
// Bloom filters have no false negatives, so the graph always holds the
// whole attack path; a router off the path that answers "yes" is a false
// branch. Each such answer is a Bernoulli trial with the queried digest's
// false-positive rate, so their sum is the expected number of false
// branches whatever the walk did; Traceback reports it beside the count.
func Traceback(cfg TracebackConfig) ([]TracebackResult, error) {
	c, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	var out []TracebackResult
	for i, t := range c.Topologies {
		rs, err := newSPIE(c, t, uint64(i)).run()
		if err != nil {
			return nil, err
		}
		out = append(out, rs...)
	}
	return out, nil
}

// resolve returns cfg with its defaults filled in, or the error in it.
func (cfg TracebackConfig) resolve() (TracebackConfig, error) {
	c := cfg
	c.Attacks = cmp.Or(c.Attacks, DefaultAttacks)
	c.Traffic = cmp.Or(c.Traffic, DefaultTraffic)
	c.Windows = cmp.Or(c.Windows, DefaultWindows)
	c.Ring = cmp.Or(c.Ring, DefaultRing)
	c.Headroom = cmp.Or(c.Headroom, 1)
	if c.Rates == nil {
		c.Rates = DefaultTracebackRates()
	}
	switch {
	case c.Attacks < 0 || c.Attacks > MaxAttacks:
		return c, fmt.Errorf("sim: %d attacks, want 1 to %d", c.Attacks, MaxAttacks)
	case c.Traffic < 0 || c.Traffic > MaxTraffic:
		return c, fmt.Errorf("sim: %d packets per window, want 1 to %d", c.Traffic, MaxTraffic)
	case c.Windows < 0 || c.Ring < 0:
		return c, fmt.Errorf("sim: %d windows, a ring of %d, want positive numbers", c.Windows, c.Ring)
	case !(c.Headroom > 0) || math.IsInf(c.Headroom, 0):
		return c, fmt.Errorf("sim: headroom %g, want a positive number", c.Headroom)
	case len(c.Rates) == 0:
		return c, fmt.Errorf("sim: no false-positive rates")
	}
	for _, p := range c.Rates {
		if !(p > 0 && p < 1) {
			return c, fmt.Errorf("sim: false-positive rate %g outside (0, 1)", p)
		}
	}
	if c.Topologies == nil {
		for _, kind := range DefaultTopologyKinds() {
			t, err := NewTopology(TopologyConfig{Kind: kind, Routers: c.Routers, Seed: c.Seed})
			if err != nil {
				return c, err
			}
			c.Topologies = append(c.Topologies, t)
		}
	}
	for _, t := range c.Topologies {
		if err := checkTracebackTopology(t); err != nil {
			return c, err
		}
	}
	return c, nil
}

func checkTracebackTopology(t *Topology) error {
	switch {
	case t == nil:
		return fmt.Errorf("sim: nil topology")
	case t.Routers() > MaxTracebackRouters:
		return fmt.Errorf("sim: topology %s has %d routers, traceback takes at most %d", t.Name, t.Routers(), MaxTracebackRouters)
	case t.Routers() < 2:
		return fmt.Errorf("sim: topology %s has fewer than two routers", t.Name)
	case !t.Connected():
		return fmt.Errorf("sim: topology %s is not connected", t.Name)
	}
	return nil
}

// packetBytes is the length of the part of a packet SPIE digests: the
// 20-byte IPv4 header, with the fields routers rewrite (TOS, TTL and
// checksum) zeroed, and the first 8 bytes of payload.
const packetBytes = 28

type packet [packetBytes]byte

// fillPacket writes a random packet from a host behind router src to a
// host behind router dst into p. A forged source address is random.
func fillPacket(rng *rand.Rand, p *packet, src, dst int, forged bool) {
	p[0] = 0x45                                                  // IPv4, 20-byte header
	p[1] = 0                                                     // TOS: rewritten in flight
	binary.BigEndian.PutUint16(p[2:], uint16(40+rng.IntN(1461))) // total length
	binary.BigEndian.PutUint32(p[4:], rng.Uint32()&0xFFFF_BFFF)  // ID, flags, fragment offset
	p[8], p[9], p[10], p[11] = 0, 6+11*byte(rng.IntN(2)), 0, 0   // TTL, protocol (TCP or UDP), checksum
	binary.BigEndian.PutUint32(p[12:], hostAddress(rng, src))
	if forged {
		binary.BigEndian.PutUint32(p[12:], rng.Uint32())
	}
	binary.BigEndian.PutUint32(p[16:], hostAddress(rng, dst))
	binary.LittleEndian.PutUint64(p[20:], rng.Uint64()) // ports, sequence number
}

// hostAddress returns the address of a random host in router r's
// 10.r.r.0/24.
func hostAddress(rng *rand.Rand, r int) uint32 {
	return 10<<24 | uint32(r)<<8 | uint32(1+rng.IntN(254))
}

// digest is one router's record of one window: a filter per target rate,
// all keyed with the same seed so that one hash serves them all.
type digest struct {
	window  int
	seed    uint64
	filters []*bloom.Filter
	fill    []float64 // each filter's rate from its bits, once closed
	model   []float64 // each filter's rate predicted from its count
}

// attack is one packet to trace.
type attack struct {
	pkt      packet
	src, dst int
	window   int
}

// spie is the traceback simulation on one topology.
type spie struct {
	c        TracebackConfig
	topo     *Topology
	rt       *routes
	index    uint64           // the topology's position, which picks its streams
	capacity []uint64         // packets per window each router's digests are sized for
	shapes   [][]params.Shape // per router, the digest shape for each rate
	ring     [][]digest
	results  []TracebackResult
	// Per router, the walk generation (gen) that last queried it, whose
	// path holds it, and that counted it as a neighbour of the path:
	// stamps instead of sets, so a walk clears nothing.
	mark, onPath, counted []uint32
	gen                   uint32
	buf                   []int32
}

func newSPIE(c TracebackConfig, t *Topology, index uint64) *spie {
	n := t.Routers()
	s := &spie{c: c, topo: t, rt: newRoutes(t), index: index,
		capacity: make([]uint64, n), ring: make([][]digest, n),
		mark: make([]uint32, n), onPath: make([]uint32, n), counted: make([]uint32, n)}
	perWindow := float64(c.Traffic) + math.Ceil(float64(c.Attacks)/float64(c.Windows))
	pairs := float64(n) * float64(n-1)
	for r := range n {
		load := perWindow * float64(s.rt.transit[r]) / pairs
		s.capacity[r] = max(1, uint64(math.Ceil(c.Headroom*load)))
		s.ring[r] = make([]digest, c.Ring)
		for i := range s.ring[r] {
			s.ring[r][i].window = -1
		}
	}
	s.results = make([]TracebackResult, len(c.Rates))
	for i, p := range c.Rates {
		s.results[i] = TracebackResult{Topology: t.Name, Routers: n, Links: t.Links(),
			MaxDegree: t.MaxDegree(), P: p, Attacks: c.Attacks, Ring: c.Ring}
	}
	return s
}

// run simulates every window and traces every attack.
func (s *spie) run() ([]TracebackResult, error) {
	if err := s.size(); err != nil {
		return nil, err
	}
	attacks := s.attacks()
	traffic := newRand(s.c.Seed, streamTraffic, s.index)
	sent, next := 0, 0 // the first attack not yet sent, not yet traced
	for w := range s.c.Windows {
		var err error
		if sent, err = s.window(w, traffic, attacks, sent); err != nil {
			return nil, err
		}
		// The oldest window in the ring is about to be replaced: its
		// attacks are the last that can still be traced.
		if next, err = s.traceUpTo(attacks, next, w-(s.c.Ring-1)); err != nil {
			return nil, err
		}
	}
	if _, err := s.traceUpTo(attacks, next, s.c.Windows-1); err != nil {
		return nil, err
	}
	s.finish()
	return s.results, nil
}

// window simulates window w: the background traffic and the attacks from
// attacks[sent:] that fall in it. It returns the index of the first attack
// of a later window.
func (s *spie) window(w int, traffic *rand.Rand, attacks []attack, sent int) (int, error) {
	if err := s.open(w); err != nil {
		return sent, err
	}
	var p packet
	for range s.c.Traffic {
		src, dst := randomPair(traffic, s.topo.Routers())
		fillPacket(traffic, &p, src, dst, false)
		s.forward(&p, src, dst, w)
	}
	for ; sent < len(attacks) && attacks[sent].window == w; sent++ {
		s.forward(&attacks[sent].pkt, attacks[sent].src, attacks[sent].dst, w)
	}
	s.close(w)
	return sent, nil
}

// maxTracebackDigestBytes bounds the digests a topology's routers hold
// at once (every rate, every window of the ring): a tiny target rate,
// which bloom.New meets with at most 64 probes, costs bits per packet
// that grow as the rate's 64th root shrinks, so that without a bound a
// rate on the command line (1e-300) could take all memory.
const maxTracebackDigestBytes = 1 << 30

// size picks each router's digest shape for each rate: what bloom.New
// chooses for a filter of the router's packets per window at the target
// rate. Every window reuses it under a new key, and routers with equal
// loads share one sizing, which is a search (params.Size). It refuses
// digests of more than maxTracebackDigestBytes in all.
func (s *spie) size() error {
	if err := s.sizeShapes(); err != nil {
		return err
	}
	var bits float64
	for _, shapes := range s.shapes {
		for _, shape := range shapes {
			bits += float64(shape.M)
		}
	}
	if total := bits / 8 * float64(s.c.Ring); total > maxTracebackDigestBytes {
		return fmt.Errorf("sim: topology %s: the digests would take %.1f GiB (a ring of %d windows at every rate), more than %d GiB: ask for higher rates, fewer rates or less traffic",
			s.topo.Name, total/(1<<30), s.c.Ring, maxTracebackDigestBytes>>30)
	}
	return nil
}

// sizeShapes sets s.shapes, as size says.
func (s *spie) sizeShapes() error {
	type load struct {
		n    uint64
		rate int
	}
	sized := map[load]params.Shape{}
	s.shapes = make([][]params.Shape, len(s.ring))
	for r := range s.ring {
		for ri, p := range s.c.Rates {
			l := load{s.capacity[r], ri}
			shape, ok := sized[l]
			if !ok {
				f, err := bloom.New(bloom.Config{N: l.n, P: p})
				if err != nil {
					return fmt.Errorf("sim: router %d: %w", r, err)
				}
				shape = f.Shape()
				sized[l] = shape
			}
			s.shapes[r] = append(s.shapes[r], shape)
		}
	}
	return nil
}

// attacks draws the attack packets, in window order.
func (s *spie) attacks() []attack {
	rng := newRand(s.c.Seed, streamAttacks, s.index)
	as := make([]attack, s.c.Attacks)
	for i := range as {
		a := &as[i]
		a.window = i * s.c.Windows / len(as)
		a.src, a.dst = randomPair(rng, s.topo.Routers())
		fillPacket(rng, &a.pkt, a.src, a.dst, true)
	}
	return as
}

// randomPair returns two distinct routers, uniformly.
func randomPair(rng *rand.Rand, n int) (int, int) {
	a, b := rng.IntN(n), rng.IntN(n-1)
	if b >= a {
		b++
	}
	return a, b
}

// open starts window w at every router, replacing the digests of window
// w − Ring with fresh ones under a fresh key.
func (s *spie) open(w int) error {
	for r := range s.ring {
		d := &s.ring[r][w%s.c.Ring]
		d.window = w
		d.seed = mix64(s.c.Seed^s.index<<40, uint64(r)<<24|uint64(w))
		d.filters = d.filters[:0]
		for _, shape := range s.shapes[r] {
			f, err := bloom.New(bloom.Config{M: shape.M, K: shape.K, Seed: d.seed})
			if err != nil {
				return fmt.Errorf("sim: router %d: %w", r, err)
			}
			d.filters = append(d.filters, f)
		}
	}
	return nil
}

// mix64 derives a well-mixed 64-bit key from two numbers (SplitMix64's
// finaliser).
func mix64(a, b uint64) uint64 {
	g := splitMix{state: a ^ b*0xD1B54A32D192ED03}
	return g.next()
}

// forward sends p from src to dst in window w: every router on the way
// records it.
func (s *spie) forward(p *packet, src, dst, w int) {
	s.buf = s.rt.path(s.buf[:0], src, dst)
	for _, r := range s.buf {
		d := &s.ring[r][w%s.c.Ring]
		h := d.filters[0].Hash(p[:])
		for _, f := range d.filters {
			f.AddHash(h)
		}
	}
}

// close ends window w: the digests' false-positive rates are fixed from
// now on, so they are computed once.
func (s *spie) close(w int) {
	for r := range s.ring {
		d := &s.ring[r][w%s.c.Ring]
		d.fill, d.model = d.fill[:0], d.model[:0]
		for _, f := range d.filters {
			d.fill = append(d.fill, f.FalsePositiveRate())
			d.model = append(d.model, f.Shape().FalsePositive(f.Count()))
		}
	}
}

// traceUpTo traces attacks[next:] of windows up to last and returns the
// index of the first attack it left.
func (s *spie) traceUpTo(attacks []attack, next, last int) (int, error) {
	for ; next < len(attacks) && attacks[next].window <= last; next++ {
		for ri := range s.results {
			if err := s.trace(&attacks[next], ri); err != nil {
				return next, err
			}
		}
	}
	return next, nil
}

// digestOf returns router r's digest of window w, or nil if the ring no
// longer holds it.
func (s *spie) digestOf(r int32, w int) *digest {
	d := &s.ring[r][w%s.c.Ring]
	if d.window != w {
		return nil
	}
	return d
}

// trace reconstructs the attack graph of a with the digests of rate index
// ri and adds the outcome to the results.
func (s *spie) trace(a *attack, ri int) error {
	res := &s.results[ri]
	s.gen++
	path := s.rt.path(s.buf[:0], a.src, a.dst)
	for _, r := range path {
		s.onPath[r] = s.gen
	}
	res.PathRouters += float64(len(path)) // a sum until run divides it
	res.ExpectedSuccesses += s.cleanProbability(path, a.window, ri)

	victim := int32(a.dst)
	s.mark[victim] = s.gen
	graph := []int32{victim}
	queries, falseBranches := 0, 0
	for i := 0; i < len(graph); i++ {
		for _, v := range s.topo.adj[graph[i]] {
			if s.mark[v] == s.gen {
				continue
			}
			s.mark[v] = s.gen
			queries++
			d := s.digestOf(v, a.window)
			if d == nil { // run traces every window while the ring holds it
				return fmt.Errorf("sim: router %d no longer holds window %d", v, a.window)
			}
			seen := d.filters[ri].Contains(a.pkt[:])
			if s.onPath[v] == s.gen {
				if !seen {
					return fmt.Errorf("sim: router %d forwarded attack packet but its digest does not hold it", v)
				}
			} else {
				f := d.fill[ri]
				res.NegativeQueries++
				res.ExpectedFalseBranches += f
				res.ModelFalseBranches += d.model[ri]
				res.Variance += f * (1 - f)
				if seen {
					falseBranches++
				}
			}
			if seen {
				graph = append(graph, v)
			}
		}
	}
	res.Queries += float64(queries) // a sum until run divides it
	res.FalseBranches += falseBranches
	if falseBranches == 0 {
		res.Successes++
	}
	s.buf = path
	return nil
}

// cleanProbability returns the probability that no router next to the
// path answers falsely, the model's chance of a perfect reconstruction,
// and adds its variance to the results.
func (s *spie) cleanProbability(path []int32, w, ri int) float64 {
	q := 1.0
	for _, u := range path {
		for _, v := range s.topo.adj[u] {
			if s.onPath[v] == s.gen || s.counted[v] == s.gen {
				continue
			}
			s.counted[v] = s.gen
			if d := s.digestOf(v, w); d != nil {
				q *= 1 - d.fill[ri]
			}
		}
	}
	s.results[ri].SuccessVariance += q * (1 - q)
	return q
}

// finish turns the sums trace accumulated into means and fills in the
// digests' sizes, which do not change from window to window.
func (s *spie) finish() {
	var packets float64
	for _, c := range s.capacity {
		packets += float64(c)
	}
	n := float64(len(s.ring))
	for ri := range s.results {
		res := &s.results[ri]
		res.PathRouters /= float64(res.Attacks)
		res.Queries /= float64(res.Attacks)
		var bytes, bits float64
		for r := range s.ring {
			f := s.ring[r][0].filters[ri]
			bytes += float64(f.SizeBytes())
			bits += float64(f.M())
			res.MaxBytesPerRouterSecond = max(res.MaxBytesPerRouterSecond, f.SizeBytes())
		}
		res.BytesPerRouterSecond = bytes / n
		res.BitsPerPacket = bits / packets
	}
}

// TracebackChart plots the false branches per attack against the digests'
// target rate, on log-log axes: for each topology the measured counts as
// dots and the expectation from the digests' false-positive rates as a
// dashed line of the same colour.
func TracebackChart(rs []TracebackResult) Chart {
	c := Chart{
		Title:  "SPIE traceback: false branches per attack",
		XLabel: "target false-positive rate of each digest",
		YLabel: "false branches per traced packet",
		LogX:   true, LogY: true,
	}
	var names []string
	for _, r := range rs {
		if !slices.Contains(names, r.Topology) {
			names = append(names, r.Topology)
		}
	}
	for i, name := range names {
		measured := Series{Name: name + " measured", Color: palette(i), Markers: true}
		expected := Series{Name: name + " expected", Color: palette(i), Dashed: true}
		for _, r := range rs {
			if r.Topology == name {
				measured.X, measured.Y = append(measured.X, r.P), append(measured.Y, r.FalseBranchesPerAttack())
				expected.X, expected.Y = append(expected.X, r.P), append(expected.Y, r.ExpectedPerAttack())
			}
		}
		c.Series = append(c.Series, measured, expected)
	}
	return c
}
