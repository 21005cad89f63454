package query

// AddNumbers adds two numbers (int32, int64, float64 or Decimal128) with
// MongoDB's type promotion: int32 overflow widens to int64, int64
// overflow to double; a double makes a double, a decimal a decimal.
// Callers pass numbers only.
func AddNumbers(a, b any) any { return addNumbers(a, b) }

// MulNumbers multiplies two numbers with AddNumbers' promotion rules.
func MulNumbers(a, b any) any { return mulNumbers(a, b) }

// ToFloat returns a number as float64 (0 for non-numbers).
func ToFloat(v any) float64 { return toFloat(v) }

// NumRank orders the numeric types by width (int32 1, int64 2, double 3,
// decimal 4; 0 for non-numbers): arithmetic results take the wider type.
func NumRank(v any) int { return numRank(v) }

// ToDecimal converts a number to Decimal128 as MongoDB does (doubles
// keep 15 significant digits).
func ToDecimal(v any) any { return toDecimal(v) }
