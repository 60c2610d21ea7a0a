package report

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/bloomcast/bloomcast/internal/textfmt"
)

// WriteText writes r as "bloomcast sim traceback" prints it: a line on
// the attacks, traffic and digest ring; a table of each topology and
// rate's attack paths, false branches and success, measured and expected
// (Snoeren et al., SPIE, SIGCOMM 2001), and digest memory;
// then what the columns mean and whether measured and expected agree.
func (r *TracebackReport) WriteText(w io.Writer) error {
	tw := textfmt.NewWriter(w)
	tw.Printf("bloomcast sim traceback: %d attacks per topology and rate, %d packets/s, ring of %d one-second windows, seed %d\n\n",
		r.Attacks, r.Traffic, r.Ring, r.Seed)
	var t textfmt.Table
	t.Add("topology", "routers", "links", "max deg", "target p", "path", "queries",
		"false br.", "expected", "success", "expected", "digest/router/s", "bits/pkt")
	worst := 0.0 // largest gap between measured and expected, in standard errors
	for _, x := range r.Results {
		t.Add(x.Topology, strconv.Itoa(x.Routers), strconv.Itoa(x.Links), strconv.Itoa(x.MaxDegree),
			strconv.FormatFloat(x.P, 'g', -1, 64),
			textfmt.Float(x.PathRouters, 2),
			textfmt.Float(x.Queries, 1),
			textfmt.Float(x.FalseBranchesPerAttack, 4),
			textfmt.Float(x.ExpectedPerAttack, 4),
			textfmt.Percent(x.SuccessRate), textfmt.Percent(x.ExpectedSuccessRate),
			textfmt.Bytes(int64(math.Round(x.BytesPerRouterSecond))),
			textfmt.Float(x.BitsPerPacket, 2))
		if x.StdError > 0 {
			worst = max(worst, math.Abs(float64(x.FalseBranches)-x.ExpectedFalseBranches)/x.StdError)
		}
	}
	tw.Write(&t)
	text := fmt.Sprintf(`"path" is the mean number of routers an attack packet crossed and "queries" the routers asked per traced packet. "false br." counts, per attack, the routers off the path that answered yes and joined the attack graph; "expected" sums the false-positive rate of every digest asked that had not seen the packet, computed from its bits. %s. "success" is the share of attacks whose graph was exactly the path, so the source was found with no false lead; its "expected" is the mean over attacks of the product of (1−f) over the path's neighbours. A router's digests hold %d windows, so its memory is %d times the digest per second; the busiest routers need the most.`,
		gapSentence(worst, "expected"), r.Ring, r.Ring)
	tw.Printf("\n%s\n", textfmt.Wrap(text, 76))
	return tw.Err()
}

// gapSentence describes the largest gap between the measured figures and
// the theory's, in standard errors: within sampling noise up to 4.
func gapSentence(worst float64, theory string) string {
	if worst <= 4 {
		return fmt.Sprintf("Measured and %s agree within sampling noise (largest gap %.1f standard errors)", theory, worst)
	}
	return fmt.Sprintf("The largest gap between measured and %s is %.1f standard errors, more than sampling noise explains", theory, worst)
}
