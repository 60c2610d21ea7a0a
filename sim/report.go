package sim

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/bloomcast/bloomcast/cache"
)

// The reports below are the simulations' results in the form that
// bloomcast's --json output prints: flat rows of measured and derived
// figures with stable JSON field names, so that a program running a
// simulation itself can write or read the same objects as the command.

// ParseModes reads a comma-separated list of cluster modes: names that
// ParseMode accepts, "all" for DefaultModes and "summary" for
// SummaryModes; spaces around a name are ignored.
func ParseModes(list string) ([]Mode, error) {
	var ms []Mode
	for _, s := range strings.Split(list, ",") {
		switch s = strings.TrimSpace(s); s {
		case "all":
			ms = append(ms, DefaultModes()...)
		case "summary":
			ms = append(ms, SummaryModes()...)
		default:
			m, err := ParseMode(s)
			if err != nil {
				return nil, err
			}
			ms = append(ms, m)
		}
	}
	return ms, nil
}

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
}

// NewClusterReport sets the results of ReplayCluster(cfg) side by side.
// The trace's source and seed are the caller's to fill in.
func NewClusterReport(cfg ClusterConfig, results []ClusterResult) *ClusterReport {
	r := &ClusterReport{CacheFraction: cfg.CacheFraction, CompressedMemory: cfg.CompressedMemory}
	if t := cfg.Trace; t != nil {
		r.Nodes = t.Proxies
		r.Trace = TraceSummary{Requests: len(t.Requests), Clients: t.Clients, Objects: t.Objects,
			UniqueBytes: t.UniqueBytes, SkippedMethod: t.SkippedMethod, SkippedStatus: t.SkippedStatus,
			Malformed: t.Malformed}
	}
	var icp *ClusterResult
	for i := range results {
		if results[i].Mode.Route == cache.RouteICP {
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
			PropagationLate: x.PropagationLate}
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

// TracebackReport is Traceback's results with their derived figures,
// one row per topology and rate. NewTracebackReport builds one; the zero
// value is an empty report.
type TracebackReport struct {
	Seed    uint64         `json:"seed"`
	Attacks int            `json:"attacks"`
	Traffic int            `json:"packets_per_second"`
	Windows int            `json:"windows"`
	Ring    int            `json:"ring_windows"`
	Results []TracebackRow `json:"results"`
}

// TracebackRow is one TracebackResult and its derived figures. The zero
// value is an empty row.
type TracebackRow struct {
	Topology                string  `json:"topology"`
	Routers                 int     `json:"routers"`
	Links                   int     `json:"links"`
	MaxDegree               int     `json:"max_degree"`
	P                       float64 `json:"p"`
	PathRouters             float64 `json:"path_routers"`
	Queries                 float64 `json:"queries_per_attack"`
	NegativeQueries         int     `json:"negative_queries"`
	FalseBranches           int     `json:"false_branches"`
	ExpectedFalseBranches   float64 `json:"expected_false_branches"`
	ModelFalseBranches      float64 `json:"model_false_branches"`
	StdError                float64 `json:"std_error"`
	FalseBranchesPerAttack  float64 `json:"false_branches_per_attack"`
	ExpectedPerAttack       float64 `json:"expected_false_branches_per_attack"`
	Successes               int     `json:"successes"`
	SuccessRate             float64 `json:"success_rate"`
	ExpectedSuccessRate     float64 `json:"expected_success_rate"`
	BytesPerRouterSecond    float64 `json:"bytes_per_router_second"`
	MaxBytesPerRouterSecond int     `json:"max_bytes_per_router_second"`
	BitsPerPacket           float64 `json:"bits_per_packet"`
	RingBytesPerRouter      float64 `json:"ring_bytes_per_router"`
}

// NewTracebackReport sets out the results of Traceback(cfg).
func NewTracebackReport(cfg TracebackConfig, rs []TracebackResult) *TracebackReport {
	r := &TracebackReport{Seed: cfg.Seed, Attacks: cfg.Attacks, Traffic: cfg.Traffic,
		Windows: DefaultWindows, Ring: DefaultRing}
	for _, x := range rs {
		r.Results = append(r.Results, TracebackRow{
			Topology: x.Topology, Routers: x.Routers, Links: x.Links, MaxDegree: x.MaxDegree,
			P: x.P, PathRouters: x.PathRouters, Queries: x.Queries,
			NegativeQueries: x.NegativeQueries, FalseBranches: x.FalseBranches,
			ExpectedFalseBranches: x.ExpectedFalseBranches, ModelFalseBranches: x.ModelFalseBranches,
			StdError: x.StdError(), FalseBranchesPerAttack: x.FalseBranchesPerAttack(),
			ExpectedPerAttack: x.ExpectedPerAttack(), Successes: x.Successes,
			SuccessRate: x.SuccessRate(), ExpectedSuccessRate: x.ExpectedSuccessRate(),
			BytesPerRouterSecond: x.BytesPerRouterSecond, MaxBytesPerRouterSecond: x.MaxBytesPerRouterSecond,
			BitsPerPacket: x.BitsPerPacket, RingBytesPerRouter: x.BytesPerRouterSecond * float64(x.Ring),
		})
	}
	return r
}

// LoopReport is LoopDetection's results for several filter sizes, with
// their derived figures. NewLoopReport builds one; the zero value is an
// empty report.
type LoopReport struct {
	Seed         uint64    `json:"seed"`
	LoopFraction float64   `json:"loop_fraction"`
	Results      []LoopRow `json:"results"`
}

// LoopRow is one LoopResult and its derived figures. The zero value is
// an empty row.
type LoopRow struct {
	Bits                  int            `json:"bits"`
	K                     int            `json:"k"`
	Hops                  int            `json:"hops"`
	HeaderBytes           int            `json:"header_bytes"`
	RouteRecordBytes      int            `json:"route_record_bytes"`
	Packets               int            `json:"packets"`
	LoopFree              int            `json:"loop_free"`
	FalseAlarms           int            `json:"false_alarms"`
	FalseAlarmRate        float64        `json:"false_alarm_rate"`
	PathFalseAlarm        float64        `json:"model_false_alarm_rate"`
	ClassicPathFalseAlarm float64        `json:"classic_false_alarm_rate"`
	StdError              float64        `json:"std_error"`
	Looped                int            `json:"looped"`
	Detected              int            `json:"detected_at_loop"`
	EarlyAlarms           int            `json:"early_alarms"`
	ExpectedEarlyAlarms   float64        `json:"expected_early_alarms"`
	Missed                int            `json:"missed"`
	DetectionRate         float64        `json:"detection_rate"`
	LoopedRouters         float64        `json:"looped_packet_routers"`
	TTL                   int            `json:"ttl"`
	Checks                []LoopCheckRow `json:"checks"`
}

// LoopCheckRow is a LoopCheck in a LoopRow. The zero value is an empty
// row.
type LoopCheckRow struct {
	Masks   int     `json:"masks"`
	Checks  int     `json:"checks"`
	Alarms  int     `json:"alarms"`
	Model   float64 `json:"model"`
	Classic float64 `json:"classic"`
}

// NewLoopReport sets out LoopDetection's results; seed and loopFraction
// are the runs' LoopConfig.Seed and LoopFraction (NoLoops, or any
// negative value, is reported as 0).
func NewLoopReport(seed uint64, loopFraction float64, rs []LoopResult) *LoopReport {
	r := &LoopReport{Seed: seed, LoopFraction: max(loopFraction, 0)}
	for _, x := range rs {
		row := LoopRow{Bits: x.Bits, K: x.K, Hops: x.Hops, HeaderBytes: x.HeaderBytes,
			RouteRecordBytes: x.RouteRecordBytes, Packets: x.Packets, LoopFree: x.LoopFree,
			FalseAlarms: x.FalseAlarms, FalseAlarmRate: x.FalseAlarmRate(),
			PathFalseAlarm: x.PathFalseAlarm, ClassicPathFalseAlarm: x.ClassicPathFalseAlarm,
			StdError: x.StdError(), Looped: x.Looped, Detected: x.Detected,
			EarlyAlarms: x.EarlyAlarms, ExpectedEarlyAlarms: x.ExpectedEarlyAlarms,
			Missed: x.Missed, DetectionRate: x.DetectionRate(), LoopedRouters: x.LoopedRouters, TTL: x.TTL}
		for _, c := range x.Checks {
			row.Checks = append(row.Checks, LoopCheckRow(c))
		}
		r.Results = append(r.Results, row)
	}
	return r
}

// CompressRow is a CompressionTrial's result as one row: the shape, the
// digests' sizes against m·H(p) plus the frame, and the false-positive
// rate measured against (1 − p)^k. The zero value is an empty row.
type CompressRow struct {
	N             int            `json:"n"`
	BitsPerKey    float64        `json:"bits_per_key"`
	K             int            `json:"k"`
	M             uint64         `json:"m"`
	Trials        int            `json:"trials"`
	P0            float64        `json:"p0"`
	IdealBytes    float64        `json:"ideal_bytes"` // m·H(p)/8
	FrameBytes    int            `json:"frame_bytes"`
	MeanBytes     float64        `json:"mean_bytes"`
	StdBytes      float64        `json:"std_bytes"`
	MinBytes      float64        `json:"min_bytes"`
	MaxBytes      float64        `json:"max_bytes"`
	MeanOverIdeal float64        `json:"mean_over_ideal"` // mean / (ideal + frame)
	Codecs        map[string]int `json:"codecs"`
	PredictedFP   float64        `json:"predicted_fp"`
	MeasuredFP    float64        `json:"measured_fp"`
	FPStdErr      float64        `json:"fp_std_err"`
}

// Row returns r as a CompressRow.
func (r CompressResult) Row() CompressRow {
	return CompressRow{N: r.Config.N, BitsPerKey: r.Config.BitsPerKey, K: r.Config.K, M: r.M, Trials: r.Config.Trials,
		P0: r.P0, IdealBytes: r.IdealBytes, FrameBytes: r.FrameBytes, MeanBytes: r.MeanBytes, StdBytes: r.StdBytes,
		MinBytes: r.MinBytes, MaxBytes: r.MaxBytes, MeanOverIdeal: r.MeanOverIdeal(), Codecs: r.Codecs,
		PredictedFP: r.PredictedFP, MeasuredFP: r.MeasuredFP, FPStdErr: r.FPStdErr}
}

// ParseCompressShape reads a compressed-filter shape written "m/n:k", such
// as "48:3" (48 bits per key, 3 probes), as CompressConfig takes it.
func ParseCompressShape(s string) (bitsPerKey float64, k int, err error) {
	a, b, ok := strings.Cut(s, ":")
	bitsPerKey, err1 := strconv.ParseFloat(a, 64)
	k, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("%q is not m/n:k (e.g. 48:3)", s)
	}
	return bitsPerKey, k, nil
}

// LayoutTrialReport is a LayoutTrial's results with the trial's settings.
// NewLayoutTrialReport builds one; the zero value is an empty report.
type LayoutTrialReport struct {
	Keys       int              `json:"keys"`
	NonMembers int              `json:"non_members"`
	P          float64          `json:"p"`
	Seed       uint64           `json:"seed"`
	Results    []LayoutTrialRow `json:"results"`
}

// LayoutTrialRow is one LayoutResult. The zero value is an empty row.
type LayoutTrialRow struct {
	Layout                     string  `json:"layout"`
	M                          uint64  `json:"m"`
	K                          int     `json:"k"`
	BlockBits                  uint64  `json:"block_bits"`
	BitsPerKey                 float64 `json:"bits_per_key"`
	PredictedFalsePositiveRate float64 `json:"predicted_false_positive_rate"`
	MeasuredFalsePositiveRate  float64 `json:"measured_false_positive_rate"`
	FalsePositives             int     `json:"false_positives"`
	StdError                   float64 `json:"std_error"`
	FillRatio                  float64 `json:"fill_ratio"`
	AddNsPerKey                float64 `json:"add_ns_per_key"`
	QueryNsPerKey              float64 `json:"query_ns_per_key"`
	EncodedBytes               int     `json:"encoded_bytes"`
}

// NewLayoutTrialReport sets out the results of LayoutTrial(cfg); cfg's
// zero Keys and P read as LayoutTrial reads them.
func NewLayoutTrialReport(cfg LayoutTrialConfig, results []LayoutResult) *LayoutTrialReport {
	if cfg.Keys == 0 {
		cfg.Keys = DefaultTrialKeys
	}
	if cfg.P == 0 {
		cfg.P = DefaultTrialP
	}
	r := &LayoutTrialReport{Keys: cfg.Keys, NonMembers: cfg.Keys, P: cfg.P, Seed: cfg.Seed}
	for _, x := range results {
		r.Results = append(r.Results, LayoutTrialRow{
			Layout: x.Shape.Layout.String(), M: x.Shape.M, K: x.Shape.K, BlockBits: x.Shape.BlockBits,
			BitsPerKey: x.BitsPerKey, PredictedFalsePositiveRate: x.Predicted, MeasuredFalsePositiveRate: x.Measured,
			FalsePositives: x.FalsePositives, StdError: x.StdError(), FillRatio: x.FillRatio,
			AddNsPerKey: x.AddNanos, QueryNsPerKey: x.QueryNanos, EncodedBytes: x.EncodedBytes,
		})
	}
	return r
}
