package wire

import (
	"context"

	"github.com/ttlkv/ttlkv/engine"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// authState is a connection's authentication.
type authState struct{}

// userStore keeps users in the admin database.
type userStore struct{ db *engine.DB }

func (u *userStore) exists(ctx context.Context, mech string) bool { return false }

// authorize refuses what the connection may not run.
func (c *conn) authorize(dbName, name string, cmd bson.D) *cmdError { return nil }

func (c *conn) authCommand(ctx context.Context, dbName, name string, cmd bson.D) bson.D {
	return errorDoc(59, "CommandNotFound", "no such command: '"+name+"'", false)
}
