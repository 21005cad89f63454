package document

import (
	"strconv"
	"testing"
)

// docs/commands.md §9: every error code the page lists has MongoDB's number and
// code name. Replies carry Code.String() as codeName, so a wrong name
// here would pass every reply test that compares the two.
func TestSpecErrorCodes(t *testing.T) {
	t.Parallel()
	want := []struct {
		code Code
		num  int32
		name string
	}{
		{CodeBadValue, 2, "BadValue"},
		{CodeFailedToParse, 9, "FailedToParse"},
		{CodeTypeMismatch, 14, "TypeMismatch"},
		{CodeIllegalOperation, 20, "IllegalOperation"},
		{CodeNamespaceNotFound, 26, "NamespaceNotFound"},
		{CodeIndexNotFound, 27, "IndexNotFound"},
		{CodeNamespaceExists, 48, "NamespaceExists"},
		{CodeCommandNotFound, 59, "CommandNotFound"},
		{CodeCannotCreateIndex, 67, "CannotCreateIndex"},
		{CodeInvalidOptions, 72, "InvalidOptions"},
		{CodeInvalidNamespace, 73, "InvalidNamespace"},
		{CodeNoReplicationEnabled, 76, "NoReplicationEnabled"},
		{CodeIndexOptionsConflict, 85, "IndexOptionsConflict"},
		{CodeCappedPositionLost, 136, "CappedPositionLost"},
		{CodeCommandNotSupportedOnView, 166, "CommandNotSupportedOnView"},
		{CodeQueryPlanKilled, 175, "QueryPlanKilled"},
		{CodeAmbiguousIndexKeyPattern, 181, "AmbiguousIndexKeyPattern"},
		{CodeInvalidIndexSpecificationOption, 197, "InvalidIndexSpecificationOption"},
		{CodeCannotGrowDocumentInCappedNS, 10003, "CannotGrowDocumentInCappedNamespace"},
		{CodeDuplicateKey, 11000, "DuplicateKey"},
		{CodeIDLUnknownField, 40415, "IDLUnknownField"},
		{CodeIDLFailedToParse, 40414, "Location40414"},
	}
	for _, w := range want {
		if int32(w.code) != w.num || w.code.String() != w.name {
			t.Errorf("code %d %s: have %d %s", w.num, w.name, int32(w.code), w.code)
		}
		e := Errorf(w.code, "m")
		if e.Name() != w.name || e.Error() != w.name+" ("+strconv.Itoa(int(w.num))+"): m" {
			t.Errorf("Errorf(%d): Name %q, Error %q", w.num, e.Name(), e.Error())
		}
		if CodeOf(e) != w.code {
			t.Errorf("CodeOf(Errorf(%d)) = %d", w.num, CodeOf(e))
		}
	}
	if s := Code(12345).String(); s != "Location12345" {
		t.Errorf("an unnamed code renders as %q", s)
	}
}

// TestCodeNames checks that the codes MongoDB names are printed by
// name, as mongosh prints them (MongoServerError[Unauthorized]), and
// that only codes MongoDB leaves unnamed print as Location<code>.
func TestCodeNames(t *testing.T) {
	t.Parallel()
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
