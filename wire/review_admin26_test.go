package wire

// Review 26 of the administrative commands the wire server answers
// itself (killOp, currentOp's client operations, connectionStatus,
// listCommands' merge): places where ttlkv answers differently from a
// standalone mongod 7.0, fixed since. Each test asserts what mongod
// does; the comment says where mongod's behaviour was read (github.com/mongodb/mongo unless said otherwise).

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// killOp's op must be an integer that fits 32 bits. mongod:
// KillOpCmdBase::parseOpId (kill_op_cmd_base.cpp),
// uassertStatusOK(bsonExtractIntegerField(cmdObj, "op", &op)) (14
// TypeMismatch for a string) then uassert(26823, "invalid op : ... Op
// ID cannot be represented with 32 bits"). ttlkv reads any value as a
// number (a string as op 0) and truncates a long to its low 32 bits, so
// {op: 2^33+5} kills op 5.
func TestReviewAdmin26KillOpBadOp(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	admin := e.client(t, true).Database("admin")
	ctx := context.Background()
	err := admin.RunCommand(ctx, bson.D{{Key: "killOp", Value: 1}, {Key: "op", Value: "x"}}).Err()
	if err == nil {
		t.Errorf(`{killOp: 1, op: "x"} succeeded, want 14 TypeMismatch`)
	} else if c := cmdCode(t, err); c != 14 {
		t.Errorf(`{killOp: 1, op: "x"}: code %d, want 14 TypeMismatch`, c)
	}
	err = admin.RunCommand(ctx, bson.D{{Key: "killOp", Value: 1}, {Key: "op", Value: int64(1)<<33 + 5}}).Err()
	if err == nil {
		t.Errorf("{killOp: 1, op: 2^33+5} succeeded, want 26823")
	} else if c := cmdCode(t, err); c != 26823 {
		t.Errorf("{killOp: 1, op: 2^33+5}: code %d, want 26823", c)
	}
}

func asCommandError(err error, ce *mongo.CommandError) bool {
	c, ok := err.(mongo.CommandError)
	if ok {
		*ce = c
	}
	return ok
}
