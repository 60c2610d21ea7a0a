package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/internal/report"
	"github.com/bloomcast/bloomcast/node"
)

// exampleCluster is a hand-made report of a replay through 4 nodes, with
// polled digests.
func exampleCluster() *report.ClusterReport {
	return &report.ClusterReport{
		Trace: report.TraceSummary{Source: "access.log", Requests: 1000, Clients: 8, Objects: 400, UniqueBytes: 4 << 20,
			SkippedMethod: 3, SkippedStatus: 2, Malformed: 1},
		Nodes: 4, CacheFraction: 0.1, CacheBytes: 420 << 10,
		Results: []report.ClusterRow{
			{Mode: string(node.RouteICP), HitRatio: 0.5, RemoteHitRatio: 0.2, QueryMessages: 6000, ObjectMessages: 200,
				ICPBytes: 300_000, ObjectBytes: 1 << 20, CPUSeconds: 1.25},
			{Mode: "sc-1%-16b-comp-delta", HitRatio: 0.49, RemoteHitRatio: 0.19, FalseHits: 7, QueryMessages: 600,
				QueryMsgsVsICP: 0.1, ObjectMessages: 190, DigestBytes: 30_000, ObjectBytes: 1 << 20,
				ControlBytesVsICP: 0.1, HitRatioLossVsICP: 0.02, CPUSeconds: 1, CPUVsICP: 0.8,
				DigestBitsPerEntry: 37.4, DigestK: 3, DigestFalsePos: 0.0007, Capacity: 60, CacheObjects: 55,
				FullDigestBytes: 190, Publications: 100, FullFetches: 12, DeltaFetches: 88, DigestFetches: 100,
				Transport: node.TransportHTTP, DigestMessagesPerMin: 144, DigestBytesPerMin: 28 << 10,
				Propagated: 90, PropagationMeanSeconds: 7.85, PropagationMaxSeconds: 9.99},
		},
	}
}

func TestClusterReportWriteText(t *testing.T) {
	out := checkText(t, exampleCluster(),
		"bloomcast simulate: access.log (1000 requests, 8 clients, 400 objects, 4.0 MiB) through 4 nodes, each caching 420.0 KiB (10.0% of the unique bytes)\n",
		"skipped log lines: 3 not GET, 2 unsuccessful, 1 malformed\n",
		"10.0× fewer", "2.00%", "80.0%", // query messages, hit loss, CPU against ICP
		"0.0007000", "300 B", // the digest table: est. fp, bytes per update
		"7.85 s trace", "9.99 s trace", // the transport table
		"one peer fetching a new digest or delta.\n")
	for _, line := range strings.Split(strings.TrimSpace(out[strings.LastIndex(out, "\n\n"):]), "\n") {
		if len([]rune(line)) > 76 {
			t.Errorf("notes line longer than 76: %q", line)
		}
	}
	// Without summary-cache modes there is neither digest nor transport table.
	r := exampleCluster()
	r.Results = r.Results[:1]
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "full digest") || strings.Contains(b.String(), "digest msgs/min") {
		t.Errorf("digest or transport table for ICP alone:\n%s", b.String())
	}
}
