package engine

import (
	"testing"

	"github.com/ttlkv/ttlkv/document"
)

// TestCreateIDIndexNotAnOption checks create's idIndex as mongorestore
// sends it: the collection is made, listCollections shows the _id index
// as idIndex beside the options and not among them, and a second create
// with the same options (idIndex or not) is not 48.
func TestCreateIDIndexNotAnOption(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "c", "capped": true, "size": 4096, "idIndex": {"key": {"_id": 1}, "ns": "test.c", "name": "_id_"}}`)
	r := mustRun(t, db, "test", `{"listCollections": 1, "filter": {"name": "c"}}`)
	if got := document.Format(field(r, "cursor.firstBatch.0.options")); got != `{ capped: true, size: 4096 }` {
		t.Fatalf("options: %s", got)
	}
	if got := field(r, "cursor.firstBatch.0.idIndex.name"); got != "_id_" {
		t.Fatalf("idIndex: %v", got)
	}
	mustRun(t, db, "test", `{"create": "c", "capped": true, "size": 4096}`)
	mustRun(t, db, "test", `{"create": "c", "capped": true, "size": 4096, "idIndex": {"key": {"_id": 1}, "name": "_id_"}}`)
}
