package engine

import "math/big"

func bigFloatParse(s string) (*big.Float, int, error) {
	return big.ParseFloat(s, 10, 200, big.ToNearestEven)
}
