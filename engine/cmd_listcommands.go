package engine

import (
	"context"
	"sort"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// cmdListCommands runs the listCommands command: every command of the
// command table, by name in byte order, with its help and flags in
// mongod's shape ({help, requiresAuth, secondaryOk, adminOnly,
// secondaryOverrideOk when a secondary may opt in, apiVersions,
// deprecatedApiVersions}). Aliases are left out, as mongod leaves them
// out, except isMaster (docs/commands.md, "listCommands").
func cmdListCommands(context.Context, *DB, string, bson.D) (bson.D, error) {
	type named struct {
		name string
		c    *command
	}
	list := make([]named, 0, len(commandTable)+1)
	for i := range commandTable {
		c := &commandTable[i]
		list = append(list, named{c.name, c})
		for _, a := range c.aliases {
			if a == "isMaster" {
				list = append(list, named{a, c})
			}
		}
	}
	sort.Slice(list, func(i, j int) bool { return list[i].name < list[j].name })
	out := make(bson.D, 0, len(list))
	for _, n := range list {
		out = append(out, bson.E{Key: n.name, Value: describeCommand(n.c)})
	}
	return bson.D{{Key: "commands", Value: out}}, nil
}

// describeCommand is c's entry in listCommands' reply.
func describeCommand(c *command) bson.D {
	d := bson.D{
		{Key: "help", Value: c.help},
		{Key: "requiresAuth", Value: c.flags&noAuth == 0},
		{Key: "secondaryOk", Value: c.flags&onSecondary != 0},
		{Key: "adminOnly", Value: c.flags&adminOnly != 0},
	}
	if c.flags&optInSecondary != 0 {
		d = append(d, bson.E{Key: "secondaryOverrideOk", Value: true})
	}
	versions := bson.A{}
	if c.flags&apiV1 != 0 {
		versions = append(versions, "1")
	}
	return append(d, bson.E{Key: "apiVersions", Value: versions}, bson.E{Key: "deprecatedApiVersions", Value: bson.A{}})
}

// commandHelp is the reply to any command sent with help: true (what
// mongosh's db.commandHelp(name) prints): its help, and nothing run.
func commandHelp(c *command) bson.D {
	return bson.D{{Key: "help", Value: "help for: " + c.name + " " + c.help}}
}
