// Package fuzz holds ttlkv's reliability tests; it has no API.
//
//   - TestCrashTorture re-executes the test binary as a child that runs a
//     mixed, durable workload (inserts, updates, deletes, TTL reaping on a
//     fast injected clock, index builds) and reports every acknowledged
//     operation over a pipe; the parent kills it with SIGKILL at a random
//     moment or at a named engine failpoint (engine.SetFailpointForTesting), reopens the
//     directory, validates every collection and checks that nothing
//     acknowledged was lost, nothing was deleted before its expiry and
//     nothing deleted came back. The workload also wraps a capped
//     collection under a tailable awaitData tailer and ingests into a
//     time-series collection with bucket expiry (crash_special_test.go).
//     Seeds are printed; TTLKV_SEED=s replays one run, -cycles N runs a
//     long round.
//   - TestRingFaults drives the capped ring through a file system that
//     fails the N-th operation (once or for good) or loses power,
//     for every N of a reference workload.
//   - TestRingIOFailure fails an fsync or write of a capped ring file
//     through the engine: later writes to that collection fail with a
//     clear error until a reopen, which recovers.
//   - FuzzCommand feeds Extended JSON commands to an in-memory engine.
//   - TestBadInput is the catalogue of docs/commands.md §0–§8 limits and invalid
//     options: right code, nothing written, nothing lost.
//   - TestSoak (TTLKV_SOAK=duration) runs concurrent clients, the monitor
//     and reclamation and reports operations, errors by code, peak RSS
//     and open file descriptors.
//
// Results are in benchmarks/RELIABILITY.md.
package fuzz
