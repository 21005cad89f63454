package engine

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestInsertManyRawAPI: Collection.InsertMany and InsertOne given
// bson.Raw documents take the raw path and give what the same documents
// as bson.D give: the _ids, the write errors' positions and codes, the
// stored documents, into an ordinary and a capped collection. A
// document that is not valid BSON is a BadValue write error of its own,
// and the valid rest is kept as the ordering says.
func TestInsertManyRawAPI(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dDB, _, _ := openTest(t)
	rDB, _, _ := openTest(t)
	facts := func(res *InsertManyResult, err error) string {
		s := ""
		if res != nil {
			s = fmt.Sprint(res.InsertedIDs)
		}
		var bwe *BulkWriteError
		if errors.As(err, &bwe) {
			for _, we := range bwe.WriteErrors {
				s += fmt.Sprintf(" [%d:%d]", we.Index, we.Err.Code)
			}
		} else if err != nil {
			s += " " + err.Error()
		}
		return s
	}
	for _, coll := range []string{"plain", "capped"} {
		if coll == "capped" {
			for _, db := range []*DB{dDB, rDB} {
				if err := db.Database("db").CreateCollection(ctx, coll, bson.D{{Key: "capped", Value: true}, {Key: "size", Value: int64(64 << 20)}}); err != nil {
					t.Fatal(err)
				}
			}
		}
		var ds, rs []any
		docs, raws := rawRuleBSON(t)
		for i, d := range docs {
			if len(d) == 0 || d[0].Key != "_id" {
				continue // a generated _id differs
			}
			ds, rs = append(ds, d), append(rs, raws[i])
		}
		for _, ordered := range []bool{false, true} {
			dc, rc := dDB.Database("db").Collection(coll), rDB.Database("db").Collection(coll)
			want := facts(dc.InsertMany(ctx, ds, ordered))
			if got := facts(rc.InsertMany(ctx, rs, ordered)); got != want {
				t.Fatalf("%s ordered=%v: bson.Raw gave\n%s\nbson.D gave\n%s", coll, ordered, got, want)
			}
		}
		if w, g := findAll(t, dDB, "db", coll, bson.D{}), findAll(t, rDB, "db", coll, bson.D{}); !reflect.DeepEqual(g, w) {
			t.Fatalf("%s: stored from bson.Raw\n%v\nfrom bson.D\n%v", coll, g, w)
		}
		one, _ := bson.Marshal(bson.D{{Key: "s", Value: "generated id"}})
		res, err := rDB.Database("db").Collection(coll).InsertOne(ctx, bson.Raw(one))
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := res.InsertedID.(bson.ObjectID); !ok {
			t.Fatalf("%s: InsertOne of a bson.Raw without _id returned _id %#v, want an ObjectID", coll, res.InsertedID)
		}
		if d, err := rDB.Database("db").Collection(coll).FindOne(ctx, bson.D{{Key: "_id", Value: res.InsertedID}}); err != nil || d == nil {
			t.Fatalf("%s: the inserted document is not found: %v %v", coll, d, err)
		}
	}
	bad := []byte{12, 0, 0, 0, 0x08, 'b', 0, 7, 0, 0, 0, 0} // a boolean of 7
	raw := func(id int32) bson.Raw { b, _ := bson.Marshal(bson.D{{Key: "_id", Value: id}}); return b }
	for _, coll := range []string{"plain", "capped"} {
		c := rDB.Database("db").Collection(coll)
		for _, ordered := range []bool{false, true} {
			base := int32(100)
			if ordered {
				base = 200
			}
			_, err := c.InsertMany(ctx, []any{raw(base), bson.Raw(bad), raw(base + 1)}, ordered)
			var bwe *BulkWriteError
			if !errors.As(err, &bwe) || len(bwe.WriteErrors) != 1 || bwe.WriteErrors[0].Index != 1 || document.CodeOf(bwe.WriteErrors[0].Err) != document.CodeBadValue {
				t.Fatalf("%s ordered=%v: %v, want one BadValue write error at index 1", coll, ordered, err)
			}
			for id, want := range map[int32]bool{base: true, base + 1: !ordered} {
				if d, _ := c.FindOne(ctx, bson.D{{Key: "_id", Value: id}}); (d != nil) != want {
					t.Fatalf("%s ordered=%v: _id %d present %v, want %v", coll, ordered, id, d != nil, want)
				}
			}
		}
	}
}
