// Package report holds what bloomcast's commands print of the library's
// answers: the JSON forms "--json" writes (a stable interface for
// scripts), their text tables and their charts. The library packages
// (params, sim, sim/replay) return plain values; this package sets them
// out for a reader, so that their APIs carry the numbers and not the
// presentation.
package report
