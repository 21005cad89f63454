package query

import (
	"errors"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// D parses relaxed Extended JSON into a document, failing the test on a
// syntax error. Integers become int32 (or int64 when large), decimals
// float64.
func D(t testing.TB, s string) bson.D {
	t.Helper()
	var d bson.D
	if err := bson.UnmarshalExtJSON([]byte(s), false, &d); err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	return d
}

// codeOf returns the MongoDB code of err, 0 for nil.
func codeOf(err error) int {
	if err == nil {
		return 0
	}
	var e *document.Error
	if errors.As(err, &e) {
		return int(e.Code)
	}
	return -1
}

func TestHelperNested(t *testing.T) {
	t.Parallel()
	d := D(t, `{"a": {"b": [1, {"c": 2}]}}`)
	if _, ok := d[0].Value.(bson.D); !ok {
		t.Fatalf("nested doc decoded as %T", d[0].Value)
	}
	a := d[0].Value.(bson.D)[0].Value
	if _, ok := a.(bson.A); !ok {
		t.Fatalf("array decoded as %T", a)
	}
	if _, ok := a.(bson.A)[1].(bson.D); !ok {
		t.Fatalf("doc in array decoded as %T", a.(bson.A)[1])
	}
}
