package compare

import (
	"fmt"
	"runtime"
	"slices"
)

// caseRun measures every contender at one case. Each phase (add, hit,
// miss, batch hit, batch miss) runs in rounds, and each round gives every
// contender one pass in turn. On a shared, noisy machine a slow stretch
// then costs one pass of several contenders instead of every pass of one,
// which the median would not filter out.
type caseRun struct {
	cfg             *Config
	c               Case
	members, others []string
	sets            []Set
	results         []Result
}

// pass runs one timed pass of contender i and returns its cost per key.
type pass func(i int) (Sample, error)

func newCaseRun(cfg *Config, c Case, members, others []string) *caseRun {
	r := &caseRun{cfg: cfg, c: c, members: members, others: others, sets: make([]Set, len(cfg.Contenders))}
	for _, ct := range cfg.Contenders {
		r.results = append(r.results, Result{
			Name: ct.Name, Floor: ct.Floor, N: c.N, Q: c.Q, P: c.P, Target: ct.Target(c.P),
		})
	}
	return r
}

// run measures every phase and returns one result per contender.
func (r *caseRun) run() ([]Result, error) {
	all := make([]int, len(r.sets))
	for i := range all {
		all[i] = i
	}
	add, err := r.rounds("add", all, r.addPass)
	if err != nil {
		return nil, err
	}
	batchers := r.batchers()
	single := func(i int, keys []string) int { return r.sets[i].CountHits(keys) }
	batch := func(i int, keys []string) int { return r.sets[i].(Batcher).CountHitsBatch(keys, r.cfg.Batch) }
	n := len(r.sets)
	hits, fps, bhits, bfps := make([]int, n), make([]int, n), make([]int, n), make([]int, n)
	// Query passes cannot fail: their errors are always nil.
	hit, _ := r.rounds("hit", all, r.queryPass(r.members, r.c.MemberPasses, single, hits))
	miss, _ := r.rounds("miss", all, r.queryPass(r.others, 1, single, fps))
	bhit, _ := r.rounds("batch hit", batchers, r.queryPass(r.members, r.c.MemberPasses, batch, bhits))
	bmiss, _ := r.rounds("batch miss", batchers, r.queryPass(r.others, 1, batch, bfps))

	r.record(add, hit, miss, hits, fps)
	for _, i := range batchers {
		if bhits[i] != hits[i] || bfps[i] != fps[i] {
			return nil, fmt.Errorf("%s: batch answers differ from single ones: %d vs %d hits, %d vs %d false positives",
				r.results[i].Name, bhits[i], hits[i], bfps[i], fps[i])
		}
		r.results[i].BatchHit, r.results[i].BatchMiss = &bhit[i], &bmiss[i]
	}
	return r.results, nil
}

// record fills in every result's sizes, single-key timings and answers.
func (r *caseRun) record(add, hit, miss []Timing, hits, fps []int) {
	for i, s := range r.sets {
		res := &r.results[i]
		res.Bits, res.K = s.Bits(), s.K()
		res.BitsPerKey = float64(res.Bits) / float64(r.c.N)
		res.Add, res.Hit, res.Miss = add[i], hit[i], miss[i]
		if !res.Floor {
			res.FalseNegatives, res.FalsePositives = r.c.N-hits[i], fps[i]
			res.Rate = float64(fps[i]) / float64(r.c.Q)
		}
	}
}

// batchers returns the positions of the built structures that have a
// batch path.
func (r *caseRun) batchers() []int {
	var idx []int
	for i, s := range r.sets {
		if _, ok := s.(Batcher); ok {
			idx = append(idx, i)
		}
	}
	return idx
}

// addPass fills a fresh structure for contender i and keeps it for the
// query phases. Construction (allocating the zeroed table) is not timed:
// it is the same memset for every Bloom filter and says nothing about the
// insertion path.
func (r *caseRun) addPass(i int) (Sample, error) {
	r.sets[i] = nil // let the collection below free the previous one
	runtime.GC()
	s, err := r.cfg.Contenders[i].New(r.c.N, r.c.P)
	if err != nil {
		return Sample{}, err
	}
	w := StartWatch()
	err = s.AddAll(r.members)
	t := w.Stop(len(r.members))
	r.sets[i] = s
	return t, err
}

// queryPass returns a pass that counts the hits of contender i over keys
// into answers[i]: the same every round, since structures are
// deterministic once built. A pass over fewer keys than the non-members
// (the members, at small n) goes over them several times, so that every
// query pass lasts about as long: at n = 10^5 a single pass over the
// members took 2 ms, short enough for one burst of another process on
// this shared machine to move a whole phase's median.
func (r *caseRun) queryPass(keys []string, times int, count func(int, []string) int, answers []int) pass {
	times = max(1, times)
	return func(i int) (Sample, error) {
		w := StartWatch()
		answers[i] = count(i, keys)
		for range times - 1 {
			count(i, keys)
		}
		return w.Stop(times * len(keys)), nil
	}
}

// rounds runs pass for every contender in idx, Reps rounds of one pass
// each, and returns the timings indexed like the contenders.
func (r *caseRun) rounds(phase string, idx []int, p pass) ([]Timing, error) {
	runtime.GC()
	samples := make([][]Sample, len(r.sets))
	for range r.c.Reps {
		for _, i := range idx {
			t, err := p(i)
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %w", r.cfg.Contenders[i].Name, phase, err)
			}
			samples[i] = append(samples[i], t)
		}
	}
	timings := make([]Timing, len(r.sets))
	for _, i := range idx {
		timings[i] = newTiming(samples[i], r.cfg.Clock)
		// A progress line is informational: failing to show one does not
		// change the measurement.
		_, _ = fmt.Fprintf(r.cfg.Progress, "n=%d p=%g %-26s %-10s %8.2f ns/key (wall %.2f)\n",
			r.c.N, r.c.P, r.cfg.Contenders[i].Name, phase, timings[i].Median, timings[i].WallMedian)
	}
	return timings, nil
}

// Median returns the median of xs (the mean of the middle two for an even
// count) without reordering xs.
func Median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
