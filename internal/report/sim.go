package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/bloomcast/bloomcast/sim"
)

// The reports below are the simulations' results in the form that
// bloomcast's --json output prints: flat rows of measured and derived
// figures with stable JSON field names, so that a program running a
// simulation itself can write or read the same objects as the command.

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
func NewTracebackReport(cfg sim.TracebackConfig, rs []sim.TracebackResult) *TracebackReport {
	r := &TracebackReport{Seed: cfg.Seed, Attacks: cfg.Attacks, Traffic: cfg.Traffic,
		Windows: sim.DefaultWindows, Ring: sim.DefaultRing}
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
func NewLoopReport(seed uint64, loopFraction float64, rs []sim.LoopResult) *LoopReport {
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

// CompressRowOf returns r as a CompressRow.
func CompressRowOf(r sim.CompressResult) CompressRow {
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
func NewLayoutTrialReport(cfg sim.LayoutTrialConfig, results []sim.LayoutResult) *LayoutTrialReport {
	if cfg.Keys == 0 {
		cfg.Keys = sim.DefaultTrialKeys
	}
	if cfg.P == 0 {
		cfg.P = sim.DefaultTrialP
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
