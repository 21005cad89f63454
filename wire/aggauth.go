package wire

import (
	"go.mongodb.org/mongo-driver/v2/bson"
)

// The privileges an aggregate needs, derived as mongod 7.0 derives
// them from a pipeline (docs/wire.md, "User-defined roles"): find on
// the collection the pipeline reads unless its first stage is a source
// of its own, then what each stage asks, nested pipelines included.

// collectionless is the namespace mongod gives an aggregate on a
// database (`aggregate: 1`), which a pipeline reads when its first stage
// is not a source of its own.
const collectionless = "$cmd.aggregate"

// aggNeeds are the actions an aggregate needs: own are those on its
// own namespace, its database or the server (what judges the command
// itself), foreign those on the collections its stages read or write
// beyond it ($lookup, $graphLookup, $unionWith, $out, $merge), each of
// which either kind of role may give.
type aggNeeds struct {
	own, foreign []need
}

// initialSource reports whether a stage produces its own documents, so
// that a pipeline it begins reads nothing of its collection.
func initialSource(stage string) bool {
	switch stage {
	case "$collStats", "$indexStats", "$currentOp", "$changeStream", "$documents",
		"$listSessions", "$listLocalSessions", "$planCacheStats":
		return true
	}
	return false
}

// aggregateNeeds derives what the aggregate cmd on dbName needs of u (u
// matters to $listSessions, which lists u's own sessions freely).
func aggregateNeeds(u *userDoc, dbName string, cmd bson.D) aggNeeds {
	var out aggNeeds
	coll, ok := cmd[0].Value.(string)
	if !ok {
		coll = collectionless
	}
	bypass := trueValue(lookup(cmd, "bypassDocumentValidation"))
	pipe, _ := lookup(cmd, "pipeline").(bson.A)
	out.pipeline(u, dbName, coll, pipe, true, bypass, true)
	return out
}

// pipeline adds the needs of stages run on db.coll: find there unless
// the first stage is a source (when reads), then each stage's. own
// says whether they fall on the command's own namespace.
func (a *aggNeeds) pipeline(u *userDoc, db, coll string, stages bson.A, reads, bypass, own bool) {
	add := func(onOwn bool, n need) {
		if onOwn {
			a.own = append(a.own, n)
		} else {
			a.foreign = append(a.foreign, n)
		}
	}
	if reads && (len(stages) == 0 || !initialSource(stageName(stages[0]))) {
		add(own, need{resNS, db, coll, "find"})
	}
	// A nested pipeline on another collection: everything in it is
	// foreign.
	nested := func(ns namespace, sub any, hasSub bool) {
		if !hasSub {
			add(false, need{resNS, ns.db, ns.coll, "find"})
			return
		}
		st, _ := sub.(bson.A)
		a.pipeline(u, ns.db, ns.coll, st, true, bypass, false)
	}
	for _, st := range stages {
		d, ok := st.(bson.D)
		if !ok || len(d) == 0 {
			continue
		}
		arg := d[0].Value
		spec, _ := arg.(bson.D)
		switch d[0].Key {
		case "$collStats":
			add(own, need{resNS, db, coll, "collStats"})
		case "$indexStats":
			add(own, need{resNS, db, coll, "indexStats"})
		case "$planCacheStats":
			add(own, need{resNS, db, coll, "planCacheRead"})
		case "$currentOp":
			if trueValue(lookup(spec, "allUsers")) {
				add(own, need{resCluster, "", "", "inprog"})
			}
		case "$listSessions", "$listLocalSessions":
			if listsOthersSessions(u, spec) {
				add(own, need{resCluster, "", "", "listSessions"})
			}
		case "$changeStream":
			for _, act := range []string{"changeStream", "find"} {
				switch {
				case coll != collectionless:
					add(own, need{resNS, db, coll, act})
				case db == "admin":
					add(own, need{resAnyNormal, "", "", act}) // the whole cluster
				default:
					add(own, need{resDB, db, "", act})
				}
			}
		case "$lookup":
			from := lookup(spec, "from")
			ns := namespace{db, collectionless}
			if from != nil {
				ns = nsOf(db, from)
			}
			sub := lookup(spec, "pipeline")
			nested(ns, sub, sub != nil)
		case "$graphLookup":
			if from := lookup(spec, "from"); from != nil {
				nested(nsOf(db, from), nil, false)
			}
		case "$unionWith":
			if name, ok := arg.(string); ok {
				nested(namespace{db, name}, nil, false)
				break
			}
			ns := namespace{db, collectionless}
			if c, ok := lookup(spec, "coll").(string); ok {
				ns.coll = c
			}
			sub := lookup(spec, "pipeline")
			nested(ns, sub, sub != nil)
		case "$facet":
			// Its pipelines run on the documents of this one.
			for _, e := range spec {
				sub, _ := e.Value.(bson.A)
				a.pipeline(u, db, coll, sub, false, bypass, own)
			}
		case "$out":
			ns := nsOf(db, arg)
			for _, act := range writeActions([]string{"insert", "remove"}, bypass) {
				add(false, need{resNS, ns.db, ns.coll, act})
			}
		case "$merge":
			into := arg
			if spec != nil {
				into = lookup(spec, "into")
			}
			ns := nsOf(db, into)
			for _, act := range writeActions(mergeActions(spec), bypass) {
				add(false, need{resNS, ns.db, ns.coll, act})
			}
		}
	}
}

// stageName is the name of a pipeline stage, "" when it is not one.
func stageName(st any) string {
	if d, ok := st.(bson.D); ok && len(d) > 0 {
		return d[0].Key
	}
	return ""
}

// writeActions adds bypassDocumentValidation to a writing stage's
// actions when the command asks for it.
func writeActions(acts []string, bypass bool) []string {
	if bypass {
		return append(acts, "bypassDocumentValidation")
	}
	return acts
}

// mergeActions are what $merge's modes write, as mongod's merge
// strategies declare them: update unless whenMatched is "fail", insert
// when whenNotMatched is "insert" (the defaults: merge, insert).
func mergeActions(spec bson.D) []string {
	var acts []string
	if wn, ok := lookup(spec, "whenNotMatched").(string); !ok || wn == "insert" {
		acts = append(acts, "insert")
	}
	if wm, ok := lookup(spec, "whenMatched").(string); !ok || wm != "fail" {
		acts = append(acts, "update")
	}
	return acts
}

// listsOthersSessions reports whether a $listSessions spec asks for
// sessions beyond u's own: allUsers, or a user other than u named.
func listsOthersSessions(u *userDoc, spec bson.D) bool {
	if trueValue(lookup(spec, "allUsers")) {
		return true
	}
	users, _ := lookup(spec, "users").(bson.A)
	for _, x := range users {
		d, _ := x.(bson.D)
		if u == nil || lookup(d, "user") != u.User || lookup(d, "db") != u.DB {
			return true
		}
	}
	return false
}

// privHasAll reports whether u's user-defined roles satisfy every need.
func (u *userDoc) privHasAll(needs []need) bool {
	for _, n := range needs {
		if !u.privHas(n) {
			return false
		}
	}
	return true
}
