package doc

import "testing"

// TestCodeNames checks that the codes MongoDB names are printed by
// name, as mongosh prints them (MongoServerError[Unauthorized]), and
// that only codes MongoDB leaves unnamed print as Location<code>.
func TestCodeNames(t *testing.T) {
	cases := []struct {
		code Code
		want string
	}{
		{CodeBadValue, "BadValue"},
		{CodeUnauthorized, "Unauthorized"},
		{Code(13), "Unauthorized"},
		{Code(28), "PathNotViable"},
		{Code(40), "ConflictingUpdateOperators"},
		{Code(52), "DollarPrefixedFieldName"},
		{Code(56), "EmptyFieldName"},
		{Code(112), "WriteConflict"},
		{Code(171), "CannotIndexParallelArrays"},
		{Code(241), "ConversionFailure"},
		{Code(40324), "Location40324"},
	}
	for _, tc := range cases {
		if got := tc.code.String(); got != tc.want {
			t.Errorf("Code(%d).String() = %q, want %q", int32(tc.code), got, tc.want)
		}
	}
}
