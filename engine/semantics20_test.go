package engine

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestFindTailableSingleBatch: MongoDB refuses a tailable cursor that is
// also single-batch (query_request_helper's validateFindCommandRequest:
// 2 BadValue), whether singleBatch is given or comes from the shell's
// addOption(2).limit(-1), which sends a negative limit.
func TestFindTailableSingleBatch(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "cap", "capped": true, "size": 4096}`)
	mustRun(t, db, "test", `{"insert": "cap", "documents": [{"_id": 1}]}`)
	wantCode(t, db, "test", `{"find": "cap", "tailable": true, "singleBatch": true}`, document.CodeBadValue, "singleBatch")
	wantCode(t, db, "test", `{"find": "cap", "tailable": true, "singleBatch": true, "batchSize": 0}`, document.CodeBadValue, "singleBatch")
	_, err := db.Database("test").Collection("cap").Find(context.Background(), bson.D{}, FindOptions{Tailable: true, Limit: -1})
	checkCode(t, "Find tailable limit -1", err, document.CodeBadValue, "singleBatch")
	// Either alone is fine.
	mustRun(t, db, "test", `{"find": "cap", "tailable": true}`)
	mustRun(t, db, "test", `{"find": "cap", "singleBatch": true}`)
}

// TestConvertToCappedNoDatabase: convertToCapped on a database that does
// not exist says so, as MongoDB's capped_utils.cpp does (26
// NamespaceNotFound "database ... not found"); a missing collection in an
// existing database keeps its own message.
func TestConvertToCappedNoDatabase(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	wantCode(t, db, "nodb", `{"convertToCapped": "c", "size": 4096}`, document.CodeNamespaceNotFound, "database nodb not found")
	mustRun(t, db, "test", `{"insert": "other", "documents": [{"_id": 1}]}`)
	wantCode(t, db, "test", `{"convertToCapped": "c", "size": 4096}`, document.CodeNamespaceNotFound, "source collection test.c does not exist")
}

// TestCollStatsScale: collStats divides every size by scale (not
// avgObjSize) and reports scaleFactor; a capped collection reports max
// (0 without one) and maxSize/scale (storage_stats.cpp); the shell's
// db.c.stats(n) sends the same scale.
func TestCollStatsScale(t *testing.T) {
	t.Parallel()
	db, _, _ := openTest(t)
	var docs []string
	for i := 0; i < 200; i++ {
		docs = append(docs, `{"s": "`+strings.Repeat("x", 100)+`"}`)
	}
	loadCorpus(t, db, "test", "c", docs)
	one := mustRun(t, db, "test", `{"collStats": "c"}`)
	k := mustRun(t, db, "test", `{"collStats": "c", "scale": 1024}`)
	num := func(d bson.D, f string) int64 {
		switch v := field(d, f).(type) {
		case int32:
			return int64(v)
		case int64:
			return v
		}
		t.Fatalf("%s = %T %v", f, field(d, f), field(d, f))
		return 0
	}
	for _, f := range []string{"size", "storageSize", "totalIndexSize", "indexSizes._id_", "totalSize"} {
		if got, want := num(k, f), num(one, f)/1024; got != want {
			t.Errorf("%s at scale 1024 = %d, want %d", f, got, want)
		}
	}
	if num(k, "avgObjSize") != num(one, "avgObjSize") || num(k, "count") != 200 {
		t.Errorf("avgObjSize or count scaled: %v", k)
	}
	if field(k, "scaleFactor") != int32(1024) || field(one, "scaleFactor") != int32(1) {
		t.Errorf("scaleFactor = %v / %v", field(k, "scaleFactor"), field(one, "scaleFactor"))
	}
	mustRun(t, db, "test", `{"create": "cap", "capped": true, "size": 1048576}`)
	r := mustRun(t, db, "test", `{"collStats": "cap", "scale": 1024}`)
	if field(r, "max") != int32(0) || field(r, "maxSize") != int32(1024) {
		t.Errorf("capped without max: max %v maxSize %v, want 0 and 1024", field(r, "max"), field(r, "maxSize"))
	}
	wantCode(t, db, "test", `{"collStats": "c", "scale": 0}`, codeIDLValidator, "scale")
	wantCode(t, db, "test", `{"collStats": "c", "scale": "k"}`, document.CodeTypeMismatch, "scale")
}

// TestCloneCollectionAsCapped: the clone is a capped collection of the
// given (normalised) size holding the source's documents in natural
// order, the oldest dropped when they do not fit; the source is
// unchanged; MongoDB's errors for a missing source (26), an existing
// destination (48), missing fields (40414) and a time-series source (166).
func TestCloneCollectionAsCapped(t *testing.T) {
	t.Parallel()
	db, _, _ := openTest(t)
	var docs []string
	for i := 0; i < 500; i++ {
		docs = append(docs, `{"_id": `+itoa(i)+`, "pad": "`+strings.Repeat("p", 200)+`"}`)
	}
	loadCorpus(t, db, "test", "src", docs)
	mustRun(t, db, "test", `{"cloneCollectionAsCapped": "src", "toCollection": "big", "size": 1048576}`)
	mustRun(t, db, "test", `{"cloneCollectionAsCapped": "src", "toCollection": "small", "size": 10000}`)
	if n := count(t, db, "test", "src"); n != 500 {
		t.Errorf("source count %d after clone, want 500", n)
	}
	if n := count(t, db, "test", "big"); n != 500 {
		t.Errorf("big clone count %d, want 500", n)
	}
	small := findAll(t, db, "test", "small", bson.D{})
	if len(small) == 0 || len(small) >= 500 || field(small[len(small)-1], "_id") != int32(499) {
		t.Fatalf("small clone holds %d documents, last %v; want the newest that fit", len(small), small[len(small)-1])
	}
	for i := 1; i < len(small); i++ {
		if field(small[i], "_id").(int32) != field(small[i-1], "_id").(int32)+1 {
			t.Fatalf("small clone not in natural order at %d", i)
		}
	}
	r := mustRun(t, db, "test", `{"listCollections": 1, "filter": {"name": "small"}}`)
	if opts := field(firstBatch(t, r)[0], "options"); field(opts.(bson.D), "capped") != true || field(opts.(bson.D), "size") != int32(10000) {
		t.Errorf("small options = %v, want capped with size 10000 (as given)", opts)
	}
	mustValidate(t, db, "test", "small")
	wantCode(t, db, "test", `{"cloneCollectionAsCapped": "nope", "toCollection": "x", "size": 4096}`, document.CodeNamespaceNotFound, "does not exist")
	wantCode(t, db, "nodb", `{"cloneCollectionAsCapped": "nope", "toCollection": "x", "size": 4096}`, document.CodeNamespaceNotFound, "database nodb not found")
	wantCode(t, db, "test", `{"cloneCollectionAsCapped": "src", "toCollection": "big", "size": 4096}`, document.CodeNamespaceExists, "already exists")
	wantCode(t, db, "test", `{"cloneCollectionAsCapped": "src", "size": 4096}`, codeIDLFailedToParse, "toCollection")
	wantCode(t, db, "test", `{"cloneCollectionAsCapped": "src", "toCollection": "y"}`, codeIDLFailedToParse, "size")
	mustRun(t, db, "test", `{"create": "ts", "timeseries": {"timeField": "t"}}`)
	wantCode(t, db, "test", `{"cloneCollectionAsCapped": "ts", "toCollection": "z", "size": 4096}`, document.CodeCommandNotSupportedOnView, "time-series")
	if db.lookup("test", "z") != nil || db.lookup("test", "y") != nil {
		t.Error("a failed clone left its destination behind")
	}
}

// TestDataSize: {dataSize: "db.coll"} reports the documents' bytes and
// count as collStats's size and count, as longs (mongod 7.0's
// DataSizeReply); a missing collection is 0 and 0. The ranged form is
// TestReviewAdmin27DataSizeKeyRange's.
func TestDataSize(t *testing.T) {
	t.Parallel()
	db, _, _ := openTest(t)
	loadCorpus(t, db, "test", "c", []string{`{"_id": 1, "a": "x"}`, `{"_id": 2, "a": "yy"}`})
	r := mustRun(t, db, "test", `{"dataSize": "test.c"}`)
	st := mustRun(t, db, "test", `{"collStats": "c"}`)
	if size, _ := asInt64(field(st, "size")); field(r, "size") != size || field(r, "numObjects") != int64(2) {
		t.Errorf("dataSize = %v, collStats size %v", r, field(st, "size"))
	}
	if _, ok := get(r, "millis"); !ok {
		t.Errorf("dataSize lacks millis: %v", r)
	}
	r = mustRun(t, db, "test", `{"dataSize": "test.none"}`)
	if field(r, "size") != int64(0) || field(r, "numObjects") != int64(0) {
		t.Errorf("dataSize of a missing collection = %v", r)
	}
	wantCode(t, db, "test", `{"dataSize": "nodots"}`, document.CodeInvalidNamespace, "nodots")
	wantCode(t, db, "test", `{"dataSize": 1}`, document.CodeTypeMismatch, "dataSize")
}

func itoa(i int) string { return strconv.Itoa(i) }
