package wire

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// nestedDoc returns {a: {a: ... {x: 1}}}, n levels counting the
// top-level document.
func nestedDoc(n int) bson.D {
	d := bson.D{{Key: "x", Value: int32(1)}}
	for i := 1; i < n; i++ {
		d = bson.D{{Key: "a", Value: d}}
	}
	return d
}

// TestDriverInsertRules sends each insert rule's case through the
// official driver (its insert documents go to the engine as BSON, see
// docs/wire.md) and checks MongoDB's code, that the other documents of
// an unordered batch are written, and what a find returns.
func TestDriverInsertRules(t *testing.T) {
	t.Parallel()
	transports(t, func(t *testing.T, inproc bool) {
		e := newEnv(t, Options{})
		ctx := context.Background()
		coll := e.client(t, inproc).Database("app").Collection("rules")
		for _, tc := range []struct {
			name string
			doc  bson.D
			code int32
		}{
			{"_id array", bson.D{{Key: "_id", Value: bson.A{1}}}, 53},
			{"_id regex", bson.D{{Key: "_id", Value: bson.Regex{Pattern: "a"}}}, 53},
			{"_id undefined", bson.D{{Key: "_id", Value: bson.Undefined{}}}, 53},
			{"second _id", bson.D{{Key: "_id", Value: 1}, {Key: "_id", Value: bson.A{}}}, 2}, // mongod: "can't have multiple _id fields in one document"
			{"101 levels", bson.D{{Key: "_id", Value: 2}, {Key: "n", Value: nestedDoc(100)}}, 15},
			{"200 levels", bson.D{{Key: "_id", Value: 3}, {Key: "n", Value: nestedDoc(199)}}, 15},
		} {
			_, err := coll.InsertOne(ctx, tc.doc)
			if err == nil || cmdCode(t, err) != tc.code {
				t.Fatalf("%s: %v, want code %d", tc.name, err, tc.code)
			}
		}
		// Over 16 MiB: refused whole (the driver may refuse it itself).
		big := bson.D{{Key: "_id", Value: 4}, {Key: "s", Value: strings.Repeat("x", 16<<20)}}
		if _, err := coll.InsertOne(ctx, big); err == nil {
			t.Fatal("a document over 16 MiB was inserted")
		}
		// Accepted: 100 levels, $-prefixed and dotted names, _id not
		// first (moved first), _id missing (the driver adds one), and
		// an unordered batch goes past a refused document.
		res, err := coll.InsertMany(ctx, []any{
			bson.D{{Key: "_id", Value: 5}, {Key: "n", Value: nestedDoc(99)}},
			bson.D{{Key: "_id", Value: bson.A{}}},
			bson.D{{Key: "$x", Value: 1}, {Key: "_id", Value: 6}, {Key: "a.b", Value: bson.D{{Key: "$y", Value: true}}}},
			bson.D{{Key: "s", Value: "no id"}},
		}, options.InsertMany().SetOrdered(false))
		var bwe mongo.BulkWriteException
		if !errors.As(err, &bwe) || len(bwe.WriteErrors) != 1 || bwe.WriteErrors[0].Index != 1 || bwe.WriteErrors[0].Code != 53 {
			t.Fatalf("unordered batch: %v", err)
		}
		_ = res
		var got bson.D
		if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: 6}}).Decode(&got); err != nil {
			t.Fatal(err)
		}
		want := bson.D{{Key: "_id", Value: int32(6)}, {Key: "$x", Value: int32(1)}, {Key: "a.b", Value: bson.D{{Key: "$y", Value: true}}}}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("stored %v, want %v", got, want)
		}
		n, err := coll.CountDocuments(ctx, bson.D{})
		if err != nil || n != 3 {
			t.Fatalf("count %d, %v; want 3", n, err)
		}
	})
}

// TestInsertSequenceInvalidBSON: a malformed document in an insert's
// document sequence fails the whole insert with InvalidBSON; nothing of
// it is written and the connection stays usable.
func TestInsertSequenceInvalidBSON(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	c := rawConn(t, e.listen(t))
	good := mustMarshal(t, bson.D{{Key: "_id", Value: int32(1)}})
	for _, bad := range [][]byte{
		{12, 0, 0, 0, 0x08, 'b', 0, 7, 0, 0, 0, 0},      // a boolean of 7
		{13, 0, 0, 0, 0x02, 's', 0, 9, 0, 0, 0, 'x', 0}, // a string longer than its document
		{8, 0, 0, 0, 0x21, 'u', 0, 0},                   // an unknown type
	} {
		c.Write(msgWithSequence(t, mustMarshal(t, bson.D{{Key: "insert", Value: "bad"}, {Key: "ordered", Value: false}, {Key: "$db", Value: "app"}}), "documents", good, bad))
		if _, d := readReply(t, c); lookup(d, "code") != int32(22) {
			t.Fatalf("% x: reply %v, want code 22", bad, d)
		}
	}
	c.Write(EncodeMsg(2, 0, 0, mustMarshal(t, bson.D{{Key: "count", Value: "bad"}, {Key: "$db", Value: "app"}}), false))
	if _, d := readReply(t, c); lookup(d, "n") != int32(0) {
		t.Fatalf("count after refused inserts: %v", d)
	}
}
