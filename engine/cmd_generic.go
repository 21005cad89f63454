package engine

import (
	"math"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// The generic arguments every command may carry, checked as mongod
// checks them before the command runs: maxTimeMS and writeConcern.

// maxTimeMSLimit is the largest maxTimeMS mongod takes (a 32-bit int).
const maxTimeMSLimit = math.MaxInt32

// parseMaxTimeMS reads a command's maxTimeMS as mongod's parser does: a
// number (2 "maxTimeMS must be a number"), in [0, 2^31-1] (2 "-1 value
// for maxTimeMS is out of range"), integral when a double (2
// "maxTimeMS has non-integral value"). 0 means no limit.
func parseMaxTimeMS(v any) (int64, error) {
	if !document.IsNumber(v) {
		return 0, document.Errorf(document.CodeBadValue, "maxTimeMS must be a number")
	}
	f, _ := asFloat(v)
	var n int64 // mongod's safeNumberLong: a double truncated, NaN 0, saturated at the ends
	switch {
	case math.IsNaN(f):
	case f >= math.MaxInt64:
		n = math.MaxInt64
	case f <= math.MinInt64:
		n = math.MinInt64
	default:
		n = int64(f)
		if i, ok := v.(int64); ok {
			n = i
		}
	}
	if n < 0 || n > maxTimeMSLimit {
		return 0, document.Errorf(document.CodeBadValue, "%d value for maxTimeMS is out of range", n)
	}
	if _, isDouble := v.(float64); isDouble && math.Floor(f) != f {
		return 0, document.Errorf(document.CodeBadValue, "maxTimeMS has non-integral value")
	}
	return n, nil
}

// CheckWriteConcern checks a command's writeConcern document as
// mongod's parser does: a document (14, in the words of mongod 7.0's
// extractWCFromCommand) of w, j, fsync and wtimeout
// (others 40415, "BSON field 'writeConcern.wtimeoutMS' is an unknown
// field."), w a number in [0, 50], a string or a document (9), j and
// fsync not both true (9). It says nothing of what a standalone can
// honour (w above 1): the server answers that.
func CheckWriteConcern(v any) error {
	d, ok := v.(bson.D)
	if !ok {
		return document.Errorf(document.CodeTypeMismatch, "\"writeConcern\" had the wrong type. Expected object, found %s", typeName(v))
	}
	var j, fsync bool
	for _, e := range d {
		switch e.Key {
		case "w":
			switch w := e.Value.(type) {
			case string, bson.D:
			default:
				if !document.IsNumber(w) {
					return document.Errorf(document.CodeFailedToParse, "w has to be a number, string, or object")
				}
				if n, _ := asFloat(w); n < 0 || n > 50 {
					return document.Errorf(document.CodeFailedToParse, "w has to be a non-negative number and not greater than 50; found: %s", fmtValue(w))
				}
			}
		case "j", "fsync":
			// mongod's IDL types both safeBool: a bool or a number.
			if _, isBool := e.Value.(bool); !isBool && !document.IsNumber(e.Value) {
				return document.Errorf(document.CodeTypeMismatch, "BSON field 'writeConcern.%s' is the wrong type '%s', expected types '[bool, long, int, decimal, double]'", e.Key, typeName(e.Value))
			}
			if e.Key == "j" {
				j = truthy(e.Value)
			} else {
				fsync = truthy(e.Value)
			}
		case "wtimeout":
			if !document.IsNumber(e.Value) {
				return document.Errorf(document.CodeTypeMismatch, "BSON field 'writeConcern.wtimeout' is the wrong type '%s', expected types '[long, int, decimal, double]'", typeName(e.Value))
			}
		case "getLastError", "wOpTime", "wElectionId", "provenance":
		default:
			return document.Errorf(document.CodeIDLUnknownField, "BSON field 'writeConcern.%s' is an unknown field.", e.Key)
		}
	}
	if j && fsync {
		return document.Errorf(document.CodeFailedToParse, "fsync and j options cannot be used together")
	}
	return nil
}

// readOnlyCommands are the commands that take no writeConcern, as
// mongod's supportsWriteConcern says of them.
var readOnlyCommands = map[string]bool{
	"find": true, "count": true, "distinct": true, "getMore": true,
	"listCollections": true, "listIndexes": true,
}

// WriteConcernSupported refuses a writeConcern given to a command that
// writes nothing (a find, a count, an aggregate without $out or $merge):
// 72 "Command does not support writeConcern", as mongod answers.
func WriteConcernSupported(cmd bson.D) error {
	if len(cmd) == 0 {
		return nil
	}
	if _, has := get(cmd, "writeConcern"); !has {
		return nil
	}
	name := cmd[0].Key
	refused := readOnlyCommands[name]
	if name == "aggregate" {
		refused = !writesOut(cmd)
	}
	if refused {
		return document.Errorf(document.CodeInvalidOptions, "Command does not support writeConcern")
	}
	return nil
}

// writesOut reports whether an aggregate command's pipeline ends in
// $out or $merge.
func writesOut(cmd bson.D) bool {
	pv, _ := get(cmd, "pipeline")
	p, _ := pv.(bson.A)
	if len(p) == 0 {
		return false
	}
	last, _ := p[len(p)-1].(bson.D)
	return len(last) > 0 && (last[0].Key == "$out" || last[0].Key == "$merge")
}
