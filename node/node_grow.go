package node

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// growState is the node's summary growth: one resize at a time (a
// resize running is not waited for: TryLock), and the object count a
// failed one waits for before it is tried again.
type growState struct {
	mu          sync.Mutex
	failedBelow uint64
}

// growSummaries rebuilds the node's summaries, the counting filter its
// digests publish (Publisher.resize) and its Squid digest
// (squidDigest.Resize), at twice their capacity, or at the first doubling
// above the object count, when the cache holds more objects than the
// capacity: past it, the false-positive rate of the summaries, which is
// the rate at which peers send this node requests it cannot answer,
// climbs with every object (at 16 bits per object and k = 11, from 0.05%
// at the capacity to 99% at 10 times it). Doubling keeps the bits per object,
// so the rate stays near the configured one (a summary just grown holds
// half its capacity), at a rebuild cost linear in the object count that
// the doubling makes constant per object stored. A grown summary is
// published as a new full digest; peers fetch it whole (their delta base
// is gone), and a Squid peer at its next fetch. Summaries never shrink.
// It reports whether it grew them, and logs the growth.
//
// The publication loop calls it at every wake-up (a store past the
// capacity wakes it); the caller of a Manual node calls it itself.
func (n *Node) growSummaries() (bool, error) {
	if n.proxy == nil {
		return false, errZeroNode
	}
	if !n.grow.mu.TryLock() {
		return false, nil
	}
	defer n.grow.mu.Unlock()
	return n.growLocked()
}

func (n *Node) growLocked() (bool, error) {
	objects := uint64(n.store.Len())
	before := n.publisher.stats()
	if before.Capacity == 0 || objects <= before.Capacity || objects < n.grow.failedBelow {
		return false, nil
	}
	next := before.Capacity
	for next < objects && next <= 1<<32 {
		next *= 2
	}
	start := time.Now()
	if err := n.publisher.resize(next, n.store.Keys); err != nil {
		n.grow.failedBelow = 2 * objects
		return false, err
	}
	sq := n.squid.Stats()
	if squidNext := uint32(min(next, 1<<31)); sq.Capacity < squidNext {
		if err := n.squid.Resize(squidNext, n.store.Keys); err != nil {
			n.grow.failedBelow = 2 * objects
			return true, err
		}
	}
	after := n.publisher.stats()
	n.log.Info("summary grown past its capacity", "proxy", n.listenAddr(), "objects", objects,
		"capacity", before.Capacity, "new_capacity", after.Capacity,
		"predicted_false_positive_rate", before.PredictedFalsePos, "new_predicted_false_positive_rate", after.PredictedFalsePos,
		"squid_capacity", n.squid.Stats().Capacity, "sequence", after.Sequence, "took", time.Since(start))
	return true, nil
}

// growIfDue is growSummaries for the publication loop: a failure is
// logged at error level, and tried again once the object count has
// doubled.
func (n *Node) growIfDue() {
	if _, err := n.growSummaries(); err != nil {
		n.log.Error("growing the summary failed; it stays at its capacity", "proxy", n.listenAddr(), "err", err)
	}
}

// registerSummary exports the summaries' capacity, predicted
// false-positive rate and growth, labelled summary="bloomcast" (the
// digest peers fetch) and summary="squid" (the Squid digest).
func (m *nodeMetrics) registerSummary(n *Node) {
	for _, s := range []struct {
		name               string
		capacity, fp, grew func() float64
	}{
		{"bloomcast",
			func() float64 { return float64(n.publisher.stats().Capacity) },
			func() float64 { return n.publisher.stats().PredictedFalsePos },
			func() float64 { return float64(n.publisher.stats().Resizes) }},
		{"squid",
			func() float64 { return float64(n.squid.Stats().Capacity) },
			func() float64 { return n.squid.Stats().PredictedFalsePos },
			func() float64 { return float64(n.squid.Stats().Resizes) }},
	} {
		labels := prometheus.Labels{"summary": s.name}
		m.registry.MustRegister(
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "bloomcast_summary_capacity_objects", ConstLabels: labels,
				Help: "Objects the summary is sized for: --capacity, doubled each time the cache outgrew it."}, s.capacity),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "bloomcast_summary_predicted_false_positive_rate", ConstLabels: labels,
				Help: "False-positive rate the summary's shape predicts for the objects it holds: the rate of peers' false hits on it."}, s.fp),
			prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "bloomcast_summary_resizes_total", ConstLabels: labels,
				Help: "Rebuilds of the summary at a larger capacity."}, s.grew))
	}
	m.registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "bloomcast_summary_target_false_positive_rate",
		Help: "False-positive rate of the bloomcast summary at its capacity: the configured target."},
		func() float64 { return n.publisher.stats().TargetFalsePos }))
}
