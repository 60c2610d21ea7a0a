// Package nodestatus is the model of a summary-cache node's status, what
// an operator sees: the node's status page renders it, its status.json
// serves it as JSON, and `bloomcast status` decodes that JSON and prints
// it. docs/STATUS.md describes each field; the JSON names are a format
// other programs read, so they change only on purpose.
package nodestatus

import "time"

// Paths of a node's status page and of the same data as JSON, which
// `bloomcast status` reads. Like /metrics, they answer only clients in
// node.NodeConfig.AllowPeers.
const (
	Path     = "/bloomcast/status"
	JSONPath = "/bloomcast/status.json"
)

// Status is what a node shows an operator: its status page
// (Path) renders it and JSONPath serves it as
// JSON; `bloomcast status` reads the JSON. Every figure comes from what
// the node counts for its Prometheus metrics, read at one moment (each
// counter atomically, the whole not). The zero value is the status of a
// zero node.Node: nothing counted, no peers.
type Status struct {
	Time      time.Time  `json:"time"`
	Node      Node       `json:"node"`
	Requests  Requests   `json:"requests"`
	Digest    Digest     `json:"digest"`
	Transport *Transport `json:"transport,omitempty"`
	Peers     []Peer     `json:"peers"`
}

// Node describes the node itself. The zero value describes a
// zero node.Node.
type Node struct {
	Name          string    `json:"name"`
	Version       string    `json:"version"`
	Started       time.Time `json:"started"`
	UptimeSeconds float64   `json:"uptime_seconds"`
	Listen        string    `json:"listen"`
	// Route is the node's node.Route: "digest", "icp" or "none".
	Route string `json:"route"`
	// Healthy is what /healthz answers; Unhealthy its reason.
	Healthy     bool   `json:"healthy"`
	Unhealthy   string `json:"unhealthy,omitempty"`
	Objects     int    `json:"cache_objects"`
	Bytes       int64  `json:"cache_bytes"`
	BudgetBytes int64  `json:"cache_budget_bytes"`
}

// Counts are client requests by outcome, as
// bloomcast_requests_total counts them, and those that met a false hit
// (bloomcast_false_hit_requests_total). The zero value counts none.
type Counts struct {
	LocalHits uint64 `json:"local_hits"`
	PeerHits  uint64 `json:"peer_hits"`
	Misses    uint64 `json:"misses"`
	Other     uint64 `json:"other"`
	FalseHits uint64 `json:"false_hit_requests"`
}

// Total returns the number of requests counted.
func (c Counts) Total() uint64 { return c.LocalHits + c.PeerHits + c.Misses + c.Other }

// Ratios are shares of all client requests; 0 when there were
// none, as in the zero value.
type Ratios struct {
	Local     float64 `json:"local_hit"`
	Peer      float64 `json:"peer_hit"`
	Miss      float64 `json:"miss"`
	FalseHits float64 `json:"false_hit"`
}

// Ratios returns c's outcomes as shares of its requests.
func (c Counts) Ratios() Ratios {
	t := float64(c.Total())
	if t == 0 {
		return Ratios{}
	}
	return Ratios{Local: float64(c.LocalHits) / t, Peer: float64(c.PeerHits) / t,
		Miss: float64(c.Misses) / t, FalseHits: float64(c.FalseHits) / t}
}

// Minute is one minute of client requests; the zero value is the
// minute of the Unix epoch, with none.
type Minute struct {
	Start time.Time `json:"start"`
	Counts
}

// Requests are the node's client requests since it started, over
// the last hour, and minute by minute over the last hour (oldest first;
// the last minute is the current one, still counting). The zero value
// counts none and charts no minutes.
type Requests struct {
	Total         Counts   `json:"total"`
	LastHour      Counts   `json:"last_hour"`
	LastHourRatio Ratios   `json:"last_hour_ratio"`
	Minutes       []Minute `json:"minutes"`
}

// Digest describes the digest the node publishes to its peers.
// The zero value describes none published.
type Digest struct {
	Sequence  uint64 `json:"sequence"`
	Codec     string `json:"codec"`
	WireBytes int    `json:"wire_bytes"`
	Keys      uint64 `json:"keys"`
	// BitsPerEntry is the configured m/n, HashFunctions its k (0: the
	// best k for it).
	BitsPerEntry      float64   `json:"bits_per_entry"`
	HashFunctions     int       `json:"hash_functions"`
	Fill              float64   `json:"fill_ratio"`
	FalsePos          float64   `json:"false_positive_rate"`
	PredictedFalsePos float64   `json:"predicted_false_positive_rate"`
	TargetFalsePos    float64   `json:"target_false_positive_rate"`
	Published         time.Time `json:"published"`
	AgeSeconds        float64   `json:"age_seconds"`
	MaxAgeSeconds     float64   `json:"max_age_seconds"`
	Pending           uint64    `json:"pending_changes"`
	Capacity          uint64    `json:"capacity"`
	Resizes           uint64    `json:"resizes"`
	// Full is set once Keys has reached Capacity: the next growth
	// resizes the summary.
	Full bool `json:"full"`
}

// Transport describes the digest transport (node.NodeConfig.Transport).
// The zero value is an unnamed transport, disconnected, that carried
// nothing.
type Transport struct {
	Name      string `json:"name"`
	Connected bool   `json:"connected"`
	Sent      uint64 `json:"messages_sent"`
	Received  uint64 `json:"messages_received"`
	Dropped   uint64 `json:"messages_dropped"`
}

// Peer states in Peer.State.
const (
	PeerStateOK       = "ok"        // the last fetch succeeded and a view is held
	PeerStateFailing  = "failing"   // the last fetch failed
	PeerStateNoDigest = "no digest" // no view held: none fetched yet, or it expired
)

// Peer describes one peer as this node sees it. The zero value is
// an unnamed peer with no state, no view and no requests.
type Peer struct {
	Name     string `json:"name"`
	Protocol string `json:"protocol"`
	// State is PeerStateOK, PeerStateFailing or PeerStateNoDigest.
	State       string  `json:"state"`
	HasView     bool    `json:"has_view"`
	Sequence    uint64  `json:"sequence"`
	AgeSeconds  float64 `json:"age_seconds"`
	WireBytes   int     `json:"wire_bytes"`
	HeldBytes   int     `json:"held_bytes"`
	Form        string  `json:"form,omitempty"`
	Fill        float64 `json:"fill_ratio"`
	FalsePos    float64 `json:"predicted_false_hit_rate"`
	Unreachable bool    `json:"unreachable"`
	// Hits, FalseHits and Errors are the requests sent to the peer, by
	// result (bloomcast_peer_requests_total); MeasuredFalseHitRate is
	// FalseHits per local miss (the requests that consulted the peers'
	// digests: misses and peer hits), the figure FalsePos predicts.
	Hits                 uint64  `json:"hits"`
	FalseHits            uint64  `json:"false_hits"`
	Errors               uint64  `json:"errors"`
	MeasuredFalseHitRate float64 `json:"measured_false_hit_rate"`
	Failures             int     `json:"consecutive_failures"`
	LastError            string  `json:"last_error,omitempty"`
	SinceAnswerSeconds   float64 `json:"since_answer_seconds"`
	// Transport is how the peer's digest last reached this node:
	// "push" (the digest transport) or "http" (polling).
	Transport   string `json:"transport"`
	Full        uint64 `json:"full_fetches"`
	Delta       uint64 `json:"delta_fetches"`
	NotModified uint64 `json:"not_modified"`
	Pushed      uint64 `json:"pushed"`
}
