package engine

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// The shapes below are mongod 7.0's classic engine's: explain.cpp and
// explain_common.cpp for the envelope, plan_explainer_impl.cpp
// (statsToBSON) for each stage's fields and their order,
// planner_analysis.cpp for where SKIP, the projection and LIMIT go.

// keysOf is a document's field names, in order.
func keysOf(d bson.D) string {
	var ks []string
	for _, e := range d {
		ks = append(ks, e.Key)
	}
	return strings.Join(ks, " ")
}

// explainFixture is a collection c of six documents {_id, a, b} with
// an index on a.
func explainFixture(t *testing.T) *DB {
	t.Helper()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}]}`)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "a": 1, "b": 1}, {"_id": 2, "a": 2, "b": 1},
		{"_id": 3, "a": 3, "b": 2}, {"_id": 4, "a": 4, "b": 2}, {"_id": 5, "a": 5, "b": 3}, {"_id": 6, "a": 6, "b": 3}]}`)
	return db
}

// explainOf runs explain of cmd at verbosity.
func explainOf(t *testing.T, db *DB, cmd, verbosity string) bson.D {
	t.Helper()
	return mustRun(t, db, "test", `{"explain": `+cmd+`, "verbosity": "`+verbosity+`"}`)
}

// figures checks a stage's figures, given as "name=value ...".
func figures(t *testing.T, what string, st bson.D, want string) {
	t.Helper()
	for _, f := range strings.Fields(want) {
		k, v, _ := strings.Cut(f, "=")
		got, ok := get(st, k)
		if _, isInt := got.(int32); !ok || !isInt || fmt.Sprint(got) != v {
			t.Errorf("%s: %s = %#v, want int32 %s (%s)", what, k, got, v, document.Format(st))
		}
	}
}

const (
	// commonExec are the figures statsToBSON gives every executed stage.
	commonExec = "nReturned executionTimeMillisEstimate works advanced needTime needYield saveState restoreState isEOF"
	ixscanPlan = "keyPattern indexName isMultiKey multiKeyPaths isUnique isSparse isPartial indexVersion direction indexBounds"
)

// A find's explain is mongod's envelope: explainVersion "1", the
// queryPlanner with its fixed fields, executionStats (allPlansExecution
// only at that verbosity), the command with its $db, serverInfo and
// serverParameters, in that order. ttlkv had no explainVersion, no
// parsedQuery, queryHash, planCacheKey, serverInfo or serverParameters.
func TestExplainFindEnvelope(t *testing.T) {
	t.Parallel()
	db := explainFixture(t)
	for _, c := range []struct{ verbosity, top, exec string }{
		{"queryPlanner", "explainVersion queryPlanner command serverInfo serverParameters ok", ""},
		{"executionStats", "explainVersion queryPlanner executionStats command serverInfo serverParameters ok",
			"executionSuccess nReturned executionTimeMillis totalKeysExamined totalDocsExamined executionStages"},
		{"allPlansExecution", "explainVersion queryPlanner executionStats command serverInfo serverParameters ok",
			"executionSuccess nReturned executionTimeMillis totalKeysExamined totalDocsExamined executionStages allPlansExecution"},
	} {
		r := explainOf(t, db, `{"find": "c", "filter": {"a": 1}}`, c.verbosity)
		if got := keysOf(r); got != c.top {
			t.Errorf("%s: fields %q, want %q", c.verbosity, got, c.top)
		}
		if v := field(r, "explainVersion"); v != "1" {
			t.Errorf("%s: explainVersion %#v", c.verbosity, v)
		}
		qp, _ := field(r, "queryPlanner").(bson.D)
		if got, want := keysOf(qp), "namespace indexFilterSet parsedQuery queryHash planCacheKey maxIndexedOrSolutionsReached "+
			"maxIndexedAndSolutionsReached maxScansToExplodeReached winningPlan rejectedPlans"; got != want {
			t.Errorf("%s: queryPlanner %q, want %q", c.verbosity, got, want)
		}
		for _, k := range []string{"indexFilterSet", "maxIndexedOrSolutionsReached", "maxIndexedAndSolutionsReached", "maxScansToExplodeReached"} {
			if v := field(qp, k); v != false {
				t.Errorf("%s: %s = %#v, want false", c.verbosity, k, v)
			}
		}
		sameValue(t, c.verbosity+" parsedQuery", field(qp, "parsedQuery"), `{"a": {"$eq": 1}}`)
		sameValue(t, c.verbosity+" command", field(r, "command"), `{"find": "c", "filter": {"a": 1}, "$db": "test"}`)
		if ex, ok := field(r, "executionStats").(bson.D); ok != (c.exec != "") || keysOf(ex) != c.exec {
			t.Errorf("%s: executionStats %q, want %q", c.verbosity, keysOf(ex), c.exec)
		}
		if a, ok := field(r, "executionStats.allPlansExecution").(bson.A); c.verbosity == "allPlansExecution" && (!ok || len(a) != 0) {
			t.Errorf("allPlansExecution = %v, want []", a)
		}
		si, _ := field(r, "serverInfo").(bson.D)
		if keysOf(si) != "host port version gitVersion" || field(si, "port") != int32(27017) {
			t.Errorf("serverInfo %s", document.Format(si))
		}
		sp, _ := field(r, "serverParameters").(bson.D)
		if got, want := keysOf(sp), "internalQueryFacetBufferSizeBytes internalQueryFacetMaxOutputDocSizeBytes "+
			"internalLookupStageIntermediateDocumentMaxSizeBytes internalDocumentSourceGroupMaxMemoryBytes "+
			"internalQueryMaxBlockingSortMemoryUsageBytes internalQueryProhibitBlockingMergeOnMongoS "+
			"internalQueryMaxAddToSetBytes internalDocumentSourceSetWindowFieldsMaxMemoryBytes internalQueryFrameworkControl"; got != want {
			t.Errorf("serverParameters %q", got)
		}
		if v := field(sp, "internalQueryMaxBlockingSortMemoryUsageBytes"); v != int32(100<<20) {
			t.Errorf("internalQueryMaxBlockingSortMemoryUsageBytes = %#v", v)
		}
	}
	// queryHash is 8 upper-case hex digits, the same for the same shape
	// whatever its values, planCacheKey too.
	hash := func(filter string) (string, string) {
		r := explainOf(t, db, `{"find": "c", "filter": `+filter+`}`, "queryPlanner")
		qh, _ := field(r, "queryPlanner.queryHash").(string)
		pk, _ := field(r, "queryPlanner.planCacheKey").(string)
		if !regexp.MustCompile(`^[0-9A-F]{8}$`).MatchString(qh) || !regexp.MustCompile(`^[0-9A-F]{8}$`).MatchString(pk) {
			t.Errorf("%s: queryHash %q, planCacheKey %q", filter, qh, pk)
		}
		return qh, pk
	}
	h1, k1 := hash(`{"a": 1}`)
	h2, k2 := hash(`{"a": 5}`)
	// An $in's list is one value, whatever its length.
	in2, _ := hash(`{"a": {"$in": [1, 2]}}`)
	in3, _ := hash(`{"a": {"$in": [3, 4, 5]}}`)
	if in2 != in3 {
		t.Errorf("queryHash of $in [1, 2] %s, of $in [3, 4, 5] %s: want them equal", in2, in3)
	}
	h3, k3 := hash(`{"b": 1}`)
	if h1 != h2 || k1 != k2 || h1 == h3 || k1 == k3 {
		t.Errorf("queryHash {a: 1} %s, {a: 5} %s, {b: 1} %s (planCacheKey %s %s %s): want the first two equal, the third not",
			h1, h2, h3, k1, k2, k3)
	}
	// The command and its other parts are in the shape too.
	d1 := field(explainOf(t, db, `{"distinct": "c", "key": "a"}`, "queryPlanner"), "queryPlanner.queryHash")
	d2 := field(explainOf(t, db, `{"distinct": "c", "key": "b"}`, "queryPlanner"), "queryPlanner.queryHash")
	s1 := field(explainOf(t, db, `{"find": "c", "filter": {"a": 1}, "sort": {"b": 1}}`, "queryPlanner"), "queryPlanner.queryHash")
	if d1 == d2 || s1 == h1 {
		t.Errorf("queryHash of distinct a %v, b %v, find sorted %v, unsorted %v: want all different", d1, d2, s1, h1)
	}
}

// An index scan's stages carry mongod's fields in mongod's order:
// FETCH's docsExamined and alreadyHasObj, IXSCAN's multiKeyPaths,
// indexVersion, seeks, dupsTested and dupsDropped, every executed
// stage works, advanced, needTime, needYield, saveState and
// restoreState. A filter the bounds answer leaves the FETCH none.
func TestExplainIndexScanStages(t *testing.T) {
	t.Parallel()
	db := explainFixture(t)
	r := explainOf(t, db, `{"find": "c", "filter": {"a": 1}}`, "executionStats")
	win, _ := field(r, "queryPlanner.winningPlan").(bson.D)
	if got := keysOf(win); got != "stage inputStage" {
		t.Errorf("winning FETCH %q, want no filter: the bounds answer it", got)
	}
	ix, _ := field(win, "inputStage").(bson.D)
	if got := keysOf(ix); got != "stage "+ixscanPlan {
		t.Errorf("winning IXSCAN %q", got)
	}
	sameValue(t, "multiKeyPaths", field(ix, "multiKeyPaths"), `{"a": []}`)
	sameValue(t, "indexBounds", field(ix, "indexBounds"), `{"a": ["[1, 1]"]}`)
	if v := field(ix, "indexVersion"); v != int32(2) {
		t.Errorf("indexVersion %#v", v)
	}
	fetch, _ := field(r, "executionStats.executionStages").(bson.D)
	if got, want := keysOf(fetch), "stage "+commonExec+" docsExamined alreadyHasObj inputStage"; got != want {
		t.Errorf("executed FETCH %q, want %q", got, want)
	}
	figures(t, "FETCH", fetch, "nReturned=1 works=2 advanced=1 needTime=0 needYield=0 saveState=0 restoreState=0 isEOF=1 docsExamined=1 alreadyHasObj=0")
	ix, _ = field(fetch, "inputStage").(bson.D)
	if got, want := keysOf(ix), "stage "+commonExec+" "+ixscanPlan+" keysExamined seeks dupsTested dupsDropped"; got != want {
		t.Errorf("executed IXSCAN %q, want %q", got, want)
	}
	figures(t, "IXSCAN", ix, "nReturned=1 works=2 advanced=1 needTime=0 isEOF=1 keysExamined=1 seeks=1 dupsTested=0 dupsDropped=0")

	// A range, and an $in of two points: one seek an interval.
	r = explainOf(t, db, `{"find": "c", "filter": {"a": {"$gt": 3}}}`, "executionStats")
	ix, _ = field(r, "executionStats.executionStages.inputStage").(bson.D)
	sameValue(t, "indexBounds", field(ix, "indexBounds"), `{"a": ["(3, inf.0]"]}`)
	figures(t, "IXSCAN $gt", ix, "nReturned=3 works=4 advanced=3 keysExamined=3 seeks=1")
	r = explainOf(t, db, `{"find": "c", "filter": {"a": {"$in": [2, 5]}}}`, "executionStats")
	ix, _ = field(r, "executionStats.executionStages.inputStage").(bson.D)
	sameValue(t, "indexBounds", field(ix, "indexBounds"), `{"a": ["[2, 2]", "[5, 5]"]}`)
	figures(t, "IXSCAN $in", ix, "nReturned=2 keysExamined=2 seeks=2")
	// A filter the bounds leave a part of: the FETCH filters.
	r = explainOf(t, db, `{"find": "c", "filter": {"a": {"$gte": 2}, "b": 1}}`, "executionStats")
	fetch, _ = field(r, "executionStats.executionStages").(bson.D)
	if _, ok := get(fetch, "filter"); !ok || keysOf(fetch)[:13] != "stage filter " {
		t.Errorf("FETCH with a residual filter: %s", keysOf(fetch))
	}
	figures(t, "FETCH residual", fetch, "nReturned=1 works=6 advanced=1 needTime=4 docsExamined=5")
	// Only what the bounds leave.
	sameValue(t, "FETCH residual filter", field(fetch, "filter"), `{"b": {"$eq": 1}}`)
	for _, c := range []struct{ filter, want string }{
		// ttlkv's bounds below a number take NaN in: a $lt on a number
		// is checked on the document too.
		{`{"a": {"$gte": 2, "$lt": 5}, "b": {"$ne": 1}, "c": 1}`, `{"$and": [{"c": {"$eq": 1}}, {"a": {"$lt": 5}}, {"b": {"$not": {"$eq": 1}}}]}`},
		{`{"a": {"$gte": 2, "$lt": "x"}, "c": 1}`, `{"c": {"$eq": 1}}`},
		// An $in's values in mongod's order: sorted (null first).
		{`{"a": {"$in": [1, null]}}`, `{"a": {"$in": [null, 1]}}`},
		{`{"a": {"$in": [1, 2]}}`, ``},
	} {
		r := explainOf(t, db, `{"find": "c", "filter": `+c.filter+`}`, "queryPlanner")
		f, _ := field(r, "queryPlanner.winningPlan").(bson.D)
		got, has := get(f, "filter")
		if c.want == "" {
			if has {
				t.Errorf("%s: FETCH filter %v, want none", c.filter, got)
			}
			continue
		}
		sameValue(t, c.filter+" FETCH filter", got, c.want)
	}

	// A multikey index: its path in multiKeyPaths, each key tested for
	// a document already taken.
	mustRun(t, db, "test", `{"createIndexes": "m", "indexes": [{"key": {"tags": 1, "n": 1}, "name": "tags_1_n_1"}]}`)
	mustRun(t, db, "test", `{"insert": "m", "documents": [{"_id": 1, "tags": ["x", "y"], "n": 1}, {"_id": 2, "tags": "x", "n": 2}]}`)
	r = explainOf(t, db, `{"find": "m", "filter": {"tags": {"$in": ["x", "y"]}}}`, "executionStats")
	ix, _ = field(r, "executionStats.executionStages.inputStage").(bson.D)
	sameValue(t, "multikey multiKeyPaths", field(ix, "multiKeyPaths"), `{"tags": ["tags"], "n": []}`)
	if field(ix, "isMultiKey") != true {
		t.Errorf("isMultiKey %v", field(ix, "isMultiKey"))
	}
	figures(t, "multikey IXSCAN", ix, "nReturned=2 keysExamined=3 dupsTested=3 dupsDropped=1")
}

// A collection scan shows no filter when there is none (ttlkv showed
// filter: {}), else the filter as parsed; it examines every document.
func TestExplainCollScan(t *testing.T) {
	t.Parallel()
	db := explainFixture(t)
	r := explainOf(t, db, `{"find": "c"}`, "executionStats")
	if got := keysOf(field(r, "queryPlanner.winningPlan").(bson.D)); got != "stage direction" {
		t.Errorf("COLLSCAN without a filter: %q", got)
	}
	sameValue(t, "parsedQuery", field(r, "queryPlanner.parsedQuery"), `{}`)
	r = explainOf(t, db, `{"find": "c", "filter": {"b": 1}}`, "executionStats")
	st, _ := field(r, "executionStats.executionStages").(bson.D)
	if got, want := keysOf(st), "stage filter "+commonExec+" direction docsExamined"; got != want {
		t.Errorf("executed COLLSCAN %q, want %q", got, want)
	}
	sameValue(t, "COLLSCAN filter", field(st, "filter"), `{"b": {"$eq": 1}}`)
	figures(t, "COLLSCAN", st, "nReturned=2 works=7 advanced=2 needTime=4 isEOF=1 docsExamined=6")
}

// A sort with a limit is one SORT stage with limitAmount (skip + limit:
// the SKIP is above it), memLimit and type shown in the plan too; a
// limit without a sort is a LIMIT over the projection and the SKIP;
// the projection is PROJECTION_SIMPLE for an inclusion of top-level
// fields and PROJECTION_DEFAULT otherwise (an exclusion included). ttlkv showed a LIMIT over the SORT
// and PROJECTION_DEFAULT for every projection.
func TestExplainSortLimitSkipProjection(t *testing.T) {
	t.Parallel()
	db := explainFixture(t)
	r := explainOf(t, db, `{"find": "c", "filter": {"b": {"$gte": 1}}, "sort": {"b": -1}, "skip": 1, "limit": 2}`, "executionStats")
	win, _ := field(r, "queryPlanner.winningPlan").(bson.D)
	if s := field(win, "stage"); s != "SKIP" || field(win, "skipAmount") != int32(1) {
		t.Fatalf("winning plan %s, want SKIP over SORT", document.Format(win))
	}
	srt, _ := field(win, "inputStage").(bson.D)
	if got := keysOf(srt); got != "stage sortPattern memLimit limitAmount type inputStage" {
		t.Errorf("winning SORT %q", got)
	}
	if field(srt, "limitAmount") != int32(3) || field(srt, "memLimit") != int32(100<<20) || field(srt, "type") != "simple" {
		t.Errorf("SORT %s", document.Format(srt))
	}
	skip, _ := field(r, "executionStats.executionStages").(bson.D)
	figures(t, "SKIP", skip, "nReturned=2 isEOF=1")
	srt, _ = field(skip, "inputStage").(bson.D)
	if got, want := keysOf(srt), "stage "+commonExec+" sortPattern memLimit limitAmount type totalDataSizeSorted usedDisk spills inputStage"; got != want {
		t.Errorf("executed SORT %q, want %q", got, want)
	}
	figures(t, "SORT", srt, "nReturned=3 advanced=3")
	if n := field(r, "executionStats.nReturned"); n != int32(2) {
		t.Errorf("nReturned %v", n)
	}

	stages := func(cmd string) string {
		r := explainOf(t, db, cmd, "executionStats")
		var names []string
		for st, _ := field(r, "executionStats.executionStages").(bson.D); st != nil; st, _ = field(st, "inputStage").(bson.D) {
			names = append(names, fmt.Sprint(field(st, "stage")))
		}
		return strings.Join(names, " ")
	}
	for _, c := range []struct{ cmd, want string }{
		{`{"find": "c", "projection": {"a": 1}, "skip": 1, "limit": 2}`, "LIMIT PROJECTION_SIMPLE SKIP COLLSCAN"},
		{`{"find": "c", "projection": {"_id": 0, "a": 1}, "limit": 2}`, "LIMIT PROJECTION_SIMPLE COLLSCAN"},
		// An exclusion needs the whole document: not simple.
		{`{"find": "c", "projection": {"_id": 0, "b": 0}, "limit": 2}`, "LIMIT PROJECTION_DEFAULT COLLSCAN"},
		{`{"find": "c", "projection": {"_id": 0}}`, "PROJECTION_DEFAULT COLLSCAN"},
		{`{"find": "c", "projection": {"a": 1}, "sort": {"b": 1}, "limit": 2}`, "PROJECTION_SIMPLE SORT COLLSCAN"},
		{`{"find": "c", "projection": {"s.t": 1}}`, "PROJECTION_DEFAULT COLLSCAN"},
		{`{"find": "c", "projection": {"x": {"$add": ["$a", 1]}}}`, "PROJECTION_DEFAULT COLLSCAN"},
		{`{"find": "c", "projection": {"a": {"$slice": 1}}}`, "PROJECTION_DEFAULT COLLSCAN"},
		{`{"find": "c", "filter": {"a": {"$gt": 1}}, "limit": 2}`, "LIMIT FETCH IXSCAN"},
	} {
		if got := stages(c.cmd); got != c.want {
			t.Errorf("%s: stages %q, want %q", c.cmd, got, c.want)
		}
	}
	// The LIMIT's figures: what it let through, at its end once it has;
	// the scan under it stopped short of its end (isEOF 0), as mongod's.
	r = explainOf(t, db, `{"find": "c", "skip": 1, "limit": 2}`, "executionStats")
	lim, _ := field(r, "executionStats.executionStages").(bson.D)
	figures(t, "LIMIT", lim, "nReturned=2 works=3 advanced=2 needTime=0 isEOF=1 limitAmount=2")
	skip, _ = field(lim, "inputStage").(bson.D)
	figures(t, "SKIP under LIMIT", skip, "nReturned=2 isEOF=0 skipAmount=1")
	figures(t, "COLLSCAN under LIMIT", field(skip, "inputStage").(bson.D), "nReturned=3 works=3 advanced=3 needTime=0 isEOF=0 docsExamined=3")
	r = explainOf(t, db, `{"find": "c", "filter": {"a": {"$gte": 2}}, "limit": 1}`, "executionStats")
	lim, _ = field(r, "executionStats.executionStages").(bson.D)
	figures(t, "FETCH under LIMIT", field(lim, "inputStage").(bson.D), "nReturned=1 works=1 isEOF=0")
	figures(t, "IXSCAN under LIMIT", field(lim, "inputStage.inputStage").(bson.D), "nReturned=1 works=1 isEOF=0 keysExamined=1")
	// A limit the scan's end meets first: at EOF.
	r = explainOf(t, db, `{"find": "c", "filter": {"a": {"$gte": 6}}, "limit": 3}`, "executionStats")
	figures(t, "IXSCAN past its end", field(r, "executionStats.executionStages.inputStage.inputStage").(bson.D), "nReturned=1 works=2 isEOF=1")
}

// parsedQuery is the filter as mongod's canonical query shows it.
func TestExplainParsedQuery(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ filter, want string }{
		{`{}`, `{}`},
		{`{"a": 1}`, `{"a": {"$eq": 1}}`},
		{`{"a": {"$gt": 1}}`, `{"a": {"$gt": 1}}`},
		// $eq sorts before $gt, then by path.
		{`{"b": 1, "a": {"$gt": 1}}`, `{"$and": [{"b": {"$eq": 1}}, {"a": {"$gt": 1}}]}`},
		{`{"b": 1, "a": 1}`, `{"$and": [{"a": {"$eq": 1}}, {"b": {"$eq": 1}}]}`},
		{`{"a": {"$gt": 1, "$lt": 5}}`, `{"$and": [{"a": {"$lt": 5}}, {"a": {"$gt": 1}}]}`},
		{`{"a": {"$ne": 1}}`, `{"a": {"$not": {"$eq": 1}}}`},
		{`{"a": {"$nin": [1, 2]}}`, `{"a": {"$not": {"$in": [1, 2]}}}`},
		{`{"a": {"$in": [2]}}`, `{"a": {"$eq": 2}}`},
		{`{"a": {"$in": [2, 3]}}`, `{"a": {"$in": [2, 3]}}`},
		{`{"$and": [{"a": 1}, {"$and": [{"b": 2}]}]}`, `{"$and": [{"a": {"$eq": 1}}, {"b": {"$eq": 2}}]}`},
		{`{"$or": [{"a": 1}, {"b": 2}]}`, `{"$or": [{"a": {"$eq": 1}}, {"b": {"$eq": 2}}]}`},
		{`{"$or": [{"a": 1}]}`, `{"a": {"$eq": 1}}`},
		{`{"a": {"$regex": "^x", "$options": "i"}}`, `{"a": {"$regex": "^x", "$options": "i"}}`},
		{`{"a": {"$exists": true}, "b": 1}`, `{"$and": [{"b": {"$eq": 1}}, {"a": {"$exists": true}}]}`},
	} {
		sameValue(t, c.filter, parsedQuery(ejson(t, c.filter), nil), c.want)
	}
}

// count, distinct, delete, update and findAndModify answer the same
// envelope, their stages mongod's: COUNT's nCounted and nSkipped,
// BATCHED_DELETE's nWouldDelete, UPDATE's nMatched, nWouldModify and
// nWouldUpsert, a findAndModify's sort a SORT with limitAmount 1.
func TestExplainOtherCommandsShape(t *testing.T) {
	t.Parallel()
	db := explainFixture(t)
	top := "explainVersion queryPlanner executionStats command serverInfo serverParameters ok"
	for _, c := range []struct{ cmd, parsed, root string }{
		{`{"count": "c", "query": {"b": 2}}`, `{"b": {"$eq": 2}}`, "stage " + commonExec + " nCounted nSkipped inputStage"},
		{`{"distinct": "c", "key": "a", "query": {"b": 2}}`, `{"b": {"$eq": 2}}`, "stage " + commonExec + " transformBy inputStage"},
		{`{"delete": "c", "deletes": [{"q": {"b": 2}, "limit": 0}]}`, `{"b": {"$eq": 2}}`, "stage " + commonExec + " nWouldDelete inputStage"},
		{`{"delete": "c", "deletes": [{"q": {"b": 2}, "limit": 1}]}`, `{"b": {"$eq": 2}}`, "stage " + commonExec + " nWouldDelete inputStage"},
		{`{"update": "c", "updates": [{"q": {"b": 2}, "u": {"$set": {"x": 1}}, "multi": true}]}`, `{"b": {"$eq": 2}}`,
			"stage " + commonExec + " nMatched nWouldModify nWouldUpsert inputStage"},
		{`{"findAndModify": "c", "query": {"b": 2}, "sort": {"b": 1}, "remove": true}`, `{"b": {"$eq": 2}}`, "stage " + commonExec + " nWouldDelete inputStage"},
	} {
		r := explainOf(t, db, c.cmd, "executionStats")
		if got := keysOf(r); got != top {
			t.Errorf("%s: fields %q", c.cmd, got)
		}
		sameValue(t, c.cmd+" parsedQuery", field(r, "queryPlanner.parsedQuery"), c.parsed)
		root, _ := field(r, "executionStats.executionStages").(bson.D)
		if got := keysOf(root); got != c.root {
			t.Errorf("%s: executed root %q, want %q", c.cmd, got, c.root)
		}
		if cmd, _ := field(r, "command").(bson.D); field(cmd, "$db") != "test" {
			t.Errorf("%s: command %s", c.cmd, document.Format(cmd))
		}
	}
	// A delete of one stops its scan at the first document.
	r := explainOf(t, db, `{"delete": "c", "deletes": [{"q": {"a": {"$gte": 2}}, "limit": 1}]}`, "executionStats")
	del, _ := field(r, "executionStats.executionStages").(bson.D)
	figures(t, "DELETE", del, "nReturned=0 isEOF=1 nWouldDelete=1")
	figures(t, "FETCH under DELETE", field(del, "inputStage").(bson.D), "nReturned=1 isEOF=0 docsExamined=1")
	r = explainOf(t, db, `{"count": "c", "query": {"b": 2}, "skip": 1}`, "executionStats")
	figures(t, "COUNT", field(r, "executionStats.executionStages").(bson.D), "nReturned=0 advanced=0 nCounted=1 nSkipped=1")
	r = explainOf(t, db, `{"findAndModify": "c", "query": {"b": 2}, "sort": {"b": 1}, "remove": true}`, "queryPlanner")
	if got := keysOf(field(r, "queryPlanner.winningPlan.inputStage").(bson.D)); got != "stage sortPattern memLimit limitAmount type inputStage" {
		t.Errorf("findAndModify's SORT %q", got)
	}
	// An aggregate that keeps stages: mongod's pipeline explain puts the
	// server before the command.
	r = explainOf(t, db, `{"aggregate": "c", "pipeline": [{"$match": {"b": 2}}, {"$addFields": {"x": 1}}], "cursor": {}}`, "queryPlanner")
	if got := keysOf(r); got != "explainVersion stages serverInfo serverParameters command ok" {
		t.Errorf("aggregate explain fields %q", got)
	}
}

// A find, update or delete of one _id is mongod's IDHACK (with
// keysExamined and docsExamined), not FETCH over IXSCAN _id_; a range,
// a hint or a sort on _id goes through the planner.
func TestExplainIDHack(t *testing.T) {
	t.Parallel()
	db := explainFixture(t)
	stages := func(r bson.D, path string) string {
		var names []string
		for st, _ := field(r, path).(bson.D); st != nil; st, _ = field(st, "inputStage").(bson.D) {
			names = append(names, fmt.Sprint(field(st, "stage")))
		}
		return strings.Join(names, " ")
	}
	for _, c := range []struct{ cmd, want string }{
		{`{"find": "c", "filter": {"_id": 3}}`, "IDHACK"},
		{`{"find": "c", "filter": {"_id": {"$eq": 3}}, "projection": {"a": 1}}`, "PROJECTION_SIMPLE IDHACK"},
		{`{"find": "c", "filter": {"_id": {"$gt": 3}}}`, "FETCH IXSCAN"},
		{`{"find": "c", "filter": {"_id": 3}, "hint": {"_id": 1}}`, "FETCH IXSCAN"},
		{`{"find": "c", "filter": {"_id": 3, "a": 3}}`, "FETCH IXSCAN"},
		{`{"find": "c", "filter": {"_id": {"$in": [3]}}}`, "FETCH IXSCAN"},
		{`{"delete": "c", "deletes": [{"q": {"_id": 3}, "limit": 1}]}`, "DELETE IDHACK"},
		{`{"update": "c", "updates": [{"q": {"_id": 3}, "u": {"$set": {"x": 1}}}]}`, "UPDATE IDHACK"},
	} {
		r := explainOf(t, db, c.cmd, "executionStats")
		if got := stages(r, "queryPlanner.winningPlan"); got != c.want {
			t.Errorf("%s: winning plan %q, want %q", c.cmd, got, c.want)
		}
	}
	r := explainOf(t, db, `{"find": "c", "filter": {"_id": 3}}`, "executionStats")
	st, _ := field(r, "executionStats.executionStages").(bson.D)
	if got, want := keysOf(st), "stage "+commonExec+" keysExamined docsExamined"; got != want {
		t.Errorf("executed IDHACK %q, want %q", got, want)
	}
	figures(t, "IDHACK", st, "nReturned=1 works=2 advanced=1 isEOF=1 keysExamined=1 docsExamined=1")
}

// A range on strings, documents or ObjectIds ends where mongod's
// bounds end: at the next type's least value, exclusive ({} after the
// strings, [] after the documents), or at the largest ObjectId. ttlkv
// wrote "end of string".
func TestExplainTypeBracketBounds(t *testing.T) {
	t.Parallel()
	db := explainFixture(t)
	for _, c := range []struct{ filter, want string }{
		{`{"a": {"$gt": "a"}}`, `["(\"a\", {})"]`},
		{`{"a": {"$lte": "m"}}`, `["[\"\", \"m\"]"]`},
		{`{"a": {"$gte": {"x": 1}}}`, `["[{ x: 1 }, [])"]`},
		{`{"a": {"$gt": {"$oid": "5f5e100000000000000000aa"}}}`, `["(ObjectId('5f5e100000000000000000aa'), ObjectId('ffffffffffffffffffffffff')]"]`},
		{`{"a": {"$lt": 3}}`, `["[-inf.0, 3)"]`},
	} {
		r := explainOf(t, db, `{"find": "c", "filter": `+c.filter+`}`, "queryPlanner")
		sameValue(t, c.filter, field(r, "queryPlanner.winningPlan.inputStage.indexBounds.a"), c.want)
	}
}

// An index union's OR counts the documents its branches gave twice
// (dupsTested, dupsDropped), each IXSCAN what it handed on; a
// COUNT_SCAN gives its keysExamined before its plan fields, as mongod's
// statsToBSON does.
func TestExplainOrAndCountScan(t *testing.T) {
	t.Parallel()
	db := explainFixture(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"b": 1}, "name": "b_1"}]}`)
	r := explainOf(t, db, `{"find": "c", "filter": {"$or": [{"a": 1}, {"b": 1}]}}`, "executionStats")
	fetch, _ := field(r, "executionStats.executionStages").(bson.D)
	figures(t, "FETCH over OR", fetch, "nReturned=2 docsExamined=2")
	or, _ := field(fetch, "inputStage").(bson.D)
	if got, want := keysOf(or), "stage "+commonExec+" dupsTested dupsDropped inputStages"; got != want {
		t.Errorf("executed OR %q, want %q", got, want)
	}
	figures(t, "OR", or, "nReturned=2 dupsTested=3 dupsDropped=1")
	branches, _ := field(or, "inputStages").(bson.A)
	if len(branches) != 2 {
		t.Fatalf("OR branches %v", branches)
	}
	figures(t, "IXSCAN a", branches[0].(bson.D), "nReturned=1 keysExamined=1 dupsTested=0 dupsDropped=0")
	figures(t, "IXSCAN b", branches[1].(bson.D), "nReturned=2 keysExamined=2 dupsTested=0 dupsDropped=0")
	win, _ := field(r, "queryPlanner.winningPlan.inputStage").(bson.D)
	if got := keysOf(win); got != "stage inputStages" {
		t.Errorf("winning OR %q", got)
	}
	if got := keysOf(field(win, "inputStages").(bson.A)[0].(bson.D)); got != "stage "+ixscanPlan {
		t.Errorf("winning OR branch %q", got)
	}

	r = explainOf(t, db, `{"count": "c", "query": {"a": 3}}`, "executionStats")
	cs, _ := field(r, "executionStats.executionStages.inputStage").(bson.D)
	if got, want := keysOf(cs), "stage "+commonExec+" keysExamined keyPattern indexName isMultiKey multiKeyPaths isUnique isSparse isPartial indexVersion indexBounds"; got != want {
		t.Errorf("executed COUNT_SCAN %q, want %q", got, want)
	}
	figures(t, "COUNT_SCAN", cs, "nReturned=1 keysExamined=1")
}

// An aggregate explained with executionStats gives each stage after
// the $cursor what it handed on (nReturned, executionTimeMillisEstimate,
// longs, as mongod's DocumentSource explain); one that writes is not
// run, and queryPlanner runs nothing.
func TestExplainAggregateStageFigures(t *testing.T) {
	t.Parallel()
	db := explainFixture(t)
	r := explainOf(t, db, `{"aggregate": "c", "pipeline": [{"$match": {"a": {"$gte": 2}}}, {"$group": {"_id": "$b"}}, {"$addFields": {"x": 1}}, {"$match": {"_id": {"$gte": 2}}}], "cursor": {}}`, "executionStats")
	stages, _ := field(r, "stages").(bson.A)
	if len(stages) != 4 {
		t.Fatalf("stages %v", stages)
	}
	for i, want := range []int64{3, 3, 2} {
		st, _ := stages[i+1].(bson.D)
		if got := keysOf(st); !strings.HasSuffix(got, " nReturned executionTimeMillisEstimate") {
			t.Errorf("stage %d fields %q", i+1, got)
		}
		if n, _ := get(st, "nReturned"); n != want {
			t.Errorf("stage %d (%s) nReturned %#v, want int64 %d", i+1, keysOf(st), n, want)
		}
		if ms, _ := get(st, "executionTimeMillisEstimate"); fmt.Sprintf("%T", ms) != "int64" {
			t.Errorf("stage %d executionTimeMillisEstimate %#v", i+1, ms)
		}
	}
	for _, c := range []struct{ pipeline, verbosity string }{
		{`[{"$group": {"_id": "$b"}}]`, "queryPlanner"},
		{`[{"$group": {"_id": "$b"}}, {"$out": "o"}]`, "executionStats"},
	} {
		r := explainOf(t, db, `{"aggregate": "c", "pipeline": `+c.pipeline+`, "cursor": {}}`, c.verbosity)
		stages, _ := field(r, "stages").(bson.A)
		if _, has := get(stages[1].(bson.D), "nReturned"); has || len(stages) < 2 {
			t.Errorf("%s at %s: stages %v, want no figures", c.pipeline, c.verbosity, stages)
		}
	}
	if n := count(t, db, "test", "o"); n != 0 {
		t.Errorf("explain of $out wrote %d documents", n)
	}
}
