//go:build !race

package engine

// raceOn is true under the race detector, which slows the engine ~10x:
// randomised and exhaustive tests scale their work down by it.
const raceOn = false
