package engine

import (
	"sort"
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestListCommands: listCommands lists every command of the command
// table once by its own name (and isMaster), sorted, each in mongod's
// shape; every command it lists runs (none is 59 CommandNotFound); an
// admin-only command elsewhere than admin is 13; help: true answers a
// command's help without running it.
func TestListCommands(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	r := mustRun(t, db, "test", `{"listCommands": 1}`)
	cmds, ok := field(r, "commands").(bson.D)
	if !ok {
		t.Fatalf("listCommands: no commands document: %v", r)
	}
	var names []string
	for _, e := range cmds {
		names = append(names, e.Key)
	}
	if !sort.StringsAreSorted(names) {
		t.Errorf("listCommands: names not sorted: %v", names)
	}
	if len(names) != len(commandTable)+1 {
		t.Errorf("listCommands: %d names, want the table's %d and isMaster", len(names), len(commandTable))
	}
	for _, alias := range []string{"ismaster", "buildinfo", "findandmodify", "deleteIndexes", "datasize"} {
		if _, listed := get(cmds, alias); listed {
			t.Errorf("listCommands lists the alias %s", alias)
		}
	}
	want := `{"help":"queries a collection and returns a cursor","requiresAuth":true,"secondaryOk":false,"adminOnly":false,"secondaryOverrideOk":true,"apiVersions":["1"],"deprecatedApiVersions":[]}`
	if got, _ := document.MarshalExtJSON(field(cmds, "find"), false); string(got) != want {
		t.Errorf("listCommands find:\n got %s\nwant %s", got, want)
	}
	if v := field(cmds, "replSetGetStatus.adminOnly"); v != true {
		t.Errorf("replSetGetStatus.adminOnly = %v", v)
	}
	for _, n := range names {
		_, err := db.RunCommand(t.Context(), "admin", bson.D{{Key: n, Value: int32(1)}})
		if document.CodeOf(err) == document.CodeCommandNotFound {
			t.Errorf("%s is listed but not found: %v", n, err)
		}
	}
	wantCode(t, db, "test", `{"replSetGetStatus": 1}`, document.CodeUnauthorized, "replSetGetStatus may only be run against the admin database.")
	wantCode(t, db, "test", `{"getParameter": 1, "logLevel": 1}`, document.CodeUnauthorized, "admin database")
	r = mustRun(t, db, "test", `{"drop": "nosuch", "help": true}`)
	if h, _ := get(r, "help"); !strings.HasPrefix(h.(string), "help for: drop ") {
		t.Errorf("drop help: %v", r)
	}
}
