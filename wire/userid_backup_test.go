package wire

// createUser's userId and the backup role, as mongod 7.0 has them
// (src/mongo/db/commands/user_management_commands.cpp: the user document
// createUser writes; src/mongo/db/auth/builtin_roles.cpp: backup and
// __queryableBackup).

import (
	"context"
	"reflect"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func uiKeys(d bson.D) []string {
	keys := make([]string, len(d))
	for i, e := range d {
		keys[i] = e.Key
	}
	return keys
}

// createUser stores a userId (a UUID) after _id, usersInfo shows it in
// the stored order without credentials, and a user created again under a
// dropped one's name gets a new one; updateUser keeps it.
func TestCreateUserUserID(t *testing.T) {
	t.Parallel()
	s := ra26Setup(t)
	ctx := context.Background()
	app := s.root.Database("app")
	if err := app.RunCommand(ctx, bson.D{{Key: "createUser", Value: "alice"}, {Key: "pwd", Value: "pw"},
		{Key: "customData", Value: bson.D{{Key: "team", Value: "x"}}}, {Key: "roles", Value: bson.A{"read"}}}).Err(); err != nil {
		t.Fatal(err)
	}
	var stored bson.D
	if err := s.root.Database("admin").Collection("system.users").FindOne(ctx, bson.D{{Key: "_id", Value: "app.alice"}}).Decode(&stored); err != nil {
		t.Fatal(err)
	}
	if got, want := uiKeys(stored), []string{"_id", "userId", "user", "db", "credentials", "customData", "roles"}; !reflect.DeepEqual(got, want) {
		t.Errorf("stored user's fields %v, want %v", got, want)
	}
	usersInfo := func() bson.D {
		t.Helper()
		var r struct{ Users []bson.D }
		if err := app.RunCommand(ctx, bson.D{{Key: "usersInfo", Value: "alice"}}).Decode(&r); err != nil || len(r.Users) != 1 {
			t.Fatalf("usersInfo: %v %v", err, r.Users)
		}
		return r.Users[0]
	}
	u := usersInfo()
	if got, want := uiKeys(u), []string{"_id", "userId", "user", "db", "customData", "roles", "mechanisms"}; !reflect.DeepEqual(got, want) {
		t.Errorf("usersInfo's fields %v, want %v", got, want)
	}
	id, ok := u[1].Value.(bson.Binary)
	if !ok || id.Subtype != bson.TypeBinaryUUID || len(id.Data) != 16 || id.Data[6]>>4 != 4 {
		t.Fatalf("userId %#v, want a version 4 UUID", u[1].Value)
	}
	if err := app.RunCommand(ctx, bson.D{{Key: "updateUser", Value: "alice"}, {Key: "pwd", Value: "pw2"}, {Key: "roles", Value: bson.A{"readWrite"}}}).Err(); err != nil {
		t.Fatal(err)
	}
	if again := usersInfo()[1].Value; !reflect.DeepEqual(again, id) {
		t.Errorf("updateUser changed userId: %v, was %v", again, id)
	}
	if err := app.RunCommand(ctx, bson.D{{Key: "dropUser", Value: "alice"}}).Err(); err != nil {
		t.Fatal(err)
	}
	s.user(t, "app", "alice", "pw", "read")
	if again := usersInfo()[1].Value; reflect.DeepEqual(again, id) {
		t.Errorf("a user created again kept the dropped one's userId %v", id)
	}
}
