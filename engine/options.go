package engine

import (
	"time"
)

// Role says whether this engine accepts writes and runs the TTL monitor.
type Role int

const (
	// RolePrimary accepts writes and runs the TTL monitor. The default.
	RolePrimary Role = iota
	// RoleSecondary refuses user writes and keeps the TTL monitor idle,
	// as a MongoDB secondary does.
	RoleSecondary
	// RoleReadOnly opens the data directory read-only; the monitor is idle.
	RoleReadOnly
)

// Options configures Open. The zero value of every field means its
// default; Open fills and validates them.
type Options struct {
	// Clock returns the current time. Default time.Now. Tests inject a
	// fake clock so expiry is exact and needs no sleeping.
	Clock func() time.Time

	// SyncWrites makes every commit fsync before it is acknowledged, so
	// acknowledged writes survive power loss. Default false: writes
	// survive a process crash (kill -9) but the last moments before a
	// power cut may be lost. Costs roughly one disk flush per commit.
	SyncWrites bool

	// InMemory keeps everything in memory (tests). Dir is ignored.
	InMemory bool

	// Role is RolePrimary unless set.
	Role Role

	// DisableTTLMonitor starts no monitor goroutine; RunTTLPass still
	// works. Unlike the ttlMonitorEnabled parameter it cannot be changed
	// while open.
	DisableTTLMonitor bool

	// Params are startup values of server parameters by name
	// ("ttlMonitorSleepSecs": 1); names not given keep MongoDB's
	// defaults. Invalid ones fail Open. SetParameter changes them later.
	Params map[string]any

	// NoScripting turns server-side JavaScript off, as mongod's
	// --noscripting (security.javascriptEnabled: false) does: a $where
	// fails with 6108304 "no globalScriptEngine in $where parsing", a
	// $function or an $accumulator with 31264 when it would run
	// (docs/javascript.md). Default false: scripting is on.
	NoScripting bool

	// TimeseriesArbitraryUpdates lets updates and findAndModify on a
	// time-series collection take any filter and any update (single,
	// upsert, replacement, pipeline), as mongod does with its
	// featureFlagTimeseriesUpdatesSupport on. Default false: mongod
	// 7.0's rules, a multi update filtering on and changing only the
	// metaField, anything else 72 InvalidOptions (docs/timeseries.md
	// §6.9). Deletes take any filter either way.
	TimeseriesArbitraryUpdates bool

	// MemoryBudget is the memory the storage layer's own structures may
	// take: Badger's memtables, block and index caches and concurrent
	// compactions are sized from it (lsm.Options.MemoryBudget). Default
	// 160 MiB (DefaultMemoryBudget); at least 32 MiB. The process's
	// RSS is larger: see the README's "Memory" section for what to
	// expect and for GOMEMLIMIT.
	MemoryBudget int64
	// ChangeStreams keeps a change log, written in the same commit as
	// every insert, update, delete (user or TTL), drop and rename, so
	// that Watch and $changeStream work (docs/change-streams.md).
	// Default false: no log, and no cost. On, each write also stores its
	// event (the whole document for inserts).
	ChangeStreams bool
	// ChangeStreamMaxEvents bounds the change log's events; older ones
	// are trimmed and a stream behind them fails with 286
	// ChangeStreamHistoryLost. Default 1,000,000.
	ChangeStreamMaxEvents int64
	// ChangeStreamMaxBytes bounds the bytes of the change log's events.
	// Default 256 MiB.
	ChangeStreamMaxBytes int64

	// Logf receives the engine's log lines (TTL passes, reclamation).
	// Default: discard.
	Logf func(format string, args ...any)

	seams seams // test seams (seams.go)
}

func (o *Options) ensureDefaults() {
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
}
