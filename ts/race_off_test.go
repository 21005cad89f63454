//go:build !race

package ts

// raceOn is true under the race detector: single-goroutine property
// tests scale their work down by it (the run without -race keeps the
// full size).
const raceOn = false
