//go:build race

package bloom

const raceEnabled = true
