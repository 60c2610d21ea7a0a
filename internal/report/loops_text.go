package report

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/bloomcast/bloomcast/internal/textfmt"
)

// WriteText writes r as "bloomcast sim loops" prints it: a line on the
// packets, routers and loops; a table of each filter size's false alarms
// against the exact model and the classic estimate, and its loops caught
// (Whitaker and Wetherall, "Forwarding without loops in Icarus", 2002); a
// table of the false-alarm rate at each new router; then what the
// columns mean. An empty report writes nothing.
func (r *LoopReport) WriteText(w io.Writer) error {
	if len(r.Results) == 0 {
		return nil
	}
	tw := textfmt.NewWriter(w)
	first := r.Results[0]
	tw.Printf("bloomcast sim loops: %d packets per filter size over %d routers, %s with a loop, seed %d\n\n",
		first.Packets, first.Hops, textfmt.Percent(r.LoopFraction), r.Seed)
	var t textfmt.Table
	t.Add("bits", "k", "header", "false alarms", "model", "classic", "loops caught", "early", "routers/loop")
	worst := 0.0
	for _, x := range r.Results {
		t.Add(strconv.Itoa(x.Bits), strconv.Itoa(x.K), strconv.Itoa(x.HeaderBytes)+" B",
			textfmt.Rate(x.FalseAlarmRate), textfmt.Rate(x.PathFalseAlarm), textfmt.Rate(x.ClassicPathFalseAlarm),
			textfmt.Percent(x.DetectionRate), strconv.Itoa(x.EarlyAlarms),
			textfmt.Float(x.LoopedRouters, 1))
		if x.StdError > 0 {
			worst = max(worst, math.Abs(x.FalseAlarmRate-x.PathFalseAlarm)/x.StdError)
		}
	}
	tw.Write(&t)
	tw.Println()
	tw.Write(r.checkTable())
	text := fmt.Sprintf(`"false alarms" is the share of loop-free packets dropped as looped; "model" is the exact probability for masks of k distinct bits, "classic" the textbook Bloom-filter estimate (1−e^(−kh/m))^k per router, which treats a mask's k bits as independent throws and forgets that a packet still travelling has passed its earlier checks. %s. A Bloom filter has no false negatives, so every looped packet is caught, at the latest when it returns to a router ("early" counts those stopped sooner by a false alarm); a looped packet crossed %s routers on average instead of the %d its TTL would allow. The filter costs the header bytes shown in every packet, where recording the %d routers' IPv4 addresses would take %d bytes. The table above gives the false-alarm rate at each new router, measured and modelled.`,
		gapSentence(worst, "model"), textfmt.Float(first.LoopedRouters, 1), first.TTL,
		first.Hops, first.RouteRecordBytes)
	tw.Printf("\n%s\n", textfmt.Wrap(text, 76))
	return tw.Err()
}

// checkTable is the false-alarm rate at each new router: one row per
// number of masks already in the filter, measured and model for each
// filter size.
func (r *LoopReport) checkTable() *textfmt.Table {
	rs := r.Results
	var t textfmt.Table
	head := []string{"routers passed"}
	for _, x := range rs {
		head = append(head, fmt.Sprintf("%d bits", x.Bits), "model")
	}
	t.Add(head...)
	for i := range rs[0].Checks {
		row := []string{strconv.Itoa(rs[0].Checks[i].Masks)}
		for _, x := range rs {
			c := x.Checks[i]
			row = append(row, textfmt.Rate(float64(c.Alarms)/float64(max(c.Checks, 1))), textfmt.Rate(c.Model))
		}
		t.Add(row...)
	}
	return &t
}
