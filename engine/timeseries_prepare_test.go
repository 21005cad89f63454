package engine

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// tsPrepare gives what prepareInsert gives (documents and errors), apart
// from the value of a generated _id; generated ids are distinct
// ObjectIDs of the current second.
func TestTSPrepareMatchesPrepareInsert(t *testing.T) {
	t.Parallel()
	now := bson.NewDateTimeFromTime(time.Now())
	deep := bson.D{{Key: "x", Value: int32(1)}}
	for i := 0; i < 200; i++ {
		deep = bson.D{{Key: "x", Value: deep}}
	}
	cases := []struct {
		name string
		in   any
	}{
		{"no _id", bson.D{{Key: "t", Value: now}, {Key: "v", Value: 1.5}}},
		{"_id first", bson.D{{Key: "_id", Value: int32(7)}, {Key: "t", Value: now}}},
		{"_id later", bson.D{{Key: "t", Value: now}, {Key: "_id", Value: "k"}, {Key: "v", Value: int32(1)}}},
		{"map", bson.M{"t": now}},
		{"empty", bson.D{}},
		{"wide", func() bson.D {
			d := bson.D{{Key: "t", Value: now}}
			for i := 0; i < 2000; i++ {
				d = append(d, bson.E{Key: "f" + strings.Repeat("x", i%7) + strconv.Itoa(i), Value: int32(i)})
			}
			return d
		}()},
		{"array _id", bson.D{{Key: "_id", Value: bson.A{int32(1)}}, {Key: "t", Value: now}}},
		{"NUL in name", bson.D{{Key: "a\x00b", Value: int32(1)}}},
		{"too deep", bson.D{{Key: "t", Value: now}, {Key: "d", Value: deep}}},
		{"nil", nil},
	}
	p := newTSPrepare(len(cases))
	seen := map[bson.ObjectID]bool{}
	for _, c := range cases {
		want, werr := prepareInsert(c.in)
		got, gerr := p.prepare(c.in)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("%s: err %v, prepareInsert %v", c.name, gerr, werr)
		}
		if werr != nil {
			checkCode(t, c.name, gerr, werr.(*document.Error).Code, "")
			continue
		}
		if len(got) != len(want) || cap(got) != len(got) {
			t.Fatalf("%s: got %d fields (cap %d), want %d", c.name, len(got), cap(got), len(want))
		}
		if id, gen := got[0].Value.(bson.ObjectID); gen && isOID(want[0].Value) {
			if seen[id] {
				t.Fatalf("%s: _id %v handed out twice", c.name, id)
			}
			seen[id] = true
			if d := time.Since(id.Timestamp()); d < -time.Second || d > time.Minute {
				t.Fatalf("%s: _id timestamp %v is not now", c.name, id.Timestamp())
			}
			got, want = got[1:], want[1:]
		}
		if !document.Equal(got, want) {
			t.Fatalf("%s: got %v, want %v", c.name, got, want)
		}
	}
	// Ids are distinct across many measurements and inserts.
	for k := 0; k < 3; k++ {
		q := newTSPrepare(5000)
		for i := 0; i < 5000; i++ {
			d, err := q.prepare(bson.D{{Key: "t", Value: now}})
			if err != nil {
				t.Fatal(err)
			}
			id := d[0].Value.(bson.ObjectID)
			if seen[id] {
				t.Fatalf("_id %v handed out twice", id)
			}
			seen[id] = true
		}
	}
}

func isOID(v any) bool {
	_, ok := v.(bson.ObjectID)
	return ok
}
