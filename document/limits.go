package document

import (
	"errors"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Document limits, as MongoDB enforces them.
const (
	// MaxDocumentSize is the largest BSON-encoded size, in bytes, of a
	// document ValidateForStorage accepts.
	MaxDocumentSize = 16 * 1024 * 1024
	// MaxWriteDepth is the deepest nesting ValidateForStorage accepts: a
	// field of the top-level document is at level 1, a field of a
	// document or array in it at level 2, and so on.
	MaxWriteDepth = 100
	// MaxReadDepth is the deepest nesting Unmarshal and Normalize accept,
	// so that data written under a laxer limit can still be read.
	MaxReadDepth = 180
)

// Size returns the exact number of bytes d takes when BSON-encoded, as
// bson.Marshal would produce it, without encoding it. Values must be
// canonical, or bson.Raw (a document already encoded, counted as its
// bytes); a value of another type counts as null.
func Size(d bson.D) int {
	n := 5 // int32 length + trailing NUL
	for i := range d {
		n += 1 + len(d[i].Key) + 1 + valueSize(d[i].Value)
	}
	return n
}

func arraySize(a bson.A) int {
	n := 5
	for i := range a {
		n += 1 + decimalDigits(i) + 1 + valueSize(a[i])
	}
	return n
}

func decimalDigits(i int) int {
	n := 1
	for i >= 10 {
		i /= 10
		n++
	}
	return n
}

func valueSize(v any) int {
	switch x := v.(type) {
	case float64, bson.DateTime, bson.Timestamp, int64:
		return 8
	case string:
		return 4 + len(x) + 1
	case bson.D:
		return Size(x)
	case bson.A:
		return arraySize(x)
	case bson.Binary:
		if x.Subtype == 0x02 {
			return 4 + 1 + 4 + len(x.Data) // old binary repeats the length
		}
		return 4 + 1 + len(x.Data)
	case bson.ObjectID:
		return 12
	case bool:
		return 1
	case bson.Regex:
		return len(x.Pattern) + 1 + len(x.Options) + 1
	case bson.DBPointer:
		return 4 + len(x.DB) + 1 + 12
	case bson.JavaScript:
		return 4 + len(x) + 1
	case bson.Symbol:
		return 4 + len(x) + 1
	case bson.CodeWithScope:
		scope, _ := x.Scope.(bson.D)
		return 4 + 4 + len(x.Code) + 1 + Size(scope)
	case int32:
		return 4
	case bson.Decimal128:
		return 16
	case bson.Raw:
		return len(x) // a document already encoded
	}
	return 0 // nil, Undefined, MinKey, MaxKey, Null
}

// ValidateForStorage checks what MongoDB checks before it stores a
// document: the encoded size is at most MaxDocumentSize
// (2 BadValue, "object to insert too large", as mongod answers an
// insert), no field sits deeper than MaxWriteDepth levels
// (CodeOverflow; empty documents and arrays do not add a level), no field
// name contains a NUL byte (CodeBadValue), and _id is not an array, a
// regex or undefined (CodeInvalidIDField) and holds no '$'-prefixed
// field but a DBRef's (IDStorageError). d must be canonical.
func ValidateForStorage(d bson.D) error {
	ids := 0
	for i := range d {
		if d[i].Key != "_id" {
			continue
		}
		if ids++; ids > 1 {
			return errMultipleIDs()
		}
		switch d[i].Value.(type) {
		case bson.A:
			return Errorf(CodeInvalidIDField, "The '_id' value cannot be of type array")
		case bson.Regex:
			return Errorf(CodeInvalidIDField, "The '_id' value cannot be of type regex")
		case bson.Undefined:
			return Errorf(CodeInvalidIDField, "The '_id' value cannot be of type undefined")
		}
		if err := IDStorageError(d[i].Value); err != nil {
			return err
		}
	}
	if err := checkDoc(d, 1); err != nil {
		return err
	}
	if n := Size(d); n > MaxDocumentSize {
		return tooLargeError(n)
	}
	return nil
}

// checkDoc checks field names and nesting of a document whose fields sit
// at level depth.
func checkDoc(d bson.D, depth int) error {
	if len(d) > 0 && depth > MaxWriteDepth {
		return depthError()
	}
	for i := range d {
		if strings.IndexByte(d[i].Key, 0) >= 0 {
			return Errorf(CodeBadValue, "field name %q contains a null byte", d[i].Key)
		}
		if err := checkValue(d[i].Value, depth); err != nil {
			return err
		}
	}
	return nil
}

func checkValue(v any, depth int) error {
	switch x := v.(type) {
	case bson.D:
		return checkDoc(x, depth+1)
	case bson.A:
		if len(x) > 0 && depth+1 > MaxWriteDepth {
			return depthError()
		}
		for _, e := range x {
			if err := checkValue(e, depth+1); err != nil {
				return err
			}
		}
	}
	// Like MongoDB, the scope of code-with-scope is opaque here: it adds
	// no nesting level and its field names are not checked.
	return nil
}

// tooLargePrefix begins the message of an insert's document over
// MaxDocumentSize; mongod's code for it is 2 BadValue.
const tooLargePrefix = "object to insert too large"

func tooLargeError(n int) error {
	return Errorf(CodeBadValue, tooLargePrefix+". size in bytes: %d, max size: %d", n, MaxDocumentSize)
}

func depthError() error {
	return Errorf(CodeOverflow, "cannot insert document because it exceeds %d levels of nesting", MaxWriteDepth)
}

// ValidateUpdateResult checks a document an update produced, as
// ValidateForStorage does; one over MaxDocumentSize gets the message
// mongod gives an update ("Resulting document after update is larger
// than 16777216", BSONObjectTooLarge) rather than an insert's.
func ValidateUpdateResult(d bson.D) error {
	err := ValidateForStorage(d)
	var de *Error
	if errors.As(err, &de) && de.Code == CodeBadValue && strings.HasPrefix(de.Message, tooLargePrefix) {
		return Errorf(CodeBSONObjectTooLarge, "Resulting document after update is larger than %d", MaxDocumentSize)
	}
	return err
}

// IDStorageError refuses an _id document holding, at any depth, a field
// whose name starts with '$', but for a DBRef's $ref, $id and $db in
// that order, as mongod's storage check does (CodeDollarPrefixedFieldName:
// "_id fields may not contain '$'-prefixed fields: $oid is not valid
// for storage."). A JSON decoder's {"$oid": "…"} left undecoded is the
// usual case. Anything but a document or an array is nil.
func IDStorageError(v any) error {
	switch x := v.(type) {
	case bson.D:
		for i, e := range x {
			if strings.HasPrefix(e.Key, "$") && !dbRefField(x, i) {
				return Errorf(CodeDollarPrefixedFieldName, "_id fields may not contain '$'-prefixed fields: %s is not valid for storage.", e.Key)
			}
			if err := IDStorageError(e.Value); err != nil {
				return err
			}
		}
	case bson.A:
		for _, e := range x {
			if err := IDStorageError(e); err != nil {
				return err
			}
		}
	}
	return nil
}

// dbRefField reports whether field i of d is a DBRef's: $ref first, $id
// second, $db third.
func dbRefField(d bson.D, i int) bool {
	switch {
	case i == 0:
		return d[0].Key == "$ref"
	case i == 1:
		return d[1].Key == "$id" && d[0].Key == "$ref"
	case i == 2:
		return d[2].Key == "$db" && d[1].Key == "$id" && d[0].Key == "$ref"
	}
	return false
}

// errMultipleIDs is mongod's refusal of a document with two top-level
// _id fields.
func errMultipleIDs() error {
	return Errorf(CodeBadValue, "can't have multiple _id fields in one document")
}
