package agg

import (
	"math"
	"math/big"

	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// summer adds numbers as mongod's $sum and $avg do: ints and longs
// exactly, doubles in compensated (double-double) arithmetic, decimals
// in decimal; the total takes the widest type seen, but ints and longs
// whose exact total fits come back as an int or a long (a long's max
// plus one less one is that long again).
type summer struct {
	i         int64    // the ints and longs, while they fit
	ibig      *big.Int // the ints and longs, once they did not
	hi, lo    float64  // the finite doubles: hi + lo, lo the rounding error of hi
	nonFinite float64  // the infinities and NaNs, added plainly
	special   bool     // nonFinite holds one
	dec       any      // the decimals (a bson.Decimal128), nil before one
	rank      int      // the widest type: 0 none, 1 int, 2 long, 3 double, 4 decimal
}

func (s *summer) add(v any) {
	r := query.NumRank(v)
	if r == 0 {
		return
	}
	s.rank = max(s.rank, r)
	switch x := v.(type) {
	case int32:
		s.addInt(int64(x))
	case int64:
		s.addInt(x)
	case float64:
		s.addDouble(x)
	case bson.Decimal128:
		if s.dec == nil {
			s.dec = x
		} else {
			s.dec = query.AddNumbers(s.dec, x)
		}
	}
}

func (s *summer) addInt(x int64) {
	if s.ibig != nil {
		s.ibig.Add(s.ibig, big.NewInt(x))
		return
	}
	t := s.i + x
	if (x > 0 && t < s.i) || (x < 0 && t > s.i) {
		s.ibig = new(big.Int).Add(big.NewInt(s.i), big.NewInt(x))
		return
	}
	s.i = t
}

// addDouble adds x to hi + lo without losing its low bits (Neumaier's
// two-sum).
func (s *summer) addDouble(x float64) {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		s.nonFinite += x
		s.special = true
		return
	}
	t := s.hi + x
	if math.Abs(s.hi) >= math.Abs(x) {
		s.lo += (s.hi - t) + x
	} else {
		s.lo += (x - t) + s.hi
	}
	s.hi = t
}

// ints returns the exact total of the ints and longs.
func (s *summer) ints() *big.Int {
	if s.ibig != nil {
		return s.ibig
	}
	return big.NewInt(s.i)
}

// double is the total of everything but the decimals as a double.
func (s *summer) double() float64 {
	if s.special {
		return s.nonFinite
	}
	hi, lo := s.hi, s.lo
	// Fold the ints in with the same compensation.
	n := s.ints()
	f, _ := new(big.Float).SetInt(n).Float64()
	rest, _ := new(big.Float).Sub(new(big.Float).SetInt(n), big.NewFloat(f)).Float64()
	for _, x := range []float64{f, rest} {
		t := hi + x
		if math.Abs(hi) >= math.Abs(x) {
			lo += (hi - t) + x
		} else {
			lo += (x - t) + hi
		}
		hi = t
	}
	return hi + lo
}

// decimal is the whole total in decimal: the doubles converted exactly
// (to 34 digits), not through their 15-digit form.
func (s *summer) decimal() any {
	total := s.dec
	if total == nil {
		total, _ = bson.ParseDecimal128("0")
	}
	if s.special {
		return query.AddNumbers(total, query.ToDecimal(s.nonFinite))
	}
	parts := []string{s.ints().String()}
	for _, x := range []float64{s.hi, s.lo} {
		if x != 0 {
			parts = append(parts, new(big.Float).SetFloat64(x).Text('g', 34))
		}
	}
	for _, p := range parts {
		if d, err := bson.ParseDecimal128(p); err == nil {
			total = query.AddNumbers(total, d)
		}
	}
	return total
}

// result is the total, of the widest type seen (int32 0 when none).
func (s *summer) result() any {
	switch s.rank {
	case 0:
		return int32(0)
	case 1, 2:
		n := s.ints()
		if s.rank == 1 && n.IsInt64() && n.Int64() >= math.MinInt32 && n.Int64() <= math.MaxInt32 {
			return int32(n.Int64())
		}
		if n.IsInt64() {
			return n.Int64()
		}
		return s.double()
	case 3:
		return s.double()
	}
	return s.decimal()
}

// state and setState carry a summer through a spill file.
func (s *summer) state() bson.A {
	d := s.dec
	if d == nil {
		d = bson.Null{}
	}
	return bson.A{s.ints().String(), s.hi, s.lo, s.nonFinite, s.special, d, int32(s.rank)}
}

// merge adds the state of another summer.
func (s *summer) merge(st bson.A) {
	if len(st) != 7 {
		return
	}
	if str, ok := st[0].(string); ok {
		if n, ok := new(big.Int).SetString(str, 10); ok {
			if n.IsInt64() {
				s.addInt(n.Int64())
			} else {
				if s.ibig == nil {
					s.ibig = big.NewInt(s.i)
				}
				s.ibig.Add(s.ibig, n)
			}
		}
	}
	for _, x := range st[1:3] {
		if f, ok := x.(float64); ok {
			s.addDouble(f)
		}
	}
	if sp, _ := st[4].(bool); sp {
		if f, ok := st[3].(float64); ok {
			s.nonFinite += f
			s.special = true
		}
	}
	if d, ok := st[5].(bson.Decimal128); ok {
		if s.dec == nil {
			s.dec = d
		} else {
			s.dec = query.AddNumbers(s.dec, d)
		}
	}
	if r, ok := st[6].(int32); ok {
		s.rank = max(s.rank, int(r))
	}
}
