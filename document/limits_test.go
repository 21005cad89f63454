package document

import (
	"math/rand"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestSizeMatchesDriver(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewSource(seed(t)))
	fixed := []bson.D{
		{},
		{{Key: "old", Value: bson.Binary{Subtype: 2, Data: []byte{1, 2}}}},
		{{Key: "arr", Value: make(bson.A, 123)}},
		{{Key: "cws", Value: bson.CodeWithScope{Code: "abc", Scope: bson.D{{Key: "x", Value: int64(1)}}}}},
	}
	for i := 0; i < 1000+len(fixed); i++ {
		var d bson.D
		if i < len(fixed) {
			d = fixed[i]
		} else {
			d = randDoc(r, 4, 6)
		}
		b, err := bson.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		if got := Size(d); got != len(b) {
			t.Fatalf("Size(%#v) = %d, driver encodes %d bytes", d, got, len(b))
		}
	}
}

// nestDocs returns a chain of n documents {a: {a: ... leaf}}: the
// innermost document is {x: 1}, or {} when emptyLeaf.
func nestDocs(n int, emptyLeaf bool) bson.D {
	d := bson.D{{Key: "x", Value: int32(1)}}
	if emptyLeaf {
		d = bson.D{}
	}
	for i := 1; i < n; i++ {
		d = bson.D{{Key: "a", Value: d}}
	}
	return d
}

// nestArrays returns {a: [[...[1]...]]} with n levels counting the
// top-level document.
func nestArrays(n int, emptyLeaf bool) bson.D {
	var v any = bson.A{int32(1)}
	if emptyLeaf {
		v = bson.A{}
	}
	for i := 2; i < n; i++ {
		v = bson.A{v}
	}
	return bson.D{{Key: "a", Value: v}}
}

func TestValidateForStorageDepth(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		d    bson.D
		ok   bool
	}{
		{"scalar top-level is level 1", bson.D{{Key: "a", Value: int32(1)}}, true},
		// MongoDB with a user depth limit of 1 accepts {a: {}} and
		// rejects {a: {b: 1}}: empty documents add no level.
		{"100 document levels", nestDocs(MaxWriteDepth, false), true},
		{"101 document levels", nestDocs(MaxWriteDepth+1, false), false},
		{"empty document at level 101", nestDocs(MaxWriteDepth+1, true), true},
		{"empty document at level 102", nestDocs(MaxWriteDepth+2, true), false},
		{"100 array levels", nestArrays(MaxWriteDepth, false), true},
		{"101 array levels", nestArrays(MaxWriteDepth+1, false), false},
		{"empty array at level 101", nestArrays(MaxWriteDepth+1, true), true},
		{"scope is opaque", bson.D{{Key: "c", Value: bson.CodeWithScope{Code: "f", Scope: nestDocs(MaxWriteDepth+5, false)}}}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidateForStorage(tc.d)
			if tc.ok && err != nil {
				t.Fatalf("rejected: %v", err)
			}
			if !tc.ok && CodeOf(err) != CodeOverflow {
				t.Fatalf("err = %v, want CodeOverflow", err)
			}
		})
	}
}

func TestValidateForStorageSize(t *testing.T) {
	t.Parallel()
	base := bson.D{{Key: "_id", Value: int32(1)}, {Key: "s", Value: ""}}
	fill := MaxDocumentSize - Size(base)
	at := bson.D{{Key: "_id", Value: int32(1)}, {Key: "s", Value: strings.Repeat("x", fill)}}
	if Size(at) != MaxDocumentSize {
		t.Fatalf("test setup: size %d", Size(at))
	}
	if err := ValidateForStorage(at); err != nil {
		t.Fatalf("document of exactly %d bytes rejected: %v", MaxDocumentSize, err)
	}
	over := bson.D{{Key: "_id", Value: int32(1)}, {Key: "s", Value: strings.Repeat("x", fill+1)}}
	err := ValidateForStorage(over)
	if CodeOf(err) != CodeBadValue || !strings.Contains(err.Error(), "object to insert too large") {
		t.Fatalf("document of %d bytes: err = %v, want BSONObjectTooLarge", Size(over), err)
	}
	if !strings.Contains(err.Error(), "16777217") {
		t.Fatalf("message lacks the size: %v", err)
	}
}

func TestValidateForStorageFields(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		d    bson.D
		code Code
	}{
		{"NUL in field name", bson.D{{Key: "a\x00b", Value: int32(1)}}, CodeBadValue},
		{"NUL in nested field name", bson.D{{Key: "a", Value: bson.A{bson.D{{Key: "\x00", Value: nil}}}}}, CodeBadValue},
		{"_id array", bson.D{{Key: "_id", Value: bson.A{}}}, CodeInvalidIDField},
		{"_id regex", bson.D{{Key: "_id", Value: bson.Regex{Pattern: "a"}}}, CodeInvalidIDField},
		{"_id undefined", bson.D{{Key: "_id", Value: bson.Undefined{}}}, CodeInvalidIDField},
		{"_id document", bson.D{{Key: "_id", Value: bson.D{{Key: "a", Value: bson.A{}}}}}, 0},
		{"_id null", bson.D{{Key: "_id", Value: nil}}, 0},
		{"nested _id array", bson.D{{Key: "a", Value: bson.D{{Key: "_id", Value: bson.A{}}}}}, 0},
		{"dots and dollars allowed", bson.D{{Key: "a.b", Value: int32(1)}, {Key: "$c", Value: int32(1)}}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidateForStorage(tc.d)
			if CodeOf(err) != tc.code {
				t.Fatalf("err = %v, want code %v", err, tc.code)
			}
		})
	}
	err := ValidateForStorage(bson.D{{Key: "_id", Value: bson.A{}}})
	if !strings.Contains(err.Error(), "The '_id' value cannot be of type array") {
		t.Fatalf("message: %v", err)
	}
}
