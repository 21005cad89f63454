package main

import (
	"strings"
	"testing"
)

// The database in --uri's path is the one commands work in, as mongosh
// starts in it and mongo-tools take it for --db; --db naming another is
// refused, the same one accepted.
func TestURIDatabase(t *testing.T) {
	t.Parallel()
	uri := startWire(t) // mongodb://HOST:PORT/?options
	withDB := strings.Replace(uri, "/?", "/inventory?", 1)

	out, errOut, code := cli(t, nil, "", "", "eval", "--uri", withDB, `db.items.insertOne({_id: 1}); print(db.getName())`)
	if code != 0 || out != "inventory\n" {
		t.Fatalf("eval in the URI's database: exit %d, out %q, err %q", code, out, errOut)
	}
	// The document went to inventory.items, not test.items.
	out, errOut, code = cli(t, nil, "", "", "--db", "inventory", "eval", "--uri", uri, `print(db.items.countDocuments(), db.getSiblingDB("test").items.countDocuments())`)
	if code != 0 || out != "1 0\n" {
		t.Fatalf("counts: exit %d, out %q, err %q", code, out, errOut)
	}
	// The same name in both is accepted, before or after the subcommand.
	for _, args := range [][]string{
		{"--db", "inventory", "eval", "--uri", withDB, "print(db.getName())"},
		{"eval", "--uri", withDB, "--db", "inventory", "print(db.getName())"},
	} {
		if out, errOut, code := cli(t, nil, "", "", args...); code != 0 || out != "inventory\n" {
			t.Fatalf("%q: exit %d, out %q, err %q", args, code, out, errOut)
		}
	}
	// A different one is refused before anything runs.
	out, errOut, code = cli(t, nil, "", "", "eval", "--uri", withDB, "--db", "other", "db.items.insertOne({_id: 2})")
	if code != 2 || !strings.Contains(errOut, `--uri names the database "inventory" and --db "other"`) {
		t.Fatalf("different names: exit %d, out %q, err %q", code, out, errOut)
	}
	out, _, _ = cli(t, nil, "", "", "eval", "--uri", withDB, "print(db.items.countDocuments())")
	if out != "1\n" {
		t.Fatalf("after the refusal: %q documents, want 1", out)
	}
}
