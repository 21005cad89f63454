package wire

// The privileges an aggregate's stages need of a user-defined role, as
// mongod 7.0's pipeline privilege derivation asks them
// (jstests/auth/lib/commands_lib.js, the aggregate_* cases, run as
// jstests/auth/commands_user_defined_roles.js runs them: the exact
// privileges pass, and each one taken away is 13 Unauthorized).

import (
	"context"
	"fmt"
	"testing"

	"github.com/ttlkv/ttlkv/engine"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// aggPriv is one privilege of a case: a collection (db, coll; coll ""
// for the database, both "" for every ordinary collection) or the
// cluster.
type aggPriv struct {
	db, coll string
	cluster  bool
	actions  []string
}

func (p aggPriv) doc(actions []string) bson.D {
	res := bson.D{{Key: "db", Value: p.db}, {Key: "collection", Value: p.coll}}
	if p.cluster {
		res = bson.D{{Key: "cluster", Value: true}}
	}
	acts := bson.A{}
	for _, a := range actions {
		acts = append(acts, a)
	}
	return bson.D{{Key: "resource", Value: res}, {Key: "actions", Value: acts}}
}

func ns(db, coll string, actions ...string) aggPriv {
	return aggPriv{db: db, coll: coll, actions: actions}
}

func TestUserDefinedRoleAggregateStages(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnvWith(t, Options{Auth: true}, engine.Options{ChangeStreams: true})
	if err := createUser(ctx, e.client(t, false).Database("admin"), "boss", "s3cret", bson.A{"root"}); err != nil {
		t.Fatal(err)
	}
	s := &ra26Srv{e: e, root: e.client(t, false, withAuth("boss", "s3cret", "admin"))}
	for _, db := range []string{"app", "other"} {
		for _, c := range []string{"foo", "bar", "baz"} {
			if _, err := s.root.Database(db).Collection(c).InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: 1}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	admin := s.root.Database("admin")
	if err := rlCreate(admin, "agg", bson.A{}, bson.A{}); err != nil {
		t.Fatal(err)
	}
	s.user(t, "admin", "ag", "pw", "agg")
	ag := s.e.client(t, false, withAuth("ag", "pw", "admin"))
	setPrivs := func(privs []bson.D) {
		t.Helper()
		arr := bson.A{}
		for _, p := range privs {
			arr = append(arr, p)
		}
		if err := admin.RunCommand(ctx, bson.D{{Key: "updateRole", Value: "agg"}, {Key: "privileges", Value: arr}}).Err(); err != nil {
			t.Fatalf("updateRole: %v", err)
		}
	}
	stage := func(name string, v any) bson.D { return bson.D{{Key: name, Value: v}} }
	lookupFrom := func(from string, pipe ...bson.D) bson.D {
		spec := bson.D{{Key: "from", Value: from}, {Key: "as", Value: "j"}}
		if pipe == nil {
			spec = append(spec, bson.E{Key: "localField", Value: "_id"}, bson.E{Key: "foreignField", Value: "_id"})
		} else {
			arr := bson.A{}
			for _, p := range pipe {
				arr = append(arr, p)
			}
			spec = append(spec, bson.E{Key: "pipeline", Value: arr})
		}
		return stage("$lookup", spec)
	}
	graph := func(from string) bson.D {
		return stage("$graphLookup", bson.D{{Key: "from", Value: from}, {Key: "startWith", Value: bson.A{1}},
			{Key: "connectFromField", Value: "_id"}, {Key: "connectToField", Value: "_id"}, {Key: "as", Value: "g"}})
	}
	merge := func(into any, matched, notMatched string) bson.D {
		spec := bson.D{{Key: "into", Value: into}}
		if matched != "" {
			spec = append(spec, bson.E{Key: "whenMatched", Value: matched})
		}
		if notMatched != "" {
			spec = append(spec, bson.E{Key: "whenNotMatched", Value: notMatched})
		}
		return stage("$merge", spec)
	}
	other := bson.D{{Key: "db", Value: "other"}, {Key: "coll", Value: "foo_out"}}
	for _, tc := range []struct {
		what   string
		db     string
		target any // the aggregate's collection, or 1
		stages []bson.D
		extra  bson.D
		privs  []aggPriv
	}{
		{"a transformation", "app", "foo", []bson.D{stage("$match", bson.D{})}, nil,
			[]aggPriv{ns("app", "foo", "find")}},
		{"an empty pipeline", "app", "foo", nil, nil,
			[]aggPriv{ns("app", "foo", "find")}},
		{"$collStats", "app", "foo", []bson.D{stage("$collStats", bson.D{{Key: "count", Value: bson.D{}}})}, nil,
			[]aggPriv{ns("app", "foo", "collStats")}},
		{"$collStats then $facet", "app", "foo", []bson.D{stage("$collStats", bson.D{{Key: "count", Value: bson.D{}}}),
			stage("$facet", bson.D{{Key: "m", Value: bson.A{stage("$match", bson.D{})}}})}, nil,
			[]aggPriv{ns("app", "foo", "collStats")}},
		{"$indexStats", "app", "foo", []bson.D{stage("$indexStats", bson.D{})}, nil,
			[]aggPriv{ns("app", "foo", "indexStats")}},
		{"$currentOp of all users", "admin", 1, []bson.D{stage("$currentOp", bson.D{{Key: "allUsers", Value: true}})}, nil,
			[]aggPriv{{cluster: true, actions: []string{"inprog"}}}},
		{"$currentOp of all users, idle connections too", "admin", 1, []bson.D{stage("$currentOp",
			bson.D{{Key: "allUsers", Value: true}, {Key: "idleConnections", Value: true}})}, nil,
			[]aggPriv{{cluster: true, actions: []string{"inprog"}}}},
		{"$out", "app", "foo", []bson.D{stage("$out", "foo_out")}, nil,
			[]aggPriv{ns("app", "foo", "find"), ns("app", "foo_out", "insert", "remove")}},
		{"$out bypassing validation", "app", "foo", []bson.D{stage("$out", "foo_out")}, bson.D{{Key: "bypassDocumentValidation", Value: true}},
			[]aggPriv{ns("app", "foo", "find"), ns("app", "foo_out", "insert", "remove", "bypassDocumentValidation")}},
		{"$out to another database", "app", "foo", []bson.D{stage("$out", other)}, nil,
			[]aggPriv{ns("app", "foo", "find"), ns("other", "foo_out", "insert", "remove")}},
		{"$merge fail/insert", "app", "foo", []bson.D{merge(bson.D{{Key: "db", Value: "other"}, {Key: "coll", Value: "m1"}}, "fail", "insert")}, nil,
			[]aggPriv{ns("app", "foo", "find"), ns("other", "m1", "insert")}},
		{"$merge fail/insert bypassing validation", "app", "foo", []bson.D{merge(bson.D{{Key: "db", Value: "other"}, {Key: "coll", Value: "m2"}}, "fail", "insert")}, bson.D{{Key: "bypassDocumentValidation", Value: true}},
			[]aggPriv{ns("app", "foo", "find"), ns("other", "m2", "insert", "bypassDocumentValidation")}},
		{"$merge replace/insert", "app", "foo", []bson.D{merge("foo_out", "replace", "insert")}, nil,
			[]aggPriv{ns("app", "foo", "find"), ns("app", "foo_out", "insert", "update")}},
		{"$merge by default (merge/insert)", "app", "foo", []bson.D{merge("foo_out", "", "")}, nil,
			[]aggPriv{ns("app", "foo", "find"), ns("app", "foo_out", "insert", "update")}},
		{"$merge keepExisting/insert", "app", "foo", []bson.D{merge("foo_out", "keepExisting", "insert")}, nil,
			[]aggPriv{ns("app", "foo", "find"), ns("app", "foo_out", "insert", "update")}},
		{"$merge merge/discard", "app", "foo", []bson.D{merge("foo_out", "merge", "discard")}, nil,
			[]aggPriv{ns("app", "foo", "find"), ns("app", "foo_out", "update")}},
		{"$lookup", "app", "foo", []bson.D{lookupFrom("bar")}, nil,
			[]aggPriv{ns("app", "foo", "find"), ns("app", "bar", "find")}},
		{"$lookup nested", "app", "foo", []bson.D{lookupFrom("bar", lookupFrom("baz", stage("$match", bson.D{})))}, nil,
			[]aggPriv{ns("app", "foo", "find"), ns("app", "bar", "find"), ns("app", "baz", "find")}},
		{"$lookup of $documents", "app", "foo", []bson.D{stage("$lookup", bson.D{{Key: "pipeline", Value: bson.A{
			stage("$documents", bson.A{bson.D{{Key: "x", Value: 1}}})}}, {Key: "as", Value: "j"}})}, nil,
			[]aggPriv{ns("app", "foo", "find")}},
		{"$graphLookup", "app", "foo", []bson.D{graph("bar")}, nil,
			[]aggPriv{ns("app", "foo", "find"), ns("app", "bar", "find")}},
		{"$unionWith", "app", "foo", []bson.D{stage("$unionWith", "bar")}, nil,
			[]aggPriv{ns("app", "foo", "find"), ns("app", "bar", "find")}},
		{"$unionWith with a pipeline", "app", "foo", []bson.D{stage("$unionWith", bson.D{{Key: "coll", Value: "bar"},
			{Key: "pipeline", Value: bson.A{lookupFrom("baz")}}})}, nil,
			[]aggPriv{ns("app", "foo", "find"), ns("app", "bar", "find"), ns("app", "baz", "find")}},
		{"$facet", "app", "foo", []bson.D{stage("$facet", bson.D{{Key: "l", Value: bson.A{lookupFrom("bar")}},
			{Key: "g", Value: bson.A{graph("baz")}}})}, nil,
			[]aggPriv{ns("app", "foo", "find"), ns("app", "bar", "find"), ns("app", "baz", "find")}},
		{"$changeStream on a collection", "app", "foo", []bson.D{stage("$changeStream", bson.D{})}, nil,
			[]aggPriv{ns("app", "foo", "changeStream", "find")}},
		{"$changeStream on a database", "app", 1, []bson.D{stage("$changeStream", bson.D{})}, nil,
			[]aggPriv{ns("app", "", "changeStream", "find")}},
		{"$changeStream on the cluster", "admin", 1, []bson.D{stage("$changeStream", bson.D{{Key: "allChangesForCluster", Value: true}})}, nil,
			[]aggPriv{ns("", "", "changeStream", "find")}},
	} {
		pipe := bson.A{}
		for _, st := range tc.stages {
			pipe = append(pipe, st)
		}
		cmd := append(bson.D{{Key: "aggregate", Value: tc.target}, {Key: "pipeline", Value: pipe},
			{Key: "cursor", Value: bson.D{}}}, tc.extra...)
		run := func() error { return ag.Database(tc.db).RunCommand(ctx, cmd).Err() }
		var all []bson.D
		for _, p := range tc.privs {
			all = append(all, p.doc(p.actions))
		}
		setPrivs(all)
		if err := run(); err != nil {
			t.Errorf("%s with exactly its privileges: %v", tc.what, err)
		}
		want := fmt.Sprintf("not authorized on %s to execute command { aggregate: %v }", tc.db, tc.target)
		for i, p := range tc.privs {
			for j := range p.actions {
				var fewer []bson.D
				for k, q := range tc.privs {
					acts := q.actions
					if k == i {
						acts = append(append([]string{}, acts[:j]...), acts[j+1:]...)
						if len(acts) == 0 {
							continue
						}
					}
					fewer = append(fewer, q.doc(acts))
				}
				setPrivs(fewer)
				rlWant(t, fmt.Sprintf("%s without %s on %v", tc.what, p.actions[j], p.doc(nil)[0].Value), run(), 13, "Unauthorized", want)
			}
		}
	}
}

// A pipeline that needs nothing of its own is any user's; built-in
// roles keep allowing what they allowed, and a command is allowed when
// the two kinds together give what it needs.
func TestUserDefinedRoleAggregateWithBuiltins(t *testing.T) {
	t.Parallel()
	s := ra26Setup(t)
	ctx := context.Background()
	app := s.root.Database("app")
	if _, err := app.Collection("foo").InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	agg := func(coll any, stages ...bson.D) bson.D {
		pipe := bson.A{}
		for _, st := range stages {
			pipe = append(pipe, st)
		}
		return bson.D{{Key: "aggregate", Value: coll}, {Key: "pipeline", Value: pipe}, {Key: "cursor", Value: bson.D{}}}
	}
	out := bson.D{{Key: "$out", Value: "foo_out"}}
	docs := bson.D{{Key: "$documents", Value: bson.A{bson.D{{Key: "x", Value: 1}}}}}

	// Built-in read on app with insert on app.foo_out from a role: $out
	// also needs remove there, so it is refused until the role gives
	// it.
	if err := rlCreate(app, "outer", bson.A{rlPriv("app", "foo_out", "insert")}, bson.A{ra26Role("read", "app")}); err != nil {
		t.Fatal(err)
	}
	s.user(t, "app", "mixed", "pw", "outer")
	mixed := s.e.client(t, false, withAuth("mixed", "pw", "app")).Database("app")
	rlWant(t, "$out with read and insert", mixed.RunCommand(ctx, agg("foo", out)).Err(), 13, "Unauthorized",
		"not authorized on app to execute command { aggregate: foo }")
	if err := app.RunCommand(ctx, bson.D{{Key: "grantPrivilegesToRole", Value: "outer"},
		{Key: "privileges", Value: bson.A{rlPriv("app", "foo_out", "remove")}}}).Err(); err != nil {
		t.Fatal(err)
	}
	if err := mixed.RunCommand(ctx, agg("foo", out)).Err(); err != nil {
		t.Errorf("$out with read, insert and remove: %v", err)
	}
	// The built-in read gives $collStats and $indexStats as before.
	for _, st := range []bson.D{{{Key: "$collStats", Value: bson.D{{Key: "count", Value: bson.D{}}}}}, {{Key: "$indexStats", Value: bson.D{}}}} {
		if err := mixed.RunCommand(ctx, agg("foo", st)).Err(); err != nil {
			t.Errorf("%s with read: %v", st[0].Key, err)
		}
	}

	// find is not collStats nor indexStats.
	if err := rlCreate(app, "finder", bson.A{rlPriv("app", "foo", "find")}, bson.A{}); err != nil {
		t.Fatal(err)
	}
	s.user(t, "app", "fin", "pw", "finder")
	fin := s.e.client(t, false, withAuth("fin", "pw", "app")).Database("app")
	for _, st := range []bson.D{{{Key: "$collStats", Value: bson.D{{Key: "count", Value: bson.D{}}}}}, {{Key: "$indexStats", Value: bson.D{}}}} {
		rlWant(t, st[0].Key+" with find alone", fin.RunCommand(ctx, agg("foo", st)).Err(), 13, "Unauthorized",
			"not authorized on app to execute command { aggregate: foo }")
	}

	// explain needs what the explained aggregate needs.
	explain := func(st bson.D) error {
		return fin.RunCommand(ctx, bson.D{{Key: "explain", Value: agg("foo", st)}}).Err()
	}
	if err := explain(bson.D{{Key: "$match", Value: bson.D{}}}); err != nil {
		t.Errorf("explain of $match with find: %v", err)
	}
	rlWant(t, "explain of $collStats with find alone", explain(bson.D{{Key: "$collStats", Value: bson.D{{Key: "count", Value: bson.D{}}}}}),
		13, "Unauthorized", "not authorized on app to execute command { aggregate: foo }")

	// readWrite alone: $out and $merge, as before.
	s.user(t, "app", "writer", "pw", "readWrite")
	writer := s.e.client(t, false, withAuth("writer", "pw", "app")).Database("app")
	for _, st := range []bson.D{out, {{Key: "$merge", Value: "foo_merged"}}} {
		if err := writer.RunCommand(ctx, agg("foo", st)).Err(); err != nil {
			t.Errorf("%s with readWrite: %v", st[0].Key, err)
		}
	}

	// $documents needs nothing: a user with a role that gives nothing
	// here may run it, but not read a collection.
	if err := rlCreate(app, "none", bson.A{rlPriv("app", "elsewhere", "find")}, bson.A{}); err != nil {
		t.Fatal(err)
	}
	s.user(t, "app", "nobody", "pw", "none")
	nobody := s.e.client(t, false, withAuth("nobody", "pw", "app")).Database("app")
	var res struct {
		Cursor struct{ FirstBatch []bson.D }
	}
	if err := nobody.RunCommand(ctx, agg(1, docs)).Decode(&res); err != nil || len(res.Cursor.FirstBatch) != 1 {
		t.Errorf("$documents with no privilege: %+v %v", res, err)
	}
	rlWant(t, "$documents then $unionWith foo", nobody.RunCommand(ctx, agg(1, docs, bson.D{{Key: "$unionWith", Value: "foo"}})).Err(),
		13, "Unauthorized", "not authorized on app to execute command { aggregate: 1 }")
	rlWant(t, "aggregate: 1 that reads the database", nobody.RunCommand(ctx, agg(1, bson.D{{Key: "$match", Value: bson.D{}}})).Err(),
		13, "Unauthorized", "not authorized on app to execute command { aggregate: 1 }")
	// Its own operations: any user's.
	if err := s.e.client(t, false, withAuth("nobody", "pw", "app")).Database("admin").RunCommand(ctx,
		agg(1, bson.D{{Key: "$currentOp", Value: bson.D{}}})).Err(); err != nil {
		t.Errorf("$currentOp of its own operations: %v", err)
	}
}
