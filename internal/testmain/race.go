//go:build race

package testmain

// raceEnabled reports whether the binary was built with -race.
const raceEnabled = true
