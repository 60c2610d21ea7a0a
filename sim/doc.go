// Package sim holds trace-driven and synthetic evaluations of bloomcast
// structures: deterministic key sets ([Keys]) and trials that build
// structures from them and compare what they measure with what the models
// of package params predict ([LayoutTrial]). It also simulates two network
// applications of Bloom filters on router graphs ([Topology]): hash-based
// IP traceback ([Traceback]) and in-packet loop detection
// ([LoopDetection]), each beside its theory, with SVG charts ([Chart]).
//
// Everything here is reproducible: the same seed gives the same keys on
// every platform and Go release, so a figure printed by "bloomcast demo"
// can be regenerated exactly (timings aside).
package sim
