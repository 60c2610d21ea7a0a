package replay

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/bloomcast/bloomcast/internal/nodeaccess"
	"github.com/bloomcast/bloomcast/node"
)

// propagation measures, in a replay whose digests are polled or pushed,
// the time from each publication until every peer's view holds it.
type propagation struct {
	// late counts pushed publications some peer's view did not hold
	// within pushWait of their push.
	late     uint64
	delays   []time.Duration
	sum, max time.Duration
	// pending: by publishing node, its publications not yet held by
	// every peer (polling), or not yet pushed (pushing).
	pending map[int][]*pendingPub
}

// pendingPub is a publication some peers' views do not hold yet.
type pendingPub struct {
	seq  uint64
	at   float64 // trace time of the publication
	held []bool  // by peer index
	left int
}

func (p *propagation) record(d time.Duration) {
	p.delays = append(p.delays, d)
	p.sum += d
	p.max = max(p.max, d)
}

// viewSeq returns the sequence of n's view of peer ("node<j>"), 0
// without one.
func viewSeq(n *node.Node, peer int) uint64 {
	name := "node" + strconv.Itoa(peer)
	for _, st := range nodeaccess.Peers(n) {
		if st.Name == name && st.HasView {
			return st.Sequence
		}
	}
	return 0
}

// push publishes each node's digest if due, pushes it through the
// node's transport when its push interval allows (nodeaccess.PushIfDue,
// on trace time: the nodes' clock), and waits until every other node's
// view holds it. Each publication the push carried counts the trace time
// it was held (since now, the trace time of its publication) plus the
// wait.
func (p *propagation) push(ctx context.Context, nodes []*clusterNode, now float64) error {
	if p.pending == nil {
		p.pending = map[int][]*pendingPub{}
	}
	for i, cn := range nodes {
		published, err := nodeaccess.PublishIfDue(cn.node)
		if err != nil {
			return err
		}
		if published {
			p.pending[i] = append(p.pending[i], &pendingPub{seq: nodeaccess.Publisher(cn.node).Sequence, at: now})
		}
		if len(p.pending[i]) == 0 {
			continue
		}
		start := time.Now()
		pushed, _, err := nodeaccess.PushIfDue(ctx, cn.node)
		if err != nil {
			return err
		}
		if !pushed {
			continue
		}
		seq := p.pending[i][len(p.pending[i])-1].seq
		deadline := start.Add(pushWait)
		held := true
		for j := 0; j < len(nodes) && held; {
			if j == i || viewSeq(nodes[j].node, i) >= seq {
				j++
				continue
			}
			held = time.Now().Before(deadline)
			runtime.Gosched()
		}
		wait := time.Since(start)
		for _, pp := range p.pending[i] {
			if held {
				p.record(time.Duration((now-pp.at)*float64(time.Second)) + wait)
			} else {
				p.late++
			}
		}
		p.pending[i] = p.pending[i][:0]
	}
	return nil
}

// pushWait is how long the replay waits for a pushed publication to
// reach every peer's view before it counts it late and goes on (the peer
// that missed it resynchronises at the node's next push, whose delta
// will not apply to its view).
const pushWait = 2 * time.Second

// pollSchedule orders every pair's polls over one interval: pair k
// (node k/n polling node k%n) polls at its phase plus whole intervals.
type pollSchedule struct {
	n        int
	interval float64 // seconds
	order    []int   // pairs by phase
	phase    []float64
	next     int // index in order of the next poll
	round    int
}

func newPollSchedule(n int, interval time.Duration) *pollSchedule {
	s := &pollSchedule{n: n, interval: interval.Seconds(), phase: make([]float64, n*n)}
	// Phases spread evenly in an order that interleaves pollers (the
	// low bits of k reversed would do as well; this is simpler).
	pairs := 0
	for k := range n * n {
		if k/n != k%n {
			s.order = append(s.order, k)
			pairs++
		}
	}
	for idx, k := range s.order {
		s.phase[k] = s.interval * float64((idx*7919)%pairs) / float64(pairs)
	}
	slices.SortFunc(s.order, func(a, b int) int {
		switch {
		case s.phase[a] < s.phase[b]:
			return -1
		case s.phase[a] > s.phase[b]:
			return 1
		}
		return 0
	})
	return s
}

// due returns the next poll's pair and time if it comes at or before now.
func (s *pollSchedule) due(now float64) (pair int, at float64, ok bool) {
	if len(s.order) == 0 {
		return 0, 0, false
	}
	k := s.order[s.next]
	at = float64(s.round)*s.interval + s.phase[k]
	if at > now {
		return 0, 0, false
	}
	s.next++
	if s.next == len(s.order) {
		s.next, s.round = 0, s.round+1
	}
	return k, at, true
}

// poll publishes each node's digest if due, then makes the polls due by
// trace time now, recording when each publication reaches its last peer.
func (p *propagation) poll(ctx context.Context, nodes []*clusterNode, s *pollSchedule, now float64) error {
	p.init()
	n := len(nodes)
	for i, cn := range nodes {
		published, err := nodeaccess.PublishIfDue(cn.node)
		if err != nil {
			return err
		}
		if published && n > 1 {
			p.pending[i] = append(p.pending[i], &pendingPub{seq: nodeaccess.Publisher(cn.node).Sequence, at: now, held: make([]bool, n), left: n - 1})
		}
	}
	return p.pollDue(ctx, nodes, s, now)
}

// init makes the map of publications waiting for peers.
func (p *propagation) init() {
	if p.pending == nil {
		p.pending = map[int][]*pendingPub{}
	}
}

// pollDue makes the polls due by trace time now. The replay calls it
// before each request too, so that the request finds the views the polls
// due before it brought, however long ago its predecessor came.
func (p *propagation) pollDue(ctx context.Context, nodes []*clusterNode, s *pollSchedule, now float64) error {
	p.init()
	n := len(nodes)
	for {
		k, at, ok := s.due(now)
		if !ok {
			return nil
		}
		j, i := k/n, k%n // j polls i
		if err := nodes[j].node.Directory().RefreshPeer(ctx, nodes[j].peers[i]); err != nil {
			return err
		}
		seq := viewSeq(nodes[j].node, i)
		kept := p.pending[i][:0]
		for _, pp := range p.pending[i] {
			if !pp.held[j] && seq >= pp.seq {
				pp.held[j] = true
				pp.left--
			}
			if pp.left == 0 {
				p.record(time.Duration((max(at, pp.at) - pp.at) * float64(time.Second)))
				continue
			}
			kept = append(kept, pp)
		}
		p.pending[i] = kept
	}
}

// waitConnected waits until every node's transport is connected, for a
// minute at most.
func waitConnected(nodes []*clusterNode) error {
	deadline := time.Now().Add(time.Minute)
	for _, cn := range nodes {
		for cn.tr != nil && !cn.tr.Connected() {
			if time.Now().After(deadline) {
				return fmt.Errorf("%s: digest transport not connected after a minute", cn.node.Addr())
			}
			time.Sleep(time.Millisecond)
		}
	}
	return nil
}
