package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/document"
)

// TestCurrentOpStage: {aggregate: 1} on admin with $currentOp first
// lists the operations running now, the engine's and those of the
// operations source (a wire server's clients), and the stages after it
// filter them, a leading $match included; the currentOp command lists
// the source's too.
func TestCurrentOpStage(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	db.SetOperationsSource(func() []bson.D {
		return []bson.D{
			{{Key: "opid", Value: int32(7)}, {Key: "desc", Value: "conn1"}, {Key: "op", Value: "command"}},
			{{Key: "opid", Value: int32(8)}, {Key: "desc", Value: "conn2"}, {Key: "op", Value: "query"}},
		}
	})
	r, err := run(t, db, "admin", `{"aggregate": 1, "pipeline": [{"$currentOp": {"allUsers": true, "idleConnections": false, "truncateOps": false}}], "cursor": {}}`)
	if err != nil {
		t.Fatal(err)
	}
	if docs := firstBatch(t, r); len(docs) != 2 {
		t.Fatalf("%d operations, want the source's 2: %v", len(docs), docs)
	}
	r, err = run(t, db, "admin", `{"aggregate": 1, "pipeline": [{"$currentOp": {}}, {"$match": {"op": "query"}}, {"$project": {"_id": 0, "desc": 1}}], "cursor": {}}`)
	if err != nil {
		t.Fatal(err)
	}
	if docs := firstBatch(t, r); len(docs) != 1 || docs[0].String() != `{"desc":"conn2"}` {
		t.Fatalf("after $match and $project: %v, want conn2's", docs)
	}
	r, err = run(t, db, "admin", `{"currentOp": 1, "op": "command"}`)
	if err != nil {
		t.Fatal(err)
	}
	if inprog, _ := get(r, "inprog"); len(inprog.(bson.A)) != 1 {
		t.Fatalf("currentOp command with a filter: %v, want the source's one command", inprog)
	}
	// A leading $match after a stage that makes its own documents is
	// not handed to a collection scan ($collStats too).
	if _, err := db.Database("test").Collection("c").InsertOne(context.Background(), bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	for want, filter := range map[int]string{1: `{"count": 1}`, 0: `{"count": 5}`} {
		r, err = run(t, db, "test", `{"aggregate": "c", "pipeline": [{"$collStats": {"count": {}}}, {"$match": `+filter+`}], "cursor": {}}`)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(firstBatch(t, r)); got != want {
			t.Errorf("$collStats then $match %s: %d documents, want %d", filter, got, want)
		}
	}
}

// TestCurrentOpStageErrors: the refusals of $currentOp, with MongoDB's
// codes and words.
func TestCurrentOpStageErrors(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	for _, tc := range []struct {
		dbName, cmd string
		code        document.Code
		frag        string
	}{
		{"test", `{"aggregate": 1, "pipeline": [{"$currentOp": {}}], "cursor": {}}`, document.CodeInvalidNamespace, "must be run against the 'admin' database with {aggregate: 1}"},
		{"admin", `{"aggregate": "c", "pipeline": [{"$currentOp": {}}], "cursor": {}}`, document.CodeInvalidNamespace, "must be run against the 'admin' database"},
		{"admin", `{"aggregate": 1, "pipeline": [{"$currentOp": 1}], "cursor": {}}`, document.CodeFailedToParse, "must be specified in an object"},
		{"admin", `{"aggregate": 1, "pipeline": [{"$currentOp": {"nosuch": true}}], "cursor": {}}`, document.CodeFailedToParse, "Unrecognized option 'nosuch' in $currentOp stage."},
		{"admin", `{"aggregate": 1, "pipeline": [{"$currentOp": {"allUsers": 1}}], "cursor": {}}`, document.CodeFailedToParse, "The 'allUsers' parameter of the $currentOp stage must be a boolean value"},
		{"admin", `{"aggregate": 1, "pipeline": [{"$match": {}}, {"$currentOp": {}}], "cursor": {}}`, 40602, "only valid as the first stage"},
	} {
		_, err := run(t, db, tc.dbName, tc.cmd)
		checkCode(t, tc.cmd, err, tc.code, tc.frag)
	}
}

// TestOperationsFilter: under WithOperationsFilter the currentOp
// command and the $currentOp stage list only the operations the filter
// keeps (a front end's $ownOps), and HasCommand knows the engine's
// commands and their aliases only.
func TestOperationsFilter(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	db.SetOperationsSource(func() []bson.D {
		return []bson.D{
			{{Key: "opid", Value: int32(7)}, {Key: "desc", Value: "conn1"}},
			{{Key: "opid", Value: int32(8)}, {Key: "desc", Value: "conn2"}},
		}
	})
	ctx := WithOperationsFilter(context.Background(), func(op bson.D) bool {
		v, _ := get(op, "desc")
		return v == "conn2"
	})
	for _, cmd := range []bson.D{
		{{Key: "currentOp", Value: 1}},
		{{Key: "aggregate", Value: 1}, {Key: "pipeline", Value: bson.A{bson.D{{Key: "$currentOp", Value: bson.D{}}}}}, {Key: "cursor", Value: bson.D{}}},
	} {
		r, err := db.RunCommand(ctx, "admin", cmd)
		if err != nil {
			t.Fatal(err)
		}
		ops, _ := get(r, "inprog")
		if cur, ok := get(r, "cursor"); ok {
			ops, _ = get(cur.(bson.D), "firstBatch")
		}
		if a, _ := ops.(bson.A); len(a) != 1 || !strings.Contains(fmt.Sprint(a[0]), "conn2") {
			t.Errorf("%v under a filter keeping conn2: %v", cmd[0].Key, r)
		}
	}
	for name, want := range map[string]bool{"find": true, "findandmodify": true, "currentOp": true, "saslStart": false, "noSuchCommand": false} {
		if HasCommand(name) != want {
			t.Errorf("HasCommand(%q) = %v, want %v", name, !want, want)
		}
	}
}

// TestCurrentOpHost: each operation names the server in host, after its
// type, as mongod's: host:port behind a front end that gives the port
// (WithListenPort), the machine's name alone embedded; an operation that
// names its host keeps it.
func TestCurrentOpHost(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	db.SetOperationsSource(func() []bson.D {
		return []bson.D{
			{{Key: "type", Value: "op"}, {Key: "opid", Value: int32(7)}},
			{{Key: "opid", Value: int32(8)}},
			{{Key: "type", Value: "op"}, {Key: "host", Value: "elsewhere:1"}, {Key: "opid", Value: int32(9)}},
		}
	})
	cmd := bson.D{{Key: "currentOp", Value: 1}}
	for _, c := range []struct {
		ctx  context.Context
		host string
	}{
		{context.Background(), hostName()},
		{WithListenPort(context.Background(), 27017), hostName() + ":27017"},
	} {
		r, err := db.RunCommand(c.ctx, "admin", cmd)
		if err != nil {
			t.Fatal(err)
		}
		inprog, _ := get(r, "inprog")
		var got []string
		for _, op := range inprog.(bson.A) {
			got = append(got, document.Format(op))
		}
		want := []string{
			fmt.Sprintf(`{ type: "op", host: "%s", opid: 7 }`, c.host),
			fmt.Sprintf(`{ host: "%s", opid: 8 }`, c.host),
			`{ type: "op", host: "elsewhere:1", opid: 9 }`,
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("ops:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}
