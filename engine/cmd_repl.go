package engine

import (
	"context"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// cmdNoReplication answers the replica-set commands (replSetGetStatus,
// replSetGetConfig, replSetReconfig, ...) as a mongod started without
// --replSet does: 76 NoReplicationEnabled. ttlkv is always a standalone
// server, so mongosh's rs.status() and rs.conf() print what they print
// against a standalone mongod (docs/commands.md, "Replica sets").
func cmdNoReplication(context.Context, *DB, string, bson.D) (bson.D, error) {
	return nil, document.Errorf(document.CodeNoReplicationEnabled, "not running with --replSet")
}

// cmdReplSetInitiate answers replSetInitiate (mongosh's rs.initiate())
// with mongod's words for a server started without --replSet.
func cmdReplSetInitiate(context.Context, *DB, string, bson.D) (bson.D, error) {
	return nil, document.Errorf(document.CodeNoReplicationEnabled, "This node was not started with replication enabled.")
}
