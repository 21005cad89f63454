package wire

import (
	"errors"
	"net"
	"slices"
	"sort"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// TestShellHelperCommands: the commands behind mongosh's
// db.listCommands(), db.hostInfo(), db.getLogComponents(),
// db.setLogLevel() and rs.status() answer the official driver over TCP
// as mongod does (docs/commands.md: listCommands, hostInfo, Replica
// sets, Log verbosity).
func TestShellHelperCommands(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	c := e.client(t, false)
	ctx := t.Context()
	admin := c.Database("admin")

	var lc struct {
		Commands bson.D `bson:"commands"`
	}
	if err := c.Database("test").RunCommand(ctx, bson.D{{Key: "listCommands", Value: 1}}).Decode(&lc); err != nil {
		t.Fatal(err)
	}
	names := make([]string, len(lc.Commands))
	for i, x := range lc.Commands {
		names[i] = x.Key
	}
	if !sort.StringsAreSorted(names) {
		t.Errorf("listCommands names are not sorted: %v", names)
	}
	keys := func(name string) []string {
		for _, x := range lc.Commands {
			if x.Key == name {
				d, _ := x.Value.(bson.D)
				var ks []string
				for _, f := range d {
					if f.Key != "secondaryOverrideOk" {
						ks = append(ks, f.Key)
					}
				}
				return ks
			}
		}
		return nil
	}
	want := []string{"help", "requiresAuth", "secondaryOk", "adminOnly", "apiVersions", "deprecatedApiVersions"}
	for _, n := range []string{"find", "hostInfo", "isMaster", "replSetGetStatus", "startSession", "saslStart", "killOp", "usersInfo"} {
		if got := keys(n); !slices.Equal(got, want) {
			t.Errorf("listCommands %s: fields %v, want %v", n, got, want)
		}
	}

	var hi struct {
		System struct {
			Hostname string `bson:"hostname"`
			NumCores int32  `bson:"numCores"`
			CPUArch  string `bson:"cpuArch"`
		} `bson:"system"`
		OS struct {
			Type string `bson:"type"`
		} `bson:"os"`
	}
	if err := admin.RunCommand(ctx, bson.D{{Key: "hostInfo", Value: 1}}).Decode(&hi); err != nil {
		t.Fatal(err)
	}
	if hi.System.NumCores < 1 || hi.System.CPUArch == "" || hi.OS.Type == "" {
		t.Errorf("hostInfo: %+v", hi)
	}
	// Not on 27017: the host name carries the port, as mongod's does.
	if _, port, _ := net.SplitHostPort(e.addr); !strings.HasSuffix(hi.System.Hostname, ":"+port) {
		t.Errorf("hostInfo system.hostname %q lacks the port %s", hi.System.Hostname, port)
	}

	// db.setLogLevel(2, "storage.journal") then db.getLogComponents().
	set := bson.D{{Key: "setParameter", Value: 1}, {Key: "logComponentVerbosity", Value: bson.D{{Key: "storage", Value: bson.D{{Key: "journal", Value: bson.D{{Key: "verbosity", Value: 2}}}}}}}}
	if err := admin.RunCommand(ctx, set).Err(); err != nil {
		t.Fatal(err)
	}
	var gp struct {
		V struct {
			Verbosity int32 `bson:"verbosity"`
			Storage   struct {
				Verbosity int32 `bson:"verbosity"`
				Journal   struct {
					Verbosity int32 `bson:"verbosity"`
				} `bson:"journal"`
			} `bson:"storage"`
		} `bson:"logComponentVerbosity"`
	}
	if err := admin.RunCommand(ctx, bson.D{{Key: "getParameter", Value: 1}, {Key: "logComponentVerbosity", Value: 1}}).Decode(&gp); err != nil {
		t.Fatal(err)
	}
	if gp.V.Verbosity != 0 || gp.V.Storage.Verbosity != -1 || gp.V.Storage.Journal.Verbosity != 2 {
		t.Errorf("logComponentVerbosity after setting storage.journal to 2: %+v", gp.V)
	}

	for _, cmd := range []string{"replSetGetStatus", "replSetGetConfig"} {
		err := admin.RunCommand(ctx, bson.D{{Key: cmd, Value: 1}}).Err()
		var ce mongo.CommandError
		if !errors.As(err, &ce) || ce.Code != 76 || ce.Name != "NoReplicationEnabled" || ce.Message != "not running with --replSet" {
			t.Errorf("%s: %v, want 76 NoReplicationEnabled 'not running with --replSet'", cmd, err)
		}
	}
}

// TestLocalCommandsListed: every command the server lists for itself in
// listCommands is one it answers (none is 59 CommandNotFound).
func TestLocalCommandsListed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	c := e.client(t, true)
	for _, lc := range localCommands {
		err := c.Database("admin").RunCommand(t.Context(), bson.D{{Key: lc.name, Value: 1}}).Err()
		var ce mongo.CommandError
		if errors.As(err, &ce) && ce.Code == 59 {
			t.Errorf("%s is listed but not found: %v", lc.name, err)
		}
	}
}
