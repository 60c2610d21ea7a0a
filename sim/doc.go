// Package sim holds the papers' trials: synthetic evaluations of bloomcast
// structures that set what they measure beside what the models of package
// params (or the paper) predict. Its parts:
//
//   - keys.go: deterministic URL-like key sets ([Keys]), the input of every
//     trial and of package sim/replay's synthetic traces;
//   - trial.go: the layout trial that "bloomcast demo" prints
//     ([LayoutTrial]);
//   - compress.go: the compressed-filter trial of Mitzenmacher's
//     "Compressed Bloom filters" ([CompressionTrial]);
//   - maxcount.go: counter sizing for counting filters, Fan et al.'s bound
//     against real filters ([MaxCount]);
//   - growth.go: a scalable filter's rate and memory as it grows
//     ([ScalableGrowth], [GrowthCharts]);
//   - topology.go, traceback.go: router graphs ([Topology]) and hash-based
//     IP traceback with per-router digests ([Traceback]);
//   - loops*.go: in-packet Bloom filters that detect forwarding loops
//     ([LoopDetection]) and their exact false-alarm model;
//   - chart.go: SVG charts ([Chart], an alias of plot.Chart).
//
// What the commands print of these results (their JSON and text forms,
// the seeds' false-positive charts) is bloomcast's internal/report.
//
// The trace-driven replay of a cache cluster (access logs, synthetic
// traces and real cache nodes on loopback) is package sim/replay.
//
// Everything here is reproducible: the same seed gives the same keys on
// every platform and Go release, so a figure printed by "bloomcast demo"
// can be regenerated exactly (timings aside).
package sim
