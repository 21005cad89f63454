package engine

import (
	"math"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// The log verbosity parameters, logLevel and logComponentVerbosity
// (docs/commands.md, "Log verbosity"): mongosh's db.getLogComponents()
// reads the second and db.setLogLevel(n, component) sets it. ttlkv keeps
// the levels as MongoDB does, per component with inheritance; its own
// log does not depend on them.

// logComponents are mongod's log components in mongod's order, each
// with its parent ("" for the default component). The storage engine's
// own components (WiredTiger's) are left out: ttlkv has none.
var logComponents = []struct{ name, parent string }{
	{"accessControl", ""}, {"command", ""}, {"control", ""}, {"executor", ""},
	{"geo", ""}, {"index", ""}, {"network", ""}, {"processHealth", ""},
	{"query", ""}, {"replication", ""}, {"election", "replication"},
	{"heartbeats", "replication"}, {"initialSync", "replication"},
	{"rollback", "replication"}, {"sharding", ""}, {"rangeDeleter", "sharding"},
	{"shardingCatalogRefresh", "sharding"}, {"migration", "sharding"},
	{"reshard", "sharding"}, {"migrationPerf", "sharding"}, {"storage", ""},
	{"recovery", "storage"}, {"journal", "storage"}, {"write", ""}, {"ftdc", ""},
	{"asio", "network"}, {"bridge", "network"}, {"tracking", ""},
	{"transaction", ""}, {"tenantMigration", ""}, {"connectionPool", "network"},
	{"test", ""},
}

const (
	paramLogLevel     = "logLevel"
	paramLogComponent = "logComponentVerbosity"
)

// isLogParam reports whether name is one of the log verbosity parameters.
func isLogParam(name string) bool { return name == paramLogLevel || name == paramLogComponent }

// newLogLevels is every component's level at startup: 0 for the
// default component, -1 (inherit the parent's) for the others.
func newLogLevels() map[string]int64 {
	m := map[string]int64{"": 0}
	for _, c := range logComponents {
		m[c.name] = -1
	}
	return m
}

// parseLogParam checks a new value of a log verbosity parameter and
// returns the levels it sets, by component ("" the default). Nothing is
// set when any part is wrong.
func parseLogParam(name string, v any) (map[string]int64, error) {
	set := map[string]int64{}
	if name == paramLogLevel {
		n, ok := wholeNumber(v)
		if !ok || n < 0 {
			return nil, document.Errorf(document.CodeBadValue, "Invalid value for parameter logLevel: expected a whole number of at least 0, got %s", fmtValue(v))
		}
		set[""] = n
		return set, nil
	}
	d, ok := v.(bson.D)
	if !ok {
		return nil, document.Errorf(document.CodeBadValue, "log component verbosity is not a BSON object: %s", fmtValue(v))
	}
	return set, parseLogComponent(d, "", paramLogComponent, set)
}

// parseLogComponent reads one level of a logComponentVerbosity
// document: "verbosity" is the level of component comp, any other field
// names a child of comp, as a number (its level) or a document.
func parseLogComponent(d bson.D, comp, path string, set map[string]int64) error {
	for _, e := range d {
		if e.Key == "verbosity" {
			n, ok := wholeNumber(e.Value)
			if !ok {
				return document.Errorf(document.CodeBadValue, "Invalid verbosity for %s: expected a number, got %s", path, fmtValue(e.Value))
			}
			set[comp] = n
			continue
		}
		if !isLogChild(e.Key, comp) {
			return document.Errorf(document.CodeBadValue, "Invalid component name %s.%s", path, e.Key)
		}
		if sub, isDoc := e.Value.(bson.D); isDoc {
			if err := parseLogComponent(sub, e.Key, path+"."+e.Key, set); err != nil {
				return err
			}
			continue
		}
		n, ok := wholeNumber(e.Value)
		if !ok {
			return document.Errorf(document.CodeBadValue, "Invalid verbosity for %s.%s: expected a number or a document, got %s", path, e.Key, fmtValue(e.Value))
		}
		set[e.Key] = n
	}
	return nil
}

// isLogChild reports whether name is a child component of parent.
func isLogChild(name, parent string) bool {
	for _, c := range logComponents {
		if c.name == name && c.parent == parent {
			return true
		}
	}
	return false
}

// wholeNumber is v as an int64 when it is a number with no fraction.
func wholeNumber(v any) (int64, bool) {
	if n, ok := asInt64(v); ok {
		return n, true
	}
	if f, ok := v.(float64); ok && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return int64(f), true
	}
	return 0, false
}

// applyLogLevels sets the levels of set: a negative level clears a
// component back to inheriting, and the default component back to 0.
// The caller holds p.mu.
func (p *params) applyLogLevels(set map[string]int64) {
	for comp, n := range set {
		switch {
		case n >= 0:
			p.log[comp] = n
		case comp == "":
			p.log[comp] = 0
		default:
			p.log[comp] = -1
		}
	}
}

// logParamValue is the value of a log verbosity parameter, as
// getParameter replies. The caller holds p.mu for reading.
func (p *params) logParamValue(name string) any {
	if name == paramLogLevel {
		return int32OrLong(p.log[""])
	}
	return p.logComponentDoc("")
}

// logComponentDoc is component comp's level and its children's
// documents, in mongod's order.
func (p *params) logComponentDoc(comp string) bson.D {
	d := bson.D{{Key: "verbosity", Value: int32OrLong(p.log[comp])}}
	for _, c := range logComponents {
		if c.parent == comp {
			d = append(d, bson.E{Key: c.name, Value: p.logComponentDoc(c.name)})
		}
	}
	return d
}
