package sim

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/bloomcast/bloomcast/hashing"
	"github.com/bloomcast/bloomcast/params"
)

// Defaults of LoopConfig.
const (
	DefaultLoopBits     = 128
	DefaultLoopHops     = 16
	DefaultLoopFraction = 0.1
	DefaultLoopPackets  = 200_000
	DefaultLoopRouters  = 1 << 12
	DefaultTTL          = 64
	// NoLoops as LoopConfig.LoopFraction sends every packet loop-free.
	NoLoops = -1.0
)

// LoopConfig describes a LoopDetection run. The zero value is the default
// run.
type LoopConfig struct {
	// Bits is the size m of the filter each packet carries, a multiple of 8
	// up to MaxLoopBits; 0 means DefaultLoopBits.
	Bits int
	// K is the number of bits in each router's mask, from 1 to the smaller
	// of Bits/2 and params.MaxK; 0 means BestLoopK(Bits, Hops).
	K int
	// Hops is the number of routers a loop-free packet crosses, each one a
	// check, as traceroute counts hops; 0 means DefaultLoopHops.
	Hops int
	// LoopFraction is the fraction of packets whose route has a loop, in
	// [0, 1]; 0 means DefaultLoopFraction and NoLoops means none.
	LoopFraction float64
	// Packets is the number of packets sent; 0 means DefaultLoopPackets.
	Packets int
	// Routers is the number of routers the paths are drawn from, each with
	// its precomputed mask; 0 means DefaultLoopRouters. At least Hops.
	Routers int
	// TTL is the hop limit that would end a looped packet without loop
	// detection, for comparison; 0 means DefaultTTL. More than Hops.
	TTL int
	// Seed drives the paths, the loops and the routers' masks.
	Seed uint64
}

// LoopCheck is what LoopDetection saw at the routers that checked a packet
// holding Masks masks, the packet's (Masks+1)-th distinct router.
// The zero value is a check that saw no packet.
type LoopCheck struct {
	Masks int
	// Checks counts the packets that reached such a router; Alarms those
	// it flagged, all of them false since the router was new to them.
	Checks, Alarms int
	// Model is LoopModel.PerCheck[Masks], the exact probability of an alarm
	// here; Classic is params.ApproxFalsePositive(Bits, Masks, K), the
	// textbook Bloom-filter rate.
	Model, Classic float64
}

// Rate returns Alarms/Checks, or 0 without checks.
func (c LoopCheck) Rate() float64 {
	if c.Checks == 0 {
		return 0
	}
	return float64(c.Alarms) / float64(c.Checks)
}

// LoopResult is what LoopDetection measured.
// The zero value is no result; LoopDetection fills it.
type LoopResult struct {
	// Bits, K and Hops are the run's filter size, mask weight and path
	// length.
	Bits, K, Hops int
	// HeaderBytes is the filter's cost in every packet header, Bits/8;
	// RouteRecordBytes what recording the path's 32-bit router addresses
	// instead would cost, 4·Hops.
	HeaderBytes, RouteRecordBytes int
	// Packets is the number sent; LoopFree and Looped split it.
	Packets, LoopFree, Looped int
	// FalseAlarms counts the loop-free packets flagged as looped (and so
	// dropped); ExpectedFalseAlarms is LoopFree·PathFalseAlarm.
	FalseAlarms         int
	ExpectedFalseAlarms float64
	// PathFalseAlarm is the model's probability that a loop-free packet is
	// flagged (LoopModel.PathFalseAlarm); ClassicPathFalseAlarm is the
	// textbook estimate 1 − Π (1 − ApproxFalsePositive(Bits, h, K)) over
	// h = 1..Hops−1.
	PathFalseAlarm, ClassicPathFalseAlarm float64
	// Detected counts the looped packets flagged when they came back to a
	// router, EarlyAlarms those flagged by a false alarm before their loop
	// closed, Missed those never flagged (none can be: a Bloom filter has
	// no false negatives). ExpectedEarlyAlarms is the model's expectation
	// of EarlyAlarms.
	Detected, EarlyAlarms, Missed int
	ExpectedEarlyAlarms           float64
	// LoopedRouters is the mean number of routers a looped packet visited,
	// the one that dropped it included; without loop detection each would
	// have circled until its TTL ran out, TTL routers.
	LoopedRouters float64
	TTL           int
	// Checks holds, for Masks = 1..Hops−1, the checks of new routers.
	Checks []LoopCheck
}

// FalseAlarmRate returns the fraction of loop-free packets flagged.
func (r LoopResult) FalseAlarmRate() float64 { return ratio(r.FalseAlarms, r.LoopFree) }

// StdError returns the standard deviation of FalseAlarmRate under the
// model: the false alarms are Binomial(LoopFree, PathFalseAlarm).
func (r LoopResult) StdError() float64 {
	if r.LoopFree == 0 {
		return 0
	}
	p := r.PathFalseAlarm
	return math.Sqrt(p * (1 - p) / float64(r.LoopFree))
}

// DetectionRate returns the fraction of looped packets stopped before
// their TTL ran out, at the loop or earlier.
func (r LoopResult) DetectionRate() float64 { return ratio(r.Detected+r.EarlyAlarms, r.Looped) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// LoopDetection simulates loop detection with a Bloom filter carried in
// each packet, as Whitaker and Wetherall proposed for Icarus ("Forwarding
// without loops in Icarus", OPENARCH 2002; Broder and Mitzenmacher,
// "Network applications of Bloom filters: a survey", Internet Mathematics,
// 2004).
//
// Every router precomputes its mask once, k distinct bits of the m derived
// from the hash of its address (hashing.SumSeed), so the per-packet work is
// one AND-compare and one OR of m bits. A packet crosses Hops distinct
// routers drawn from a population of Routers; a LoopFraction of the
// packets instead turn back after a random number of routers to a random
// earlier one and would circle until their TTL ran out. Each router checks
// the packet's filter against its mask: all k bits set means "probably
// looped", and the packet is dropped; otherwise the router ORs its mask in
// and forwards it. A looped packet is always caught when it returns to a
// router; a false alarm drops a packet at a router it never visited, with
// the probability NewLoopModel computes, which LoopDetection reports
// beside the count, check by check.
func LoopDetection(cfg LoopConfig) (LoopResult, error) {
	c, err := cfg.resolve()
	if err != nil {
		return LoopResult{}, err
	}
	model, err := NewLoopModel(c.Bits, c.K, c.Hops)
	if err != nil {
		return LoopResult{}, err
	}
	r := newLoopResult(c, model)
	ls := &loopSim{c: c, words: (c.Bits + 63) / 64, rng: newRand(c.Seed, streamLoops, 0)}
	ls.masks = routerMasks(c.Seed, c.Routers, c.Bits, c.K)
	ls.filter = make([]uint64, ls.words)
	for range c.Packets {
		if err := ls.send(&r, model); err != nil {
			return LoopResult{}, err
		}
	}
	r.ExpectedFalseAlarms = float64(r.LoopFree) * r.PathFalseAlarm
	if r.Looped > 0 {
		r.LoopedRouters /= float64(r.Looped)
	}
	return r, nil
}

// resolve returns cfg with its defaults filled in, or the error in it.
func (cfg LoopConfig) resolve() (LoopConfig, error) {
	c := cfg
	c.Bits = cmp.Or(c.Bits, DefaultLoopBits)
	c.Hops = cmp.Or(c.Hops, DefaultLoopHops)
	c.LoopFraction = cmp.Or(c.LoopFraction, DefaultLoopFraction)
	c.Packets = cmp.Or(c.Packets, DefaultLoopPackets)
	c.Routers = cmp.Or(c.Routers, DefaultLoopRouters)
	c.TTL = cmp.Or(c.TTL, DefaultTTL)
	if c.LoopFraction == NoLoops {
		c.LoopFraction = 0
	}
	if c.K == 0 {
		k, err := BestLoopK(c.Bits, c.Hops)
		if err != nil {
			return c, err
		}
		c.K = k
	}
	if err := checkLoopShape(c.Bits, c.K, c.Hops); err != nil {
		return c, err
	}
	switch {
	case !(c.LoopFraction >= 0 && c.LoopFraction <= 1):
		return c, fmt.Errorf("sim: loop fraction %g outside [0, 1]", cfg.LoopFraction)
	case c.Packets < 0:
		return c, fmt.Errorf("sim: %d packets", c.Packets)
	case c.Routers < c.Hops || c.Routers > MaxRouters:
		return c, fmt.Errorf("sim: %d routers to draw paths of %d from, want %d to %d", c.Routers, c.Hops, c.Hops, MaxRouters)
	case c.TTL <= c.Hops || c.TTL > 255:
		return c, fmt.Errorf("sim: TTL %d, want %d to 255", c.TTL, c.Hops+1)
	}
	return c, nil
}

func newLoopResult(c LoopConfig, model LoopModel) LoopResult {
	r := LoopResult{Bits: c.Bits, K: c.K, Hops: c.Hops, HeaderBytes: c.Bits / 8,
		RouteRecordBytes: 4 * c.Hops, Packets: c.Packets, TTL: c.TTL,
		PathFalseAlarm: model.PathFalseAlarm(c.Hops)}
	survive := 1.0
	for h := 1; h < c.Hops; h++ {
		classic := params.ApproxFalsePositive(uint64(c.Bits), uint64(h), c.K)
		survive *= 1 - classic
		r.Checks = append(r.Checks, LoopCheck{Masks: h, Model: model.PerCheck[h], Classic: classic})
	}
	r.ClassicPathFalseAlarm = 1 - survive
	return r
}

// routerMasks precomputes the mask of every router: k distinct bits of m,
// taken from the probe sequence of the hash of the router's 32-bit
// address (here its number), each mask in words 64-bit words, back to
// back.
func routerMasks(seed uint64, routers, m, k int) []uint64 {
	words := (m + 63) / 64
	masks := make([]uint64, routers*words)
	var id [4]byte
	for r := range routers {
		binary.BigEndian.PutUint32(id[:], uint32(r))
		mask := masks[r*words : (r+1)*words]
		pr := hashing.NewProbes(hashing.SumSeed(id[:], seed))
		for set := 0; set < k; {
			b := hashing.Reduce(pr.Next(), uint64(m))
			if w, bit := b/64, uint64(1)<<(b%64); mask[w]&bit == 0 {
				mask[w] |= bit
				set++
			}
		}
	}
	return masks
}

// loopSim is the state of a LoopDetection run.
type loopSim struct {
	c      LoopConfig
	words  int
	masks  []uint64
	rng    *rand.Rand // the same stream for every Bits, so runs differ only in the filter
	path   []int32
	filter []uint64
}

// send sends one packet and records what happened to it in r.
func (ls *loopSim) send(r *LoopResult, model LoopModel) error {
	ls.drawPath()
	// A looped packet turns back after its turn-th router to an earlier
	// one, back; a loop-free one crosses all Hops.
	looped := ls.c.LoopFraction > 0 && ls.rng.Float64() < ls.c.LoopFraction
	turn, back := ls.c.Hops, -1
	if looped {
		turn = 2 + ls.rng.IntN(ls.c.Hops-1)
		back = ls.rng.IntN(turn - 1)
		r.Looped++
		r.ExpectedEarlyAlarms += 1 - model.Survival[turn-1]
	} else {
		r.LoopFree++
	}
	clear(ls.filter)
	for i := range turn {
		if i > 0 {
			r.Checks[i-1].Checks++
		}
		if ls.visit(ls.path[i]) {
			r.Checks[i-1].Alarms++
			if looped {
				r.EarlyAlarms++
				r.LoopedRouters += float64(i + 1)
			} else {
				r.FalseAlarms++
			}
			return nil
		}
	}
	if !looped {
		return nil
	}
	r.LoopedRouters += float64(turn + 1)
	if !ls.visit(ls.path[back]) {
		r.Missed++
		return fmt.Errorf("sim: a looped packet came back to router %d unnoticed", ls.path[back])
	}
	r.Detected++
	return nil
}

// visit is a router's work: it reports whether its mask is already in the
// packet's filter, and ORs it in if not.
func (ls *loopSim) visit(router int32) bool {
	mask := ls.masks[int(router)*ls.words : (int(router)+1)*ls.words]
	covered := true
	for i, w := range mask {
		if ls.filter[i]&w != w {
			covered = false
		}
	}
	if !covered {
		for i, w := range mask {
			ls.filter[i] |= w
		}
	}
	return covered
}

// drawPath draws Hops distinct routers.
func (ls *loopSim) drawPath() {
	ls.path = ls.path[:0]
	for len(ls.path) < ls.c.Hops {
		r := int32(ls.rng.IntN(ls.c.Routers))
		if !slices.Contains(ls.path, r) {
			ls.path = append(ls.path, r)
		}
	}
}

// LoopChart plots the probability of a false alarm at each new router
// against the number of masks already in the packet's filter, on a log
// scale: for each result the model as a line and the measured rate as
// dots of the same colour (checks without an alarm cannot be drawn).
func LoopChart(rs []LoopResult) Chart {
	c := Chart{
		Title:  "Loop detection: false alarms at each router",
		XLabel: "routers already in the packet's filter",
		YLabel: "probability of a false loop alarm",
		LogY:   true,
		MinY:   1e-7, // below what any run of a few million checks can measure
	}
	for i, r := range rs {
		label := fmt.Sprintf("%d bits, k=%d", r.Bits, r.K)
		model := Series{Name: label + " model", Color: palette(i), Line: true}
		measured := Series{Name: label + " measured", Color: palette(i), Markers: true}
		for _, ch := range r.Checks {
			model.X, model.Y = append(model.X, float64(ch.Masks)), append(model.Y, ch.Model)
			measured.X, measured.Y = append(measured.X, float64(ch.Masks)), append(measured.Y, ch.Rate())
		}
		c.Series = append(c.Series, model, measured)
	}
	return c
}
