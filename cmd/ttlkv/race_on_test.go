//go:build race

package main

// raceOn is true under the race detector, which slows a test 5-20x:
// heavy single-goroutine tests (randomised runs, repeated boundaries)
// scale their work down by it; the run without -race, which CI makes
// too, keeps their full size.
const raceOn = true
