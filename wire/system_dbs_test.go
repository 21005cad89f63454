package wire

import (
	"fmt"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestAdminSystemVersionOverWire: through the server, as on a standalone
// mongod 7.0 with access control, root lists admin and reads its
// system.version (the feature compatibility version and, with a user,
// the auth schema); a reader of app lists only app, and is refused 13
// on admin.system.version; root's write there is refused (73: ttlkv
// shows it read-only, where mongod would let root write it).
func TestAdminSystemVersionOverWire(t *testing.T) {
	t.Parallel()
	s := ra26Setup(t)
	s.user(t, "app", "reader", "pw", "read")
	root := s.conn(t, "admin", "boss", "s3cret")
	names := func(r bson.D) string {
		dbs, _ := lookup(r, "databases").(bson.A)
		var out []string
		for _, d := range dbs {
			n, _ := lookup(d.(bson.D), "name").(string)
			out = append(out, n)
		}
		return fmt.Sprint(out)
	}
	ra26Run(t, root, "app", bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: 1}}}}})
	if r := ra26Run(t, root, "admin", bson.D{{Key: "listDatabases", Value: 1}, {Key: "nameOnly", Value: true}}); names(r) != "[admin app]" {
		t.Errorf("root's listDatabases: %v", r)
	}
	r := ra26Run(t, root, "admin", bson.D{{Key: "find", Value: "system.version"}})
	batch, _ := lookup(lookup(r, "cursor").(bson.D), "firstBatch").(bson.A)
	if got := document.Format(batch); got != `[ { _id: "featureCompatibilityVersion", version: "7.0" }, { _id: "authSchema", currentVersion: 5 } ]` {
		t.Errorf("root's find on admin.system.version: %v", r)
	}
	r = ra26Run(t, root, "admin", bson.D{{Key: "delete", Value: "system.version"}, {Key: "deletes", Value: bson.A{bson.D{{Key: "q", Value: bson.D{}}, {Key: "limit", Value: 0}}}}})
	if ra26Code(r) != 73 {
		t.Errorf("root's delete on admin.system.version: %v", r)
	}
	reader := s.conn(t, "app", "reader", "pw")
	if r := ra26Run(t, reader, "admin", bson.D{{Key: "listDatabases", Value: 1}, {Key: "nameOnly", Value: true}}); names(r) != "[app]" {
		t.Errorf("a reader of app's listDatabases: %v", r)
	}
	if r := ra26Run(t, reader, "admin", bson.D{{Key: "find", Value: "system.version"}}); ra26Code(r) != 13 {
		t.Errorf("a reader of app's find on admin.system.version: %v", r)
	}
}
