package report

import (
	"github.com/bloomcast/bloomcast/sim/replay"

	"github.com/bloomcast/bloomcast/node"
)

// The reports below are the simulations' results in the form that
// bloomcast's --json output prints: flat rows of measured and derived
// figures with stable JSON field names, so that a program running a
// simulation itself can write or read the same objects as the command.

// ClusterReport is a cluster replay's results set side by side, each mode
// against ICP's (Fan et al., "Summary cache", compare the summary cache
// with ICP in hit ratio, messages and bytes). NewClusterReport builds
// one; the zero value is an empty report, ready to fill.
type ClusterReport struct {
	Trace         TraceSummary `json:"trace"`
	Nodes         int          `json:"nodes"`
	CacheFraction float64      `json:"cache_fraction"`
	// CompressedMemory caps compressed digests' arrays, in raw digests'
	// bits (ClusterConfig.CompressedMemory as given; 0: the default).
	CompressedMemory float64      `json:"compressed_memory,omitempty"`
	CacheBytes       int64        `json:"cache_bytes_per_node"`
	Results          []ClusterRow `json:"results"`
}

// TraceSummary describes the trace a cluster replayed. The zero value is
// an empty trace's.
type TraceSummary struct {
	Source        string `json:"source"` // a file name, or "synthetic"
	Requests      int    `json:"requests"`
	Clients       int    `json:"clients"`
	Objects       int    `json:"objects"`
	UniqueBytes   int64  `json:"unique_bytes"`
	SkippedMethod int    `json:"skipped_method,omitempty"`
	SkippedStatus int    `json:"skipped_status,omitempty"`
	Malformed     int    `json:"malformed,omitempty"`
	Seed          uint64 `json:"seed,omitempty"` // a synthetic trace's
}

// ClusterRow is one mode's ClusterResult, with its derived figures and
// its ratios to ICP's (0 when the replay had no ICP mode). The zero value
// is an empty row.
type ClusterRow struct {
	Mode               string  `json:"mode"`
	HitRatio           float64 `json:"hit_ratio"`
	RemoteHitRatio     float64 `json:"remote_hit_ratio"`
	LocalHits          uint64  `json:"local_hits"`
	RemoteHits         uint64  `json:"remote_hits"`
	Misses             uint64  `json:"misses"`
	FalseHits          uint64  `json:"false_hits"`
	QueryMessages      uint64  `json:"query_messages"`
	ObjectMessages     uint64  `json:"object_messages"`
	ICPMessages        uint64  `json:"icp_messages"`
	DigestFetches      uint64  `json:"digest_fetches"`
	FullFetches        uint64  `json:"full_digest_fetches"`
	DeltaFetches       uint64  `json:"delta_fetches"`
	Publications       uint64  `json:"publications"`
	DigestBytes        uint64  `json:"digest_bytes"`
	FullDigestBody     uint64  `json:"full_digest_body_bytes"`
	DeltaBody          uint64  `json:"delta_body_bytes"`
	ICPBytes           uint64  `json:"icp_bytes"`
	ObjectBytes        uint64  `json:"object_bytes"`
	ControlBytes       uint64  `json:"control_bytes"`
	HitRatioLossVsICP  float64 `json:"hit_ratio_loss_vs_icp"`
	QueryMsgsVsICP     float64 `json:"query_messages_vs_icp"`
	ControlBytesVsICP  float64 `json:"control_bytes_vs_icp"`
	DigestBitsPerEntry float64 `json:"digest_bits_per_entry,omitempty"`
	DigestK            int     `json:"digest_k,omitempty"`
	Capacity           uint64  `json:"digest_capacity"`
	CacheObjects       float64 `json:"cache_objects"`
	FullDigestBytes    float64 `json:"full_digest_bytes,omitempty"`
	DigestFalsePos     float64 `json:"digest_false_positive_rate,omitempty"`
	Seconds            float64 `json:"seconds"`
	CPUSeconds         float64 `json:"cpu_seconds"`
	CPUVsICP           float64 `json:"cpu_seconds_vs_icp,omitempty"`
	// How digests travelled (ClusterResult.Transport; empty: fetched at
	// once; and ClusterResult.PushInterval), the digest messages and bytes per minute of trace time, and
	// the publications' propagation to every peer.
	Transport              string  `json:"transport,omitempty"`
	PushIntervalSeconds    float64 `json:"push_interval_seconds,omitempty"`
	DigestMessagesPerMin   float64 `json:"digest_messages_per_minute,omitempty"`
	DigestBytesPerMin      float64 `json:"digest_bytes_per_minute,omitempty"`
	Propagated             uint64  `json:"propagated,omitempty"`
	PropagationMeanSeconds float64 `json:"propagation_mean_seconds,omitempty"`
	PropagationMaxSeconds  float64 `json:"propagation_max_seconds,omitempty"`
	PropagationLate        uint64  `json:"propagation_late,omitempty"`

	// A static mode's views (ClusterResult.AbsentLookups, ...): lookups
	// of keys absent from the peer's published set, those answered
	// present, and the number expected from the views' predicted rates.
	AbsentLookups           uint64  `json:"absent_lookups,omitempty"`
	DigestFalsePositives    uint64  `json:"digest_false_positives,omitempty"`
	PredictedFalsePositives float64 `json:"predicted_false_positives,omitempty"`
}

// NewClusterReport sets the results of ReplayCluster(cfg) side by side.
// The trace's source and seed are the caller's to fill in.
func NewClusterReport(cfg replay.ClusterConfig, results []replay.ClusterResult) *ClusterReport {
	r := &ClusterReport{CacheFraction: cfg.CacheFraction, CompressedMemory: cfg.CompressedMemory}
	if t := cfg.Trace; t != nil {
		r.Nodes = t.Proxies
		r.Trace = TraceSummary{Requests: len(t.Requests), Clients: t.Clients, Objects: t.Objects,
			UniqueBytes: t.UniqueBytes, SkippedMethod: t.SkippedMethod, SkippedStatus: t.SkippedStatus,
			Malformed: t.Malformed}
	}
	var icp *replay.ClusterResult
	for i := range results {
		if results[i].Mode.Route == node.RouteICP {
			icp = &results[i]
			break
		}
	}
	for _, x := range results {
		r.CacheBytes = x.CacheBytes
		row := ClusterRow{Mode: x.Mode.String(), HitRatio: x.HitRatio(), RemoteHitRatio: x.RemoteHitRatio(),
			LocalHits: x.LocalHits, RemoteHits: x.RemoteHits, Misses: x.Misses, FalseHits: x.FalseHits,
			QueryMessages: x.QueryMessages(), ObjectMessages: x.ObjectMessages(), ICPMessages: x.ICPQueries + x.ICPReplies,
			DigestFetches: x.FullFetches + x.DeltaFetches, FullFetches: x.FullFetches, DeltaFetches: x.DeltaFetches,
			Publications: x.Publications, DigestBytes: x.DigestBytes, FullDigestBody: x.FullDigestBodyBytes,
			DeltaBody: x.DeltaBodyBytes, ICPBytes: x.ICPBytes, ObjectBytes: x.ObjectBytes, ControlBytes: x.ControlBytes(),
			DigestBitsPerEntry: x.DigestBitsPerEntry, DigestK: x.DigestK, Capacity: x.Capacity,
			CacheObjects: x.CacheObjects, FullDigestBytes: x.FullDigestBytes, DigestFalsePos: x.DigestFalsePos,
			Seconds: x.Elapsed.Seconds(), CPUSeconds: x.CPU.Seconds(), Transport: x.Transport,
			PushIntervalSeconds: x.PushInterval.Seconds(),
			Propagated:          x.Propagated, PropagationMeanSeconds: x.PropagationMean.Seconds(), PropagationMaxSeconds: x.PropagationMax.Seconds(),
			PropagationLate: x.PropagationLate, AbsentLookups: x.AbsentLookups, DigestFalsePositives: x.DigestFalsePositives,
			PredictedFalsePositives: x.PredictedFalsePositives}
		if x.Transport != "" && x.TraceSeconds > 0 {
			row.DigestMessagesPerMin = float64(x.DigestMessages) * 60 / x.TraceSeconds
			row.DigestBytesPerMin = float64(x.DigestMessageBytes) * 60 / x.TraceSeconds
		}
		if icp != nil {
			row.HitRatioLossVsICP = x.HitRatioLoss(*icp)
			row.QueryMsgsVsICP = ratioOf(x.QueryMessages(), icp.QueryMessages())
			row.ControlBytesVsICP = ratioOf(x.ControlBytes(), icp.ControlBytes())
			if icp.CPU > 0 {
				row.CPUVsICP = x.CPU.Seconds() / icp.CPU.Seconds()
			}
		}
		r.Results = append(r.Results, row)
	}
	return r
}

func ratioOf(a, b uint64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
