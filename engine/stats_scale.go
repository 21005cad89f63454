package engine

import (
	"math"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// codeIDLValidator is MongoDB's code for a command field outside the
// range its parser allows.
const codeIDLValidator = document.Code(51024)

// statsScale reads collStats's and dataSize's scale: a number whose whole
// part is at least 1 (default 1). A non-number is 14 TypeMismatch, a
// value below 1 is 51024, as MongoDB's StorageStatsSpec parser answers.
func statsScale(cmd bson.D) (int64, error) {
	v, ok := get(cmd, "scale")
	if !ok {
		return 1, nil
	}
	f, isNum := asFloat(v)
	if !isNum {
		return 0, document.Errorf(document.CodeTypeMismatch,
			"BSON field '%s.scale' is the wrong type '%s', expected types '[long, int, decimal, double]'", cmd[0].Key, typeName(v))
	}
	if math.IsNaN(f) || math.Trunc(f) < 1 {
		return 0, document.Errorf(codeIDLValidator, "BSON field 'scale' value must be >= 1, actual value '%s'", fmtValue(v))
	}
	if f > math.MaxInt32 {
		f = math.MaxInt32
	}
	return int64(f), nil
}
