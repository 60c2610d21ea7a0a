package sim

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
)

// Topology kinds that NewTopology generates.
const (
	// TopologyTree is a random recursive tree: router i > 0 links to a
	// uniformly chosen earlier router. Every pair of routers has exactly one
	// path, as in a stub network hanging off one provider.
	TopologyTree = "tree"
	// TopologyRandom is a connected random graph: a random recursive tree
	// plus links between uniformly chosen pairs until the mean degree is
	// reached, close to an Erdős–Rényi graph with the same number of links.
	TopologyRandom = "random"
	// TopologyPowerLaw grows the graph by preferential attachment
	// (Barabási and Albert, "Emergence of scaling in random networks",
	// Science 1999): each new router links to Degree/2 existing routers
	// chosen with probability proportional to their degree, which gives the
	// heavy-tailed degree distribution Faloutsos, Faloutsos and Faloutsos
	// measured in the Internet's router graph ("On power-law relationships
	// of the Internet topology", SIGCOMM 1999): a few hubs, many stubs.
	TopologyPowerLaw = "powerlaw"
)

// Defaults and limits of TopologyConfig and ReadEdgeList.
const (
	DefaultRouters = 300
	DefaultDegree  = 4
	// MaxRouters bounds a generated or loaded topology, so that a hostile
	// edge list cannot make the simulator allocate without limit.
	MaxRouters = 1 << 16
	// MaxLinks bounds the links of a loaded topology.
	MaxLinks = 1 << 20
)

// TopologyConfig describes a generated router graph. The zero value is a
// random graph of DefaultRouters routers with mean degree DefaultDegree.
type TopologyConfig struct {
	// Kind is TopologyTree, TopologyRandom or TopologyPowerLaw; "" means
	// TopologyRandom.
	Kind string
	// Routers is the number of routers, 2..MaxRouters; 0 means
	// DefaultRouters.
	Routers int
	// Degree is the mean number of links per router of random and power-law
	// graphs, 2 to Routers − 1 (a tree's is 2 − 2/Routers by definition,
	// and Degree is ignored); 0 means DefaultDegree, or Routers − 1 (every
	// pair linked) when that is smaller. Power-law graphs round it down to
	// an even number.
	Degree int
	// Seed drives the generator.
	Seed uint64
}

// Topology is an undirected, simple router graph. Routers are numbered
// from 0; names, if the graph was loaded, map numbers back to the file's
// labels.
//
// The zero Topology has no routers: Routers, Links and MaxDegree return 0,
// Connected false, and Degree and Neighbors, which need 0 ≤ r < Routers,
// have no r to take; make one with NewTopology or ReadEdgeList.
type Topology struct {
	// Name says where the graph came from: a kind, or a file name.
	Name  string
	adj   [][]int32
	names []string
}

// Random-number streams: each use of a seed draws from its own PCG stream,
// so adding draws to one part of a simulation leaves the others unchanged.
const (
	streamTopology uint64 = iota + 1
	streamTraffic
	streamAttacks
	streamLoops
)

// newRand returns the PCG generator of one stream of seed.
func newRand(seed, stream, index uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, stream<<48|index))
}

// NewTopology generates the graph cfg describes. The same configuration
// gives the same graph.
func NewTopology(cfg TopologyConfig) (*Topology, error) {
	n, d := cfg.Routers, cfg.Degree
	if n == 0 {
		n = DefaultRouters
	}
	if n < 2 || n > MaxRouters {
		return nil, fmt.Errorf("sim: %d routers, want 2 to %d", n, MaxRouters)
	}
	if d == 0 {
		// Fewer than DefaultDegree+1 routers cannot reach the default:
		// they get every pair linked, so that any size from 2 works.
		d = min(DefaultDegree, n-1)
	} else if cfg.Kind != TopologyTree && (d < 2 || d > n-1) {
		return nil, fmt.Errorf("sim: mean degree %d, want 2 to %d for %d routers", d, n-1, n)
	}
	rng := newRand(cfg.Seed, streamTopology, 0)
	t := &Topology{adj: make([][]int32, n)}
	switch cfg.Kind {
	case TopologyTree:
		t.growTree(rng, n)
	case TopologyRandom, "":
		t.growTree(rng, n)
		t.addRandomLinks(rng, n*d/2-(n-1))
	case TopologyPowerLaw:
		t.growPowerLaw(rng, n, max(d/2, 1))
	default:
		return nil, fmt.Errorf("sim: unknown topology %q (want tree, random or powerlaw)", cfg.Kind)
	}
	t.Name = cmp.Or(cfg.Kind, TopologyRandom)
	return t, nil
}

// link adds the undirected link a–b; callers ensure it is new.
func (t *Topology) link(a, b int) {
	t.adj[a] = append(t.adj[a], int32(b))
	t.adj[b] = append(t.adj[b], int32(a))
}

func (t *Topology) linked(a, b int) bool {
	if len(t.adj[a]) > len(t.adj[b]) {
		a, b = b, a
	}
	return slices.Contains(t.adj[a], int32(b))
}

// growTree links each router after the first to a uniformly chosen earlier
// one: connected, n−1 links, depth about e·ln n.
func (t *Topology) growTree(rng *rand.Rand, n int) {
	for i := 1; i < n; i++ {
		t.link(i, rng.IntN(i))
	}
}

// addRandomLinks adds extra links between uniformly chosen unlinked pairs.
func (t *Topology) addRandomLinks(rng *rand.Rand, extra int) {
	n := len(t.adj)
	for extra > 0 {
		a, b := rng.IntN(n), rng.IntN(n)
		if a == b || t.linked(a, b) {
			continue
		}
		t.link(a, b)
		extra--
	}
}

// growPowerLaw starts from a clique of per+1 routers and links each later
// router to per distinct earlier ones, each chosen with probability
// proportional to its degree: picking a uniform end of a uniform link does
// exactly that.
func (t *Topology) growPowerLaw(rng *rand.Rand, n, per int) {
	per = min(per, n-1)
	var ends []int32 // both ends of every link so far
	for a := 0; a <= per; a++ {
		for b := 0; b < a; b++ {
			t.link(a, b)
			ends = append(ends, int32(a), int32(b))
		}
	}
	chosen := make([]int32, 0, per)
	for i := per + 1; i < n; i++ {
		chosen = chosen[:0]
		for len(chosen) < per {
			c := ends[rng.IntN(len(ends))]
			if !slices.Contains(chosen, c) {
				chosen = append(chosen, c)
			}
		}
		for _, c := range chosen {
			t.link(i, int(c))
			ends = append(ends, int32(i), c)
		}
	}
}

// Routers returns the number of routers.
func (t *Topology) Routers() int { return len(t.adj) }

// Links returns the number of links.
func (t *Topology) Links() int {
	s := 0
	for _, a := range t.adj {
		s += len(a)
	}
	return s / 2
}

// Neighbors returns a copy of the routers linked to r.
func (t *Topology) Neighbors(r int) []int {
	out := make([]int, len(t.adj[r]))
	for i, v := range t.adj[r] {
		out[i] = int(v)
	}
	return out
}

// Degree returns the number of links of router r.
func (t *Topology) Degree(r int) int { return len(t.adj[r]) }

// MaxDegree returns the largest degree, the busiest hub's.
func (t *Topology) MaxDegree() int {
	d := 0
	for _, a := range t.adj {
		d = max(d, len(a))
	}
	return d
}

// RouterName returns router r's label in the edge list it was read from,
// or its number for a generated graph.
func (t *Topology) RouterName(r int) string {
	if t.names != nil {
		return t.names[r]
	}
	return fmt.Sprint(r)
}

// Connected reports whether every router can reach every other.
func (t *Topology) Connected() bool {
	n := len(t.adj)
	if n == 0 {
		return false
	}
	seen := make([]bool, n)
	seen[0] = true
	queue, reached := []int32{0}, 1
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		for _, v := range t.adj[u] {
			if !seen[v] {
				seen[v] = true
				reached++
				queue = append(queue, v)
			}
		}
	}
	return reached == n
}

// ReadEdgeList reads an undirected router graph: one link per line as two
// router labels separated by white space ("a b"), blank lines and text
// after "#" ignored. Labels are any words; routers are numbered in order of
// first appearance. A link listed twice (either way round) counts once; a
// link from a router to itself is an error. name labels the topology and
// its error messages. The input is treated as untrusted: it may hold at
// most MaxRouters routers and MaxLinks links.
func ReadEdgeList(r io.Reader, name string) (*Topology, error) {
	t := &Topology{Name: name}
	ids := map[string]int{}
	id := func(label string) (int, error) {
		if i, ok := ids[label]; ok {
			return i, nil
		}
		if len(t.adj) == MaxRouters {
			return 0, fmt.Errorf("more than %d routers", MaxRouters)
		}
		ids[label] = len(t.adj)
		t.adj = append(t.adj, nil)
		t.names = append(t.names, label)
		return len(t.adj) - 1, nil
	}
	sc := bufio.NewScanner(r)
	links := 0
	for line := 1; sc.Scan(); line++ {
		text, _, _ := strings.Cut(sc.Text(), "#")
		f := strings.Fields(text)
		if len(f) == 0 {
			continue
		}
		if len(f) != 2 {
			return nil, fmt.Errorf("sim: %s:%d: want two router names, found %d words", name, line, len(f))
		}
		if f[0] == f[1] {
			return nil, fmt.Errorf("sim: %s:%d: router %q linked to itself", name, line, f[0])
		}
		a, err := id(f[0])
		if err == nil {
			var b int
			if b, err = id(f[1]); err == nil && !t.linked(a, b) {
				if links++; links > MaxLinks {
					err = fmt.Errorf("more than %d links", MaxLinks)
				} else {
					t.link(a, b)
				}
			}
		}
		if err != nil {
			return nil, fmt.Errorf("sim: %s:%d: %w", name, line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("sim: %s: %w", name, err)
	}
	if len(t.adj) < 2 {
		return nil, fmt.Errorf("sim: %s: %w", name, errNoLinks)
	}
	return t, nil
}

var errNoLinks = errors.New("no links")

// routes holds shortest-path routing over a topology: next[d·n+s] is the
// neighbour to which router s forwards a packet for router d (−1 at d), and
// transit[r] counts the ordered pairs (s, d), s ≠ d, whose path includes r,
// ends included. Ties are broken by breadth-first order, so every router
// agrees on one tree per destination, like a converged link-state protocol.
type routes struct {
	n       int
	next    []int32
	transit []uint64
}

// newRoutes runs one breadth-first search per destination: O(n·(n+links))
// time and n² entries of memory, so callers bound n.
func newRoutes(t *Topology) *routes {
	n := len(t.adj)
	rt := &routes{n: n, next: make([]int32, n*n), transit: make([]uint64, n)}
	order := make([]int32, 0, n)
	below := make([]uint64, n) // routers whose path to d passes through r
	for d := range n {
		next := rt.next[d*n : (d+1)*n]
		for i := range next {
			next[i] = -2 // not reached yet
		}
		next[d] = -1
		order = append(order[:0], int32(d))
		for i := 0; i < len(order); i++ {
			u := order[i]
			for _, v := range t.adj[u] {
				if next[v] == -2 {
					next[v] = u
					order = append(order, v)
				}
			}
		}
		// Sum subtree sizes leaves first: each source s contributes one
		// path through every router from s to d.
		for i := range below {
			below[i] = 1
		}
		below[d] = 0
		for i := len(order) - 1; i > 0; i-- {
			u := order[i]
			rt.transit[u] += below[u]
			if p := next[u]; p != int32(d) {
				below[p] += below[u]
			}
		}
		rt.transit[d] += uint64(len(order) - 1)
	}
	return rt
}

// path appends the routers a packet from s to d passes, s and d included.
func (rt *routes) path(buf []int32, s, d int) []int32 {
	next := rt.next[d*rt.n : (d+1)*rt.n]
	for r := int32(s); r != -1; r = next[r] {
		buf = append(buf, r)
	}
	return buf
}
