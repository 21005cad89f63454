package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// docs/commands.md §0 names: database names are non-empty, under 64 characters,
// without /\. "$ or NUL. Violations are 73 InvalidNamespace, through
// commands and through the Go API; one byte under the limit is fine.
func TestDatabaseNames(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	ctx := context.Background()
	bad := []string{"", strings.Repeat("d", 64), strings.Repeat("d", 100),
		"a/b", `a\b`, "a.b", "a b", `a"b`, "a$b", "a\x00b"}
	for _, name := range bad {
		cmd := bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{{Key: "x", Value: 1}}}}}
		r, err := db.RunCommand(ctx, name, cmd)
		checkCode(t, "insert into db "+quoteName(name), err, document.CodeInvalidNamespace, "")
		if c, _ := get(r, "code"); c != int32(document.CodeInvalidNamespace) {
			t.Errorf("db %q: reply %v", name, r)
		}
		_, err = db.Database(name).Collection("c").InsertOne(ctx, bson.D{{Key: "x", Value: 1}})
		checkCode(t, "InsertOne into db "+quoteName(name), err, document.CodeInvalidNamespace, "")
		_, err = db.RunCommand(ctx, name, bson.D{{Key: "create", Value: "c"}})
		checkCode(t, "create in db "+quoteName(name), err, document.CodeInvalidNamespace, "")
	}
	if names := db.DatabaseNames(); fmt.Sprint(names) != "[admin]" {
		t.Fatalf("failed inserts created databases %q", names)
	}
	good := strings.Repeat("d", 63)
	mustRun(t, db, good, `{"insert": "c", "documents": [{"x": 1}]}`)
	if n := count(t, db, good, "c"); n != 1 {
		t.Fatalf("count in 63-char db = %d", n)
	}
}

func quoteName(s string) string { return "'" + strings.ReplaceAll(s, "\x00", `\0`) + "'" }

// docs/commands.md §0 names: collection names are non-empty, without $ or NUL, not
// system.*, and db.coll is at most 255 bytes.
func TestCollectionNames(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	ctx := context.Background()
	long := strings.Repeat("c", 255-len("test."))
	bad := []string{"", "$", "a$b", "$cmd", "a\x00b", "system.foo", "system.users", long + "x"}
	for _, name := range bad {
		docs := bson.A{bson.D{{Key: "x", Value: 1}}}
		for _, cmd := range []bson.D{
			{{Key: "insert", Value: name}, {Key: "documents", Value: docs}},
			{{Key: "create", Value: name}},
			{{Key: "createIndexes", Value: name}, {Key: "indexes", Value: bson.A{bson.D{{Key: "key", Value: bson.D{{Key: "a", Value: 1}}}, {Key: "name", Value: "a_1"}}}}},
			{{Key: "update", Value: name}, {Key: "updates", Value: bson.A{bson.D{{Key: "q", Value: bson.D{}}, {Key: "u", Value: bson.D{{Key: "$set", Value: bson.D{{Key: "a", Value: 1}}}}}, {Key: "upsert", Value: true}}}}},
		} {
			r, err := db.RunCommand(ctx, "test", cmd)
			if cmd[0].Key == "update" {
				// Statement errors are writeErrors; either form must carry 73.
				if err == nil {
					we, _ := field(r, "writeErrors").(bson.A)
					if len(we) != 1 || field(we[0].(bson.D), "code") != int32(document.CodeInvalidNamespace) {
						t.Errorf("upsert into %q: reply %v", name, r)
					}
					continue
				}
			}
			checkCode(t, cmd[0].Key+" "+quoteName(name), err, document.CodeInvalidNamespace, "")
		}
		_, err := db.Database("test").Collection(name).InsertOne(ctx, bson.D{{Key: "x", Value: 1}})
		checkCode(t, "InsertOne "+quoteName(name), err, document.CodeInvalidNamespace, "")
		err = db.Database("test").CreateCollection(ctx, name, nil)
		checkCode(t, "CreateCollection "+quoteName(name), err, document.CodeInvalidNamespace, "")
	}
	if names, _ := db.Database("test").ListCollectionNames(ctx); len(names) != 0 {
		t.Fatalf("failed writes created collections %q", names)
	}
	// One byte under each limit is accepted: 255-byte namespace, names
	// merely containing "system" or a dot.
	for _, name := range []string{long, "systemx", "x.system.y", "a.b", "ünïcødé"} {
		mustRun(t, db, "test", `{"insert": "`+name+`", "documents": [{"x": 1}]}`)
		if n := count(t, db, "test", name); n != 1 {
			t.Errorf("count %q = %d", name, n)
		}
		mustValidate(t, db, "test", name)
	}
	// find on an invalid name is 73 too, not an empty result.
	wantCode(t, db, "test", `{"find": ""}`, document.CodeInvalidNamespace, "")
	wantCode(t, db, "test", `{"find": "a$b"}`, document.CodeInvalidNamespace, "")
	// A non-string collection name is rejected, not treated as "".
	wantCode(t, db, "test", `{"insert": 5, "documents": [{}]}`, document.CodeInvalidNamespace, "")
}
