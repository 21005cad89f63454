package engine

import (
	"testing"

	"github.com/ttlkv/ttlkv/document"
)

// TestReplicaSetCommandsOnStandalone: the replica-set commands answer
// as a mongod without --replSet does: 76 NoReplicationEnabled, with
// mongod's words (replSetInitiate has its own).
func TestReplicaSetCommandsOnStandalone(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	for _, cmd := range []string{
		`{"replSetGetStatus": 1}`, `{"replSetGetConfig": 1}`, `{"replSetReconfig": {"_id": "rs", "members": []}}`,
		`{"replSetFreeze": 10}`, `{"replSetStepDown": 60}`, `{"replSetSyncFrom": "h:1"}`,
		`{"replSetMaintenance": true}`, `{"replSetGetRBID": 1}`,
	} {
		wantCode(t, db, "admin", cmd, document.CodeNoReplicationEnabled, "not running with --replSet")
	}
	wantCode(t, db, "admin", `{"replSetInitiate": {}}`, document.CodeNoReplicationEnabled, "This node was not started with replication enabled.")
	r, _ := run(t, db, "admin", `{"replSetGetStatus": 1}`)
	if n, _ := get(r, "codeName"); n != "NoReplicationEnabled" {
		t.Errorf("replSetGetStatus codeName = %v", n)
	}
}
