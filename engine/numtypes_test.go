package engine

import (
	"math"
	"testing"
)

// TestInt32OrLongBoundaries pins the type MongoDB's
// BSONObjBuilder::appendNumber(long long) gives a count: int32 across
// the whole 32-bit range (2^30 included), int64 past it.
func TestInt32OrLongBoundaries(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want any
	}{
		{0, int32(0)},
		{1, int32(1)},
		{-1, int32(-1)},
		{1 << 30, int32(1 << 30)},
		{1<<30 + 1, int32(1<<30 + 1)},
		{math.MaxInt32, int32(math.MaxInt32)},
		{math.MinInt32, int32(math.MinInt32)},
		{math.MaxInt32 + 1, int64(math.MaxInt32 + 1)},
		{math.MinInt32 - 1, int64(math.MinInt32 - 1)},
		{1 << 40, int64(1 << 40)},
		{math.MaxInt64, int64(math.MaxInt64)},
	} {
		if got := int32OrLong(c.n); got != c.want {
			t.Errorf("int32OrLong(%d) = %T(%v), want %T(%v)", c.n, got, got, c.want, c.want)
		}
	}
}
