package report_test

import (
	"os"

	"github.com/bloomcast/bloomcast/internal/report"
)

// The tables "bloomcast simulate" prints, for a report of a replay
// through 4 nodes with ICP and one summary-cache mode (the figures made
// up; report.NewClusterReport builds a real one from replay.ReplayCluster's
// results).
func ExampleClusterReport_WriteText() {
	r := &report.ClusterReport{
		Trace: report.TraceSummary{Source: "synthetic", Seed: 1, Requests: 2000, Clients: 64, Objects: 500, UniqueBytes: 4 << 20},
		Nodes: 4, CacheFraction: 0.1, CacheBytes: 420 << 10,
		Results: []report.ClusterRow{
			{Mode: "icp", HitRatio: 0.38, RemoteHitRatio: 0.07, QueryMessages: 9000, ObjectMessages: 260,
				ICPBytes: 450_000, ObjectBytes: 1300 << 10, CPUSeconds: 0.9},
			{Mode: "sc-1%-16b-comp-delta", HitRatio: 0.373, RemoteHitRatio: 0.065, FalseHits: 154, QueryMessages: 356,
				QueryMsgsVsICP: 0.04, ObjectMessages: 260, DigestBytes: 9500, ObjectBytes: 1300 << 10,
				ControlBytesVsICP: 0.021, HitRatioLossVsICP: 0.018, CPUSeconds: 0.8, CPUVsICP: 0.89,
				DigestBitsPerEntry: 37.4, DigestK: 3, DigestFalsePos: 0.00068, Capacity: 47, CacheObjects: 53,
				FullDigestBytes: 185, Publications: 1384, FullFetches: 24, DeltaFetches: 0, DigestFetches: 24},
		},
	}
	if err := r.WriteText(os.Stdout); err != nil {
		panic(err)
	}
	// Output:
	// bloomcast simulate: a synthetic trace (seed 1, 2000 requests, 64 clients, 500 objects, 4.0 MiB) through 4 nodes, each caching 420.0 KiB (10.0% of the unique bytes)
	//
	// mode                    hit  remote  false hits  query msgs       vs ICP  object msgs  digests        ICP  objects  control vs ICP  hit loss  CPU s  CPU vs ICP
	// icp                   38.0%    7.0%           0        9000            -          260      0 B  439.5 KiB  1.3 MiB               -         -   0.90           -
	// sc-1%-16b-comp-delta  37.3%    6.5%         154         356  25.0× fewer          260  9.3 KiB        0 B  1.3 MiB            2.1%     1.80%   0.80       89.0%
	//
	// mode                   m/n  k    est. fp  capacity  objects/node  full digest  updates  full  delta  bytes/update
	// sc-1%-16b-comp-delta  37.4  3  0.0006800        47            53        185 B     1384    24      0         395 B
	//
	// "hit" is the share of requests served from a cache, the node's own or a
	// peer's ("remote"). A false hit is a request sent to a peer whose digest said
	// maybe but which did not hold the object (it answers 504 to only-if-cached),
	// so the node went on to the next peer or the origin. "query msgs" are the
	// inter-node messages spent finding objects: ICP queries and replies; for the
	// summary cache, each digest fetch and each false hit (request and response).
	// "object msgs" carry objects from peers. Bytes: digests as served (HTTP
	// header and body), ICP messages, objects fetched from peers; "control vs ICP"
	// compares digests plus ICP bytes with ICP's, and "hit loss" is the relative
	// loss of hit ratio against ICP. "CPU s" is the CPU time (user and system) of
	// the process during the mode's replay: the nodes', plus the origin's and the
	// replay's, which every mode shares; "CPU vs ICP" sets it against ICP's. In
	// the digest table, m/n and k are the digest's shape (a compressed digest has
	// the params optimiser's shape for the raw digest's false-positive rate),
	// "est. fp" the rate estimated from its fill at the end, and each update is
	// one peer fetching a new digest or delta.
}
