package engine

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// dbHash hashes each collection's documents in _id order (a capped
// one's in natural order) as mongod does, so two stores that hold the
// same documents, written in any order, answer the same hashes.
func TestDBHash(t *testing.T) {
	t.Parallel()
	docs := []string{`{"_id": 1, "a": {"$numberLong": "5"}, "s": "x"}`, `{"_id": 2, "d": 2.5}`, `{"_id": 3, "arr": [1, {"b": null}]}`}
	md5hex := func(parts ...[]byte) string {
		h := md5.New()
		for _, p := range parts {
			h.Write(p)
		}
		return hex.EncodeToString(h.Sum(nil))
	}
	var raw [][]byte
	for _, s := range docs {
		d, err := document.ParseExtJSON([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		b, err := bson.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		raw = append(raw, b)
	}
	wantA := md5hex(raw...)
	const empty = "d41d8cd98f00b204e9800998ecf8427e" // MD5 of nothing

	load := func(order []int) *DB {
		db, _ := openMem(t)
		for _, i := range order {
			mustRun(t, db, "test", `{"insert": "a", "documents": [`+docs[i]+`]}`)
		}
		mustRun(t, db, "test", `{"create": "e"}`)
		mustRun(t, db, "test", `{"create": "cap", "capped": true, "size": 4096}`)
		mustRun(t, db, "test", `{"insert": "cap", "documents": [{"_id": 9, "m": "first"}, {"_id": 1, "m": "second"}]}`)
		mustRun(t, db, "test", `{"create": "v", "viewOn": "a", "pipeline": []}`)
		mustRun(t, db, "test", `{"create": "ts", "timeseries": {"timeField": "t"}}`)
		mustRun(t, db, "test", `{"insert": "ts", "documents": [{"t": {"$date": "2026-01-01T00:00:00Z"}, "v": 1}]}`)
		return db
	}
	db1, db2 := load([]int{0, 1, 2}), load([]int{2, 0, 1})
	// Buckets are left out of the comparison: a bucket's _id is an
	// ObjectId made when it opens, so two stores' buckets differ.
	cmp := `{"dbHash": 1, "collections": ["a", "cap", "e"]}`
	if r1, r2 := mustRun(t, db1, "test", cmp), mustRun(t, db2, "test", cmp); !document.Equal(field(r1, "collections"), field(r2, "collections")) || field(r1, "md5") != field(r2, "md5") {
		t.Fatalf("the same documents hash apart:\n%v\n%v", r1, r2)
	}
	r1 := mustRun(t, db1, "test", `{"dbHash": 1}`)
	colls, _ := field(r1, "collections").(bson.D)
	var names []string
	for _, e := range colls {
		names = append(names, e.Key)
	}
	if got := len(names); got != 4 || names[0] != "a" || names[1] != "cap" || names[2] != "e" || names[3] != "system.buckets.ts" {
		t.Fatalf("collections %v, want a, cap, e, system.buckets.ts (no view, no time-series view)", names)
	}
	if field(r1, "collections.a") != wantA || field(r1, "collections.e") != empty {
		t.Fatalf("a %v (want %s), e %v (want %s)", field(r1, "collections.a"), wantA, field(r1, "collections.e"), empty)
	}
	var all []byte
	for _, e := range colls {
		all = append(all, e.Value.(string)...)
	}
	if field(r1, "md5") != md5hex(all) || len(field(r1, "collections").(bson.D)) != 4 || !document.Equal(field(r1, "capped"), bson.A{"cap"}) {
		t.Fatalf("reply %v", r1)
	}
	// The capped collection is hashed in natural order, not _id order.
	c1, _ := document.ParseExtJSON([]byte(`{"_id": 9, "m": "first"}`))
	c2, _ := document.ParseExtJSON([]byte(`{"_id": 1, "m": "second"}`))
	b1, _ := bson.Marshal(c1)
	b2, _ := bson.Marshal(c2)
	if field(r1, "collections.cap") != md5hex(b1, b2) {
		t.Errorf("cap hashed out of natural order: %v", field(r1, "collections.cap"))
	}
	// A change to one document changes its collection's hash only.
	mustRun(t, db2, "test", `{"update": "a", "updates": [{"q": {"_id": 2}, "u": {"$set": {"d": 2.0}}}]}`)
	r3 := mustRun(t, db2, "test", `{"dbHash": 1, "collections": ["a", "e", "nosuch"]}`)
	if field(r3, "collections.a") == wantA || field(r3, "collections.e") != empty || len(field(r3, "collections").(bson.D)) != 2 {
		t.Fatalf("after an update: %v", r3)
	}
	wantCode(t, db1, "test", `{"dbHash": 1, "collections": "a"}`, document.CodeTypeMismatch, "")
}

// dbHash answers mongod 7.0's fields in its order (host, collections,
// capped, uuids, md5, timeMillis), each collection's UUID the one
// listCollections shows; host is the machine's name, with the port a
// front end gives (WithListenPort) unless it is 27017, as mongod's
// prettyHostName. $collStats and $indexStats name the host with its
// port whenever it is known (mongod's getHostNameCachedAndPort).
func TestDBHashShapeAndHosts(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "a", "documents": [{"_id": 1}]}`)
	r := mustRun(t, db, "test", `{"dbHash": 1}`)
	var keys []string
	for _, e := range r {
		keys = append(keys, e.Key)
	}
	if strings.Join(keys, ",") != "host,collections,capped,uuids,md5,timeMillis,ok" {
		t.Errorf("dbHash fields: %v", keys)
	}
	u, _ := field(r, "uuids.a").(bson.Binary)
	listed, _ := field(firstBatch(t, mustRun(t, db, "test", `{"listCollections": 1}`))[0], "info.uuid").(bson.Binary)
	if u.Subtype != bson.TypeBinaryUUID || len(u.Data) != 16 || !bytes.Equal(u.Data, listed.Data) {
		t.Errorf("dbHash uuids.a %v, listCollections %v", u, listed)
	}
	host := hostName()
	if host == "" || field(r, "host") != host {
		t.Errorf("embedded dbHash host %v, want %q", field(r, "host"), host)
	}
	hostOf := func(ctx context.Context, cmd string) any {
		c, err := document.ParseExtJSON([]byte(cmd))
		if err != nil {
			t.Fatal(err)
		}
		r, err := db.RunCommand(ctx, "test", c)
		if err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
		if b := field(r, "cursor.firstBatch"); b != nil {
			return field(b.(bson.A)[0].(bson.D), "host")
		}
		return field(r, "host")
	}
	collStats := `{"aggregate": "a", "pipeline": [{"$collStats": {"count": {}}}], "cursor": {}}`
	indexStats := `{"aggregate": "a", "pipeline": [{"$indexStats": {}}], "cursor": {}}`
	for _, c := range []struct {
		port                      int
		dbHash, collStats, ixStat string
	}{
		{0, host, host, host},
		{27017, host, host + ":27017", host + ":27017"},
		{40123, host + ":40123", host + ":40123", host + ":40123"},
	} {
		ctx := context.Background()
		if c.port != 0 {
			ctx = WithListenPort(ctx, c.port)
		}
		if got := hostOf(ctx, `{"dbHash": 1}`); got != c.dbHash {
			t.Errorf("port %d: dbHash host %v, want %s", c.port, got, c.dbHash)
		}
		if got := hostOf(ctx, collStats); got != c.collStats {
			t.Errorf("port %d: $collStats host %v, want %s", c.port, got, c.collStats)
		}
		if got := hostOf(ctx, indexStats); got != c.ixStat {
			t.Errorf("port %d: $indexStats host %v, want %s", c.port, got, c.ixStat)
		}
	}
}
