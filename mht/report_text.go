package mht

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/bloomcast/bloomcast/internal/textfmt"
)

// WriteText writes r as "bloomcast mht calc" prints it or, after a
// simulation, as "mht sim" does: the occupancy of each sub-table
// (expected, its standard deviation and the heuristic; or expected
// beside measured, the standard error and z), the crisis probability, a
// table of each summary's bits per item, false-positive, type-failure and
// any-failure rates and buckets touched (calculated, and measured beside
// them), and the figures of Song et al.'s table when it is among the
// summaries.
func (r *Report) WriteText(w io.Writer) error {
	tw := textfmt.NewWriter(w)
	buckets := uint64(0)
	for _, s := range r.Sizes {
		buckets += s
	}
	perItem := float64(buckets) / float64(max(r.N, 1))
	sim := r.Crises != nil && r.MeasProbe != nil && len(r.Measured) == len(r.Calculated)
	f4 := func(v float64) string { return fmt.Sprintf("%.4f", v) }
	f2 := func(v float64) string { return fmt.Sprintf("%.2f", v) }
	var occ textfmt.Table
	if !sim {
		tw.Printf("%d items, %d sub-tables, %.3f buckets per item\n\n", r.N, len(r.Sizes), perItem)
		occ.Add("sub-table", "buckets", "expected", "std dev", "heuristic")
		for i, l := range r.Levels {
			occ.Add(strconv.Itoa(i+1), strconv.FormatUint(l.Buckets, 10), f2(l.Expected), f2(l.StdDev), f2(l.Approx))
		}
		tw.Write(&occ)
		tw.Printf("\ncrisis probability  %s\n\n", textfmt.Rate(r.Crisis))
	} else {
		tw.Printf("%d items, %d sub-tables, %.3f buckets per item; %d trials, %d absent queries each, seed %d\n\n",
			r.N, len(r.Sizes), perItem, r.Trials, r.Queries, r.Seed)
		occ.Add("sub-table", "buckets", "expected", "measured", "std err", "z")
		for i, l := range r.Levels {
			z := 0.0
			if se := l.StdDev / math.Sqrt(max(0, float64(r.Trials))); se > 0 {
				z = (l.Measured - l.Expected) / se
			}
			occ.Add(strconv.Itoa(i+1), strconv.FormatUint(l.Buckets, 10), f2(l.Expected), f2(l.Measured), f2(l.StdErr), fmt.Sprintf("%+.2f", z))
		}
		tw.Write(&occ)
		tw.Printf("\ncrisis probability  %s calculated, %d of %d trials (%d items refused)\n\n", textfmt.Rate(r.Crisis), *r.Crises, r.Trials, r.CrisisItems)
	}
	var t textfmt.Table
	name := func(s Figures) string {
		if s.Estimate {
			return s.Kind.String() + " (est.)"
		}
		return s.Kind.String()
	}
	if !sim {
		t.Add("summary", "bits/item", "false pos.", "type fail.", "any fail.", "touched (in)", "touched (out)")
		t.Add("probe all", "0", "-", "-", "-", f4(r.Probe.TouchedPresent), f4(r.Probe.TouchedAbsent))
		for _, s := range r.Calculated {
			t.Add(name(s), f2(s.BitsPerItem), textfmt.Rate(s.FalsePositive), textfmt.Rate(s.TypeFailure), textfmt.Rate(s.AnyFailure),
				f4(s.TouchedPresent), f4(s.TouchedAbsent))
		}
	} else {
		mp := r.MeasProbe
		t.Add("summary", "bits/item", "false pos.", "measured", "type fail.", "measured", "any fail.", "measured", "touched (in)", "measured", "touched (out)", "measured")
		t.Add("probe all", "0", "-", "-", "-", "-", "-", "-", f4(r.Probe.TouchedPresent), f4(mp.TouchedPresent), f4(r.Probe.TouchedAbsent), f4(mp.TouchedAbsent))
		for i, s := range r.Calculated {
			ms := r.Measured[i]
			t.Add(name(s), f2(s.BitsPerItem), textfmt.Rate(s.FalsePositive), textfmt.Rate(ms.FalsePositive), textfmt.Rate(s.TypeFailure), textfmt.Rate(ms.TypeFailure),
				textfmt.Rate(s.AnyFailure), textfmt.Rate(ms.AnyFailure), f4(s.TouchedPresent), f4(ms.TouchedPresent), f4(s.TouchedAbsent), f4(ms.TouchedAbsent))
		}
	}
	tw.Write(&t)
	for i, s := range r.Calculated {
		if s.Kind != KindSong {
			continue
		}
		var st textfmt.Table
		st.Add("song's table", "items read (in)", "items read (out)", "buckets with 2+ items")
		st.Add("calculated", f4(s.ItemsPresent), f4(s.ItemsAbsent), f2(s.CrowdedBuckets))
		if sim {
			m := r.Measured[i]
			st.Add("measured", f4(m.ItemsPresent), f4(m.ItemsAbsent), f2(m.CrowdedBuckets))
		}
		tw.Printf("\n")
		tw.Write(&st)
		break
	}
	if sim {
		tw.Println("\nmeasured \"any fail.\" is the fraction of trials with a mistyped item or a failed construction\n(song: with a bucket holding two or more items)")
	}
	return tw.Err()
}
