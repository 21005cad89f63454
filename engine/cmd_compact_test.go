package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/document"
)

// compact after a mass delete gives the space back and says how much,
// as mongod's bytesFreed; what it refuses, it refuses with mongod's
// codes.
func TestCompactCommand(t *testing.T) {
	t.Parallel()
	db, _, _ := openTest(t)
	pad := strings.Repeat("p", 500)
	for b := 0; b < 20; b++ {
		docs := make([]string, 0, 500)
		for i := 0; i < 500; i++ {
			docs = append(docs, fmt.Sprintf(`{"_id": %d, "pad": "%s"}`, b*500+i, pad))
		}
		mustRun(t, db, "test", `{"insert": "big", "documents": [`+strings.Join(docs, ",")+`]}`)
	}
	mustRun(t, db, "test", `{"delete": "big", "deletes": [{"q": {}, "limit": 0}]}`)
	lsmBefore, vlogBefore := db.store.DiskUsage()
	r := mustRun(t, db, "test", `{"compact": "big", "force": true, "comment": "after the purge"}`)
	freed, ok := field(r, "bytesFreed").(int64)
	lsmAfter, vlogAfter := db.store.DiskUsage()
	if !ok || freed <= 0 || lsmAfter+vlogAfter >= lsmBefore+vlogBefore {
		t.Fatalf("compact: %v; disk %d -> %d bytes", r, lsmBefore+vlogBefore, lsmAfter+vlogAfter)
	}
	// The space it reports is the store's files', within what was there.
	if freed > lsmBefore+vlogBefore {
		t.Fatalf("bytesFreed %d is more than the %d bytes the store held", freed, lsmBefore+vlogBefore)
	}
	mustRun(t, db, "test", `{"insert": "big", "documents": [{"_id": 1}]}`)
	if got := count(t, db, "test", "big"); got != 1 {
		t.Fatalf("after compact: %d documents", got)
	}
	mustRun(t, db, "test", `{"create": "v", "viewOn": "big", "pipeline": []}`)
	wantCode(t, db, "test", `{"compact": "nosuch"}`, document.CodeNamespaceNotFound, "collection does not exist")
	wantCode(t, db, "test", `{"compact": "v"}`, document.CodeCommandNotSupportedOnView, "is a view")
	wantCode(t, db, "test", `{"compact": "big", "bogus": 1}`, document.CodeIDLUnknownField, "BSON field 'compact.bogus' is an unknown field.")
	wantCode(t, db, "test", `{"compact": "big", "force": 1}`, document.CodeTypeMismatch, "expected type 'bool'")
	wantCode(t, db, "test", `{"compact": "big", "freeSpaceTargetMB": 0}`, document.CodeBadValue, "must be >= 1")
	wantCode(t, db, "test", `{"compact": 1}`, document.CodeInvalidNamespace, "")
}
