package engine

import (
	"testing"

	"github.com/klauspost/compress/s2"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Deltas written by earlier versions (rows as documents, the meta value
// stored as null) still read back, after column-form deltas of the same
// bucket: count, find (meta restored, field order kept), collStats and
// validate see them.
func TestTimeseriesRowDeltaCompat(t *testing.T) {
	t.Parallel()
	db, clk, dir := openTest(t)
	mustRun(t, db, "test", `{"create": "w", "timeseries": {"timeField": "t", "metaField": "m"}}`)
	now := clk.Now()
	mustInsertTS(t, db, "w", tsMeas(now, "a", 0), tsMeas(now.Add(1e9), "a", 1), tsMeas(now.Add(2e9), "a", 2))
	mustInsertTS(t, db, "w", tsMeas(now.Add(3e9), "a", 3)) // a column-form delta, seq 0
	deltas, bases := tsDeltaCounts(t, db, "w")
	if len(bases) != 1 || len(deltas) != 1 {
		t.Fatalf("bases %v deltas %v, want one bucket with one delta", bases, deltas)
	}
	var rid uint64
	for r := range bases {
		rid = r
	}
	db = reopen(t, db, dir, clk)
	// An old-form delta, seq 1: {v, t, m: null, _id} in that order.
	old := bson.D{{Key: "v", Value: int32(4)}, {Key: "t", Value: bson.NewDateTimeFromTime(now.Add(4e9))}, {Key: "m", Value: nil}, {Key: "_id", Value: int32(44)}}
	raw, err := document.Marshal(bson.D{{Key: "r", Value: bson.A{old}}})
	if err != nil {
		t.Fatal(err)
	}
	bid := db.lookup("test", "system.buckets.w").m().ID
	if err := db.store.Update(func(txn *lsm.Txn) error {
		return txn.Set(tsDeltaKey(bid, rid, 1), s2.Encode(nil, raw))
	}); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, "test", "w"); n != 5 {
		t.Fatalf("count = %d, want 5", n)
	}
	got := findAll(t, db, "test", "w", bson.D{{Key: "v", Value: int32(4)}})
	if len(got) != 1 || field(got[0], "m") != "a" || got[0][0].Key != "v" || field(got[0], "_id") != int32(44) {
		t.Fatalf("old-form measurement read as %v", got)
	}
	if r := mustRun(t, db, "test", `{"collStats": "w"}`); field(r, "timeseries.bucketCount") != int32(1) {
		t.Fatalf("collStats bucketCount %v, want 1", field(r, "timeseries.bucketCount"))
	}
	mustValidate(t, db, "test", "w")
}
