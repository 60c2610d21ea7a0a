package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/bloomcast/bloomcast/internal/textfmt"
	"github.com/bloomcast/bloomcast/node"
)

// clusterNotes explains ClusterReport.WriteText's columns.
const clusterNotes = `"hit" is the share of requests served from a cache, the node's own or a peer's ("remote"). A false hit is a request sent to a peer whose digest said maybe but which did not hold the object (it answers 504 to only-if-cached), so the node went on to the next peer or the origin. "query msgs" are the inter-node messages spent finding objects: ICP queries and replies; for the summary cache, each digest fetch and each false hit (request and response). "object msgs" carry objects from peers. Bytes: digests as served (HTTP header and body), ICP messages, objects fetched from peers; "control vs ICP" compares digests plus ICP bytes with ICP's, and "hit loss" is the relative loss of hit ratio against ICP. "CPU s" is the CPU time (user and system) of the process during the mode's replay: the nodes', plus the origin's and the replay's, which every mode shares; "CPU vs ICP" sets it against ICP's. In the digest table, m/n and k are the digest's shape (a compressed digest has the params optimiser's shape for the raw digest's false-positive rate), "est. fp" the rate estimated from its fill at the end, and each update is one peer fetching a new digest or delta.`

// staticNotes explains the static modes' figures, printed when there is
// one.
const staticNotes = `A static mode (sc-T%-Bb-static) publishes at the same threshold a static digest at the raw B-bit digest's false-positive rate: a ribbon filter of the cache's keys, then Bloom-filter deltas of the keys added and removed since, or a new ribbon when that is smaller (digest.StaticPublisher). Each frame reaches every peer at once without HTTP, so its digest bytes are the frames alone; an update is one peer applying one; m/n is the whole frame's bits per key its ribbon holds, and "est. fp" the peers' views' predicted rate at the end.`

// WriteText writes r as "bloomcast simulate" prints it: a line on the
// trace and the nodes; a table of each mode's hit ratios, messages and
// bytes against ICP's (Fan et al., "Summary cache"); for
// the summary-cache modes, a table of the digests' shapes and updates,
// and for the modes whose digests were polled or pushed, their traffic
// per minute and propagation times; then what the columns mean.
func (r *ClusterReport) WriteText(w io.Writer) error {
	tw := textfmt.NewWriter(w)
	tr := r.Trace
	what := fmt.Sprintf("%s (%d requests", tr.Source, tr.Requests)
	if tr.Source == "synthetic" {
		what = fmt.Sprintf("a synthetic trace (seed %d, %d requests", tr.Seed, tr.Requests)
	}
	tw.Printf("bloomcast simulate: %s, %d clients, %d objects, %s) through %d nodes, each caching %s (%s of the unique bytes)\n",
		what, tr.Clients, tr.Objects, textfmt.Bytes(tr.UniqueBytes), r.Nodes, textfmt.Bytes(r.CacheBytes), textfmt.Percent(r.CacheFraction))
	if tr.SkippedMethod+tr.SkippedStatus+tr.Malformed > 0 {
		tw.Printf("skipped log lines: %d not GET, %d unsuccessful, %d malformed\n", tr.SkippedMethod, tr.SkippedStatus, tr.Malformed)
	}
	tw.Println()
	tw.Write(r.modeTable())
	if d, rows := r.digestTable(); rows > 0 {
		tw.Println()
		tw.Write(d)
	}
	if t, rows := r.transportTable(); rows > 0 {
		tw.Println()
		tw.Write(t)
	}
	tw.Printf("\n%s\n", textfmt.Wrap(clusterNotes, 76))
	for _, x := range r.Results {
		if strings.HasSuffix(x.Mode, "-static") {
			tw.Printf("\n%s\n", textfmt.Wrap(staticNotes, 76))
			break
		}
	}
	return tw.Err()
}

// modeTable is every mode's hit ratios, messages, bytes and CPU time,
// each set against ICP's.
func (r *ClusterReport) modeTable() *textfmt.Table {
	hasICP := false
	for _, x := range r.Results {
		hasICP = hasICP || x.Mode == string(node.RouteICP)
	}
	var t textfmt.Table
	t.Add("mode", "hit", "remote", "false hits", "query msgs", "vs ICP", "object msgs", "digests", "ICP", "objects", "control vs ICP", "hit loss", "CPU s", "CPU vs ICP")
	for _, x := range r.Results {
		vsMsgs, vsBytes, loss, vsCPU := "-", "-", "-", "-"
		if x.CPUVsICP > 0 && x.Mode != string(node.RouteICP) {
			vsCPU = textfmt.Percent(x.CPUVsICP)
		}
		if strings.HasPrefix(x.Mode, "sc-") || x.Mode == string(node.RouteNone) {
			if x.QueryMsgsVsICP > 0 {
				vsMsgs = strconv.FormatFloat(1/x.QueryMsgsVsICP, 'f', 1, 64) + "× fewer"
			}
			if x.ControlBytesVsICP > 0 {
				vsBytes = textfmt.Percent(x.ControlBytesVsICP)
			}
		}
		if hasICP && x.Mode != string(node.RouteICP) {
			loss = strconv.FormatFloat(100*x.HitRatioLossVsICP, 'f', 2, 64) + "%"
		}
		t.Add(x.Mode, textfmt.Percent(x.HitRatio), textfmt.Percent(x.RemoteHitRatio), strconv.FormatUint(x.FalseHits, 10),
			strconv.FormatUint(x.QueryMessages, 10), vsMsgs, strconv.FormatUint(x.ObjectMessages, 10),
			textfmt.Bytes(int64(x.DigestBytes)), textfmt.Bytes(int64(x.ICPBytes)), textfmt.Bytes(int64(x.ObjectBytes)), vsBytes, loss,
			textfmt.Float(x.CPUSeconds, 2), vsCPU)
	}
	return &t
}

// digestTable is the summary-cache modes' digest shapes and updates, and
// how many modes it holds.
func (r *ClusterReport) digestTable() (*textfmt.Table, int) {
	var t textfmt.Table
	t.Add("mode", "m/n", "k", "est. fp", "capacity", "objects/node", "full digest", "updates", "full", "delta", "bytes/update")
	rows := 0
	for _, x := range r.Results {
		if !strings.HasPrefix(x.Mode, "sc-") {
			continue
		}
		perUpdate := "-"
		if x.DigestFetches > 0 {
			perUpdate = textfmt.Bytes(int64(x.DigestBytes / x.DigestFetches))
		}
		t.Add(x.Mode, textfmt.Float(x.DigestBitsPerEntry, 1), strconv.Itoa(x.DigestK), textfmt.Rate(x.DigestFalsePos),
			strconv.FormatUint(x.Capacity, 10), textfmt.Float(x.CacheObjects, 0),
			textfmt.Bytes(int64(x.FullDigestBytes)), strconv.FormatUint(x.Publications, 10),
			strconv.FormatUint(x.FullFetches, 10), strconv.FormatUint(x.DeltaFetches, 10), perUpdate)
		rows++
	}
	return &t, rows
}

// transportTable is, for the modes whose digests were polled or pushed
// (ClusterConfig.PollInterval or Transport), their digest traffic per
// minute of trace time and how long a publication took to reach every
// peer, and how many modes it holds.
func (r *ClusterReport) transportTable() (*textfmt.Table, int) {
	var t textfmt.Table
	t.Add("mode", "transport", "nodes", "digest msgs/min", "digest bytes/min", "publications", "to every peer: mean", "max", "late")
	rows := 0
	for _, x := range r.Results {
		if x.Transport == "" {
			continue
		}
		unit, tr := "s trace", x.Transport
		switch {
		case x.PushIntervalSeconds > 0:
			tr += "/" + time.Duration(x.PushIntervalSeconds*float64(time.Second)).String()
		case x.Transport != node.TransportHTTP:
			unit = "s wall"
		}
		secs := func(v float64) string { return strconv.FormatFloat(v, 'g', 3, 64) + " " + unit }
		t.Add(x.Mode, tr, strconv.Itoa(r.Nodes), textfmt.Float(x.DigestMessagesPerMin, 0),
			textfmt.Bytes(int64(x.DigestBytesPerMin)), strconv.FormatUint(x.Propagated, 10),
			secs(x.PropagationMeanSeconds), secs(x.PropagationMaxSeconds), strconv.FormatUint(x.PropagationLate, 10))
		rows++
	}
	return &t, rows
}
