package query

import (
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// decimalToFloat converts a Decimal128 to the nearest float64.
func decimalToFloat(d bson.Decimal128) (float64, bool) {
	f, err := strconv.ParseFloat(d.String(), 64)
	if err != nil {
		// ParseFloat reports range errors with ±Inf or 0, which is the
		// nearest float64; anything else is unparseable.
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return f, true
		}
		return 0, false
	}
	return f, true
}
