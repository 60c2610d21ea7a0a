//go:build race

package counting

const raceEnabled = true
