package engine

import (
	"context"
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/document"
)

// profileState is what the profile command sets: the slow-operation
// threshold and sample rate. ttlkv keeps no profiler, so its level is
// always 0 (docs/commands.md, "profile").
type profileState struct {
	slowMS     int64
	sampleRate float64
}

// cmdProfile runs the profile command: {profile: -1} reports the level
// (always 0), slowms and sampleRate; {profile: 0} sets slowms and
// sampleRate if given and reports what was before; a level of 1 or 2
// is refused, as ttlkv keeps no profiler (db.system.profile stays
// empty). mongosh's db.getProfilingStatus() and db.setProfilingLevel()
// use it.
func cmdProfile(_ context.Context, db *DB, _ string, cmd bson.D) (bson.D, error) {
	level, isNum := asFloat(cmd[0].Value)
	if !isNum {
		return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'profile.profile' is the wrong type '%s', expected types '[long, int, decimal, double]'", typeName(cmd[0].Value))
	}
	if level != math.Trunc(level) || level < -1 || level > 2 {
		return nil, document.Errorf(document.CodeBadValue, "Invalid profiling level: %s", fmtValue(cmd[0].Value))
	}
	next := db.profile.Load().(profileState)
	for _, e := range cmd[1:] {
		switch e.Key {
		case "slowms":
			v, ok := asFloat(e.Value)
			if !ok {
				return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'profile.slowms' is the wrong type '%s', expected types '[long, int, decimal, double]'", typeName(e.Value))
			}
			next.slowMS = int64(v)
		case "sampleRate":
			v, ok := asFloat(e.Value)
			if !ok {
				return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'profile.sampleRate' is the wrong type '%s', expected type 'double'", typeName(e.Value))
			}
			if v < 0 || v > 1 || math.IsNaN(v) {
				return nil, document.Errorf(document.CodeBadValue, "'sampleRate' must be between 0.0 and 1.0 inclusive")
			}
			next.sampleRate = v
		case "filter":
			return nil, document.Errorf(document.CodeCommandNotSupported, "ttlkv keeps no profiler: a profiling filter is not available")
		default:
			if !isGenericField(e.Key) {
				return nil, document.Errorf(document.CodeIDLUnknownField, "BSON field 'profile.%s' is an unknown field.", e.Key)
			}
		}
	}
	if level > 0 {
		return nil, document.Errorf(document.CodeCommandNotSupported, "ttlkv keeps no profiler: profiling level %d is not available (db.system.profile stays empty)", int(level))
	}
	was := db.profile.Load().(profileState)
	if level == 0 {
		db.profile.Store(next)
	}
	return bson.D{{Key: "was", Value: int32(0)}, {Key: "slowms", Value: int32OrLong(was.slowMS)}, {Key: "sampleRate", Value: was.sampleRate}}, nil
}
