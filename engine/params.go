package engine

import (
	"math"
	"sort"
	"sync"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/agg"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// paramKind is the type of a server parameter's value.
type paramKind int

const (
	paramBool paramKind = iota // true or false
	paramInt                   // a whole number, stored as int64
)

type paramDef struct {
	kind paramKind
	def  int64 // default (bool: 0 or 1)
	min  int64 // smallest valid value (ints)
	max  int64 // largest valid value (ints)
	// onChange runs after the value changes (under no engine lock).
	onChange func(db *DB)
}

// paramDefs lists the server parameters ttlkv supports, with MongoDB's
// defaults and valid ranges (docs/ttl-monitor.md §3.1, docs/batched-deletes.md §4.1). MongoDB declares the
// counts and durations 32-bit ints, and the engine turns them into
// time.Durations, which a larger value would overflow (a sleep of 2^40
// seconds wrapped negative and spun the monitor): they stop at
// MaxInt32. Only the byte target is 64-bit.
var paramDefs = map[string]paramDef{
	"ttlMonitorEnabled":                  {kind: paramBool, def: 1},
	"ttlMonitorSleepSecs":                {kind: paramInt, def: 60, min: 1, max: math.MaxInt32, onChange: func(db *DB) { db.wakeMonitor() }},
	"ttlMonitorSubPassTargetSecs":        {kind: paramInt, def: 60, min: 0, max: math.MaxInt32},
	"ttlIndexDeleteTargetTimeMS":         {kind: paramInt, def: 1000, min: 0, max: math.MaxInt32},
	"ttlIndexDeleteTargetDocs":           {kind: paramInt, def: 50000, min: 0, max: math.MaxInt32},
	"ttlMonitorBatchDeletes":             {kind: paramBool, def: 1},
	"batchedDeletesTargetBatchDocs":      {kind: paramInt, def: defaultBatchDocs, min: 0, max: math.MaxInt32},
	"batchedDeletesTargetBatchTimeMS":    {kind: paramInt, def: 5, min: 0, max: math.MaxInt32},
	"batchedDeletesTargetStagedDocBytes": {kind: paramInt, def: 2 << 20, min: 0, max: math.MaxInt64},
	// How many documents one $densify may generate (docs/aggregation.md).
	"internalQueryMaxAllowedDensifyDocs": {kind: paramInt, def: agg.DefaultMaxDensifyDocs, min: 1, max: math.MaxInt32},
	// What a sort no index gives (find's SORT, $sort) holds in memory
	// before it spills to disk or, with allowDiskUse: false, fails.
	"internalQueryMaxBlockingSortMemoryUsageBytes": {kind: paramInt, def: agg.DefaultMaxMemoryBytes, min: 1, max: math.MaxInt64},
	// What a $group holds before it spills its groups to disk or, with
	// allowDiskUse: false, fails.
	"internalDocumentSourceGroupMaxMemoryBytes": {kind: paramInt, def: agg.DefaultMaxMemoryBytes, min: 1, max: math.MaxInt64},
}

// defaultBatchDocs is batchedDeletesTargetBatchDocs' default. MongoDB
// uses 10; ttlkv uses 1000, and MongoDB's 5 ms time target
// (batchedDeletesTargetBatchTimeMS) still ends a batch that takes
// longer, so a writer racing a large delete waits a few milliseconds
// at most, as in MongoDB. What a batch costs besides its documents (a
// transaction, an iterator, a conflict check, a write request) is what
// small batches pay: the TTL monitor's 1M-document reap
// (benchmarks.BenchmarkReapInterleaved, 2026-11-26) ran at a median
// 0.47x of raw Badger's two-key rate with 100 documents a batch and
// 0.71x with 1000, where it outruns raw Badger deleting the same three
// keys with a WriteBatch (1.15x). A writer beside the reaper kept its
// throughput and p99: the monitor shrinks its batches to gentleDocs
// beside active writers. benchmarks/RESULTS.md has the runs;
// BenchmarkBatchedDeleteTargetBatchDocs (engine) and
// benchmarks.BenchmarkBatchDocs measure deleteMany alone.
const defaultBatchDocs = 1000

// params holds the current values of the server parameters.
type params struct {
	mu   sync.RWMutex
	vals map[string]int64
	log  map[string]int64 // log component levels, "" the default (logverbosity.go)
}

func newParams() *params {
	p := &params{vals: make(map[string]int64, len(paramDefs)), log: newLogLevels()}
	for name, d := range paramDefs {
		p.vals[name] = d.def
	}
	return p
}

func (p *params) int(name string) int64 {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.vals[name]
}

func (p *params) bool(name string) bool { return p.int(name) != 0 }

// parseParam checks v against the parameter's kind and range.
func parseParam(name string, v any) (int64, error) {
	if isLogParam(name) {
		_, err := parseLogParam(name, v)
		return 0, err
	}
	d, ok := paramDefs[name]
	if !ok {
		return 0, document.Errorf(document.CodeInvalidOptions, "attempted to set unrecognized parameter [%s], use help:true to see options", name)
	}
	switch d.kind {
	case paramBool:
		switch b := v.(type) {
		case bool:
			if b {
				return 1, nil
			}
			return 0, nil
		case int32, int64, float64, int:
			n, _ := asInt64(b)
			return boolInt(n != 0), nil
		}
		return 0, document.Errorf(document.CodeBadValue, "Invalid value for parameter %s: expected a boolean, got %s", name, typeName(v))
	default:
		n, ok := asInt64(v)
		if !ok {
			if f, isF := v.(float64); isF && !math.IsNaN(f) && !math.IsInf(f, 0) && f == math.Trunc(f) {
				n, ok = int64(f), true
			}
		}
		if !ok {
			return 0, document.Errorf(document.CodeBadValue, "Invalid value for parameter %s: expected a whole number, got %s", name, fmtValue(v))
		}
		if n < d.min {
			return 0, document.Errorf(document.CodeBadValue, "Invalid value for parameter %s: %d is less than the minimum %d", name, n, d.min)
		}
		if n > d.max {
			return 0, document.Errorf(document.CodeBadValue, "Invalid value for parameter %s: %d is greater than the maximum %d", name, n, d.max)
		}
		return n, nil
	}
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// SetParameter sets a server parameter, as MongoDB's setParameter
// command does, and returns its previous value. An unknown name or an
// invalid value returns an *Error (code 2 BadValue) and changes nothing.
// Changes take effect at once: a sleeping TTL monitor wakes and
// recomputes its deadline when ttlMonitorSleepSecs changes.
func (db *DB) SetParameter(name string, value any) (old any, err error) {
	if isLogParam(name) {
		set, err := parseLogParam(name, value)
		if err != nil {
			return nil, err
		}
		db.params.mu.Lock()
		defer db.params.mu.Unlock()
		old := db.params.logParamValue(name)
		db.params.applyLogLevels(set)
		return old, nil
	}
	n, err := parseParam(name, value)
	if err != nil {
		return nil, err
	}
	db.params.mu.Lock()
	prev := db.params.vals[name]
	db.params.vals[name] = n
	db.params.mu.Unlock()
	if f := paramDefs[name].onChange; f != nil {
		f(db)
	}
	return paramValue(name, prev), nil
}

// GetParameter returns a server parameter's current value: a bool or
// an int64 (int32 when it fits, as MongoDB replies); for
// logComponentVerbosity, a bson.D of every log component's level.
func (db *DB) GetParameter(name string) (any, error) {
	if isLogParam(name) {
		db.params.mu.RLock()
		defer db.params.mu.RUnlock()
		return db.params.logParamValue(name), nil
	}
	if _, ok := paramDefs[name]; !ok {
		return nil, document.Errorf(document.CodeInvalidOptions, "no option found to get: %s", name)
	}
	return paramValue(name, db.params.int(name)), nil
}

func paramValue(name string, n int64) any {
	if paramDefs[name].kind == paramBool {
		return n != 0
	}
	if n >= math.MinInt32 && n <= math.MaxInt32 {
		return int32(n)
	}
	return n
}

// paramNames returns the parameter names in sorted order.
func paramNames() []string {
	names := make([]string, 0, len(paramDefs)+2)
	for n := range paramDefs {
		names = append(names, n)
	}
	names = append(names, paramLogLevel, paramLogComponent)
	sort.Strings(names)
	return names
}

func paramsDoc(db *DB, all bool, want []string) bson.D {
	var out bson.D
	names := want
	if all {
		names = paramNames()
	}
	for _, n := range names {
		v, err := db.GetParameter(n)
		if err == nil {
			out = append(out, bson.E{Key: n, Value: v})
		}
	}
	return out
}

// fmtValue renders v for an error message or explain output the way
// the server does (document.Format).
func fmtValue(v any) string { return document.Format(v) }
