package engine

import (
	"context"
	"strings"
	"time"

	"github.com/ttlkv/ttlkv/collation"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// cmdExplain runs the explain command.
func cmdExplain(ctx context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	inner, ok := cmd[0].Value.(bson.D)
	if !ok || len(inner) == 0 {
		return nil, document.Errorf(document.CodeFailedToParse, "explain command requires a nested object")
	}
	verbosity := "allPlansExecution"
	if v, ok := get(cmd, "verbosity"); ok {
		s, isStr := v.(string)
		if !isStr || (s != "queryPlanner" && s != "executionStats" && s != "allPlansExecution") {
			return nil, document.Errorf(document.CodeFailedToParse, "verbosity string must be one of {'queryPlanner', 'executionStats', 'allPlansExecution'}")
		}
		verbosity = s
	}
	if k := inner[0].Key; k == "mapReduce" || k == "mapreduce" {
		// The aggregation it runs as, with the command as given.
		_, spec, err := db.planMapReduce(dbName, inner)
		if err != nil {
			return nil, err
		}
		r, err := db.explainAggregate(ctx, dbName, spec, verbosity)
		for i := range r {
			if r[i].Key == "command" {
				r[i].Value = inner
			}
		}
		return r, err
	}
	if inner[0].Key == "aggregate" {
		if r, ok, err := db.collStatsAggregate(ctx, dbName, inner, verbosity); ok {
			return r, err
		}
		if r, ok, err := db.indexStatsAggregate(ctx, dbName, inner, verbosity); ok {
			return r, err
		}
		if r, ok, err := db.currentOpAggregate(ctx, dbName, inner, verbosity); ok {
			return r, err
		}
		s, err := parseAggregate(append(inner, bson.E{Key: "explain", Value: true}), db.opts.Clock())
		if err != nil {
			return nil, err
		}
		return db.explainAggregate(ctx, dbName, s, verbosity)
	}
	name, err := collName(inner)
	if err != nil {
		return nil, err
	}
	if c := db.lookup(dbName, name); c != nil && c.m().Kind == catalog.KindView {
		switch inner[0].Key {
		case "find":
			return db.explainViewFind(ctx, dbName, c, inner, verbosity)
		case "distinct":
			// The find that distinct runs over the view.
			find := bson.D{{Key: "find", Value: name}}
			if q, ok := get(inner, "query"); ok && q != nil {
				find = append(find, bson.E{Key: "filter", Value: q})
			}
			if coll, ok := get(inner, "collation"); ok {
				find = append(find, bson.E{Key: "collation", Value: coll})
			}
			return db.explainViewFind(ctx, dbName, c, find, verbosity)
		}
	}
	if c := db.lookup(dbName, name); c != nil && c.m().Kind == catalog.KindTimeseries && inner[0].Key == "count" {
		// mongod runs a count of a time-series collection as the
		// aggregate its countCommandAsAggregationCommand makes, and
		// explains that (tsCountAsAggregate).
		agg, err := tsCountAsAggregate(inner)
		if err != nil {
			return nil, err
		}
		s, err := parseAggregate(append(agg, bson.E{Key: "explain", Value: true}), db.opts.Clock())
		if err != nil {
			return nil, err
		}
		return db.explainAggregate(ctx, dbName, s, verbosity)
	}
	execute := verbosity != "queryPlanner"
	ns := dbName + "." + name
	// The filter queryPlanner.parsedQuery shows, and the rest of the
	// query's shape for its queryHash.
	var plannerFilter bson.D
	var plannerColl *collation.Collator // the plan's collation, for parsedQuery
	var shape []any
	var winning bson.D
	var st *execStats
	isEOF := true
	start := time.Now()
	// The explained command's own parser is as strict as when it runs.
	var strictErr error
	switch inner[0].Key {
	case "update":
		strictErr = strictFields(inner, "updates", "ordered", "bypassDocumentValidation", "let")
	case "delete":
		strictErr = strictFields(inner, "deletes", "ordered", "let")
	case "count":
		strictErr = strictFields(inner, "query", "limit", "skip", "hint", "collation", "fields")
	case "distinct":
		strictErr = strictFields(inner, "key", "query", "collation", "hint")
	}
	if strictErr != nil {
		return nil, strictErr
	}
	switch inner[0].Key {
	case "find":
		filter, o, err := parseFindOptions(inner)
		if err != nil {
			return nil, err
		}
		o.Tailable, o.AwaitData = false, false
		plannerFilter, shape = filter, []any{"find", o.Sort, o.Projection, o.Collation}
		_, p, q, err := db.findPlan(dbName, name, filter, o)
		if err != nil {
			return nil, err
		}
		plannerColl = planCollator(p)
		if p == nil {
			winning = bson.D{{Key: "stage", Value: "EOF"}}
			break
		}
		p.filterRaw, p.sortDoc = filter, o.Sort
		if execute {
			for !q.done {
				if _, err := q.nextBatch(ctx, 4096); err != nil {
					return nil, err
				}
			}
			st = &q.sc.stats
			// A limit met before the scan's end leaves it short of EOF.
			st.partial = !q.sc.done
		}
		winning = stageTree(p, st, isEOF)
		if st != nil && p.ix != nil && tsOwnIndex(p.m, p.ix) {
			st.keysExamined = 0 // shown as a COLLSCAN (stageTree)
		}
		if idHackable(p, filter, o) {
			winning = idHackDoc(st)
		}
		// mongod's order, bottom up: a SORT keeps skip + limit documents
		// (no LIMIT stage then), a SKIP, the projection, a LIMIT.
		lim := max(o.Limit, -o.Limit)
		sortLimited := false
		if lim > 0 {
			winning, sortLimited = withSortLimit(winning, lim+o.Skip)
		}
		if o.Skip > 0 {
			winning = bson.D{{Key: "stage", Value: "SKIP"}, {Key: "skipAmount", Value: int32OrLong(o.Skip)}, {Key: "inputStage", Value: winning}}
		}
		if len(o.Projection) > 0 {
			stage := projectionStage(o.Projection)
			if p.covered {
				stage = "PROJECTION_COVERED"
			}
			proj := bson.D{{Key: "stage", Value: stage}, {Key: "transformBy", Value: o.Projection}}
			if p.covered && lim == 0 && projectionKeepsSort(o.Projection, p.sort) {
				winning = underSort(winning, proj)
			} else {
				winning = append(proj, bson.E{Key: "inputStage", Value: winning})
			}
		}
		if lim > 0 && !sortLimited {
			winning = bson.D{{Key: "stage", Value: "LIMIT"}, {Key: "limitAmount", Value: int32OrLong(lim)}, {Key: "inputStage", Value: winning}}
		}
		if p.ts != nil {
			return db.tsExplainFind(ctx, dbName, inner, p, winning, st, verbosity, start), nil
		}
	case "count":
		var filter bson.D
		if v, ok := get(inner, "query"); ok {
			if filter, err = toDoc("count.query", v); err != nil {
				return nil, err
			}
		}
		// The count's hint and collation choose its plan, as they do the
		// count's.
		plannerFilter, shape = filter, []any{"count"}
		co := FindOptions{}
		co.Hint, _ = get(inner, "hint")
		if v, ok := get(inner, "collation"); ok {
			if co.Collation, err = collationOption("count", v); err != nil {
				return nil, err
			}
		}
		_, p, q, err := db.findPlan(dbName, name, filter, co)
		if err != nil {
			return nil, err
		}
		plannerColl = planCollator(p)
		if p == nil {
			winning = bson.D{{Key: "stage", Value: "EOF"}}
			break
		}
		p.filterRaw = filter
		var skip, limit int64
		if v, ok := get(inner, "skip"); ok {
			if skip, err = intOpt("count.skip", v); err != nil {
				return nil, err
			}
		}
		if v, ok := get(inner, "limit"); ok {
			if limit, err = intOpt("count.limit", v); err != nil {
				return nil, err
			}
			limit = max(limit, -limit)
		}
		// matched is how many documents the plan finds; COUNT takes skip
		// and limit of them, as mongod's nSkipped and nCounted say.
		var matched int64
		var input bson.D
		if keyCountable(p) {
			// The keys alone: COUNT over the IXSCAN, no FETCH.
			if execute {
				if matched, _, err = db.countKeys(ctx, q.sc); err != nil {
					return nil, err
				}
				st = &q.sc.stats
			}
			if cs, ok := countScanDoc(p, st); ok {
				input = cs // one interval: mongod's COUNT_SCAN
			} else {
				input = ixscanDoc(p, st)
			}
			if st != nil {
				input = withExec(input, matched, true)
			}
		} else {
			if execute {
				for !q.done {
					docs, err := q.nextBatch(ctx, 4096)
					if err != nil {
						return nil, err
					}
					matched += int64(len(docs))
				}
				st = &q.sc.stats
			}
			input = stageTree(p, st, true)
		}
		winning = bson.D{{Key: "stage", Value: "COUNT"}}
		if st != nil {
			skipped := min(skip, matched)
			counted := matched - skipped
			if limit > 0 {
				counted = min(counted, limit)
			}
			st.nReturned = 0 // a count returns no documents
			winning = append(winning, bson.E{Key: "nCounted", Value: int32OrLong(counted)}, bson.E{Key: "nSkipped", Value: int32OrLong(skipped)})
		}
		winning = append(winning, bson.E{Key: "inputStage", Value: input})
		if st != nil {
			winning = withExec(winning, 0, true)
		}
	case "distinct":
		// The plan that reads the documents, under the projection of the
		// key that distinct takes of each (mongod's PROJECTION_SIMPLE
		// when no index gives the values).
		key, ok := get(inner, "key")
		ks, isStr := key.(string)
		if !ok || !isStr {
			return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'distinct.key' is missing or is not a string")
		}
		var filter bson.D
		if v, ok := get(inner, "query"); ok && v != nil {
			if filter, err = toDoc("distinct.query", v); err != nil {
				return nil, err
			}
		}
		var coll bson.D
		if v, ok := get(inner, "collation"); ok {
			if coll, err = collationOption("distinct", v); err != nil {
				return nil, err
			}
		}
		plannerFilter, shape = filter, []any{"distinct", ks, coll}
		_, p, q, scan, err := db.distinctPlan(dbName, name, ks, filter, coll)
		if err != nil {
			return nil, err
		}
		plannerColl = planCollator(p)
		if p == nil {
			winning = bson.D{{Key: "stage", Value: "EOF"}}
			break
		}
		p.filterRaw = filter
		transform := bson.D{{Key: ks, Value: int32(1)}}
		if ks != "_id" {
			transform = append(transform, bson.E{Key: "_id", Value: int32(0)})
		}
		if scan && execute {
			st = &execStats{}
			if _, ok, err := db.distinctScan(ctx, p, ks, st); err != nil {
				return nil, err
			} else if !ok {
				scan, st = false, nil // the index went multikey: the documents are read
			}
		}
		if scan {
			// The index's keys give the values (distinctScannable):
			// mongod's PROJECTION_COVERED over DISTINCT_SCAN.
			winning = bson.D{{Key: "stage", Value: "PROJECTION_COVERED"}, {Key: "transformBy", Value: transform},
				{Key: "inputStage", Value: distinctScanDoc(p, st)}}
			break
		}
		if execute {
			for !q.done {
				if _, err := q.nextBatch(ctx, 4096); err != nil {
					return nil, err
				}
			}
			st = &q.sc.stats
		}
		winning = bson.D{{Key: "stage", Value: "PROJECTION_SIMPLE"}, {Key: "transformBy", Value: transform}, {Key: "inputStage", Value: stageTree(p, st, true)}}
	case "update", "findAndModify":
		// An update statement, or findAndModify's one document: the plan
		// that finds the documents, under UPDATE or DELETE; executed, it
		// counts the documents matched and those the update would change,
		// and writes nothing.
		ex, err := db.explainWrite(dbName, name, inner)
		if err != nil {
			return nil, err
		}
		plannerFilter, shape = ex.filter, []any{ex.stage, ex.sort}
		plannerColl = planCollator(ex.p)
		if ex.p == nil {
			winning = bson.D{{Key: "stage", Value: "EOF"}}
			break
		}
		if execute {
			if st, err = ex.run(ctx, db); err != nil {
				return nil, err
			}
		}
		winning = bson.D{{Key: "stage", Value: ex.stage}}
		if st != nil {
			winning = append(winning, bson.E{Key: "nReturned", Value: int32(0)}, bson.E{Key: "isEOF", Value: int32(1)})
			if ex.stage == "UPDATE" {
				winning = append(winning, bson.E{Key: "nMatched", Value: int32OrLong(ex.matched)},
					bson.E{Key: "nWouldModify", Value: int32OrLong(ex.modified)}, bson.E{Key: "nWouldUpsert", Value: int32OrLong(ex.upserted)})
			} else {
				winning = append(winning, bson.E{Key: "nWouldDelete", Value: int32OrLong(ex.matched)})
			}
		}
		input := stageTree(ex.p, st, true)
		if idHackable(ex.p, ex.filter, ex.opts) {
			input = idHackDoc(st)
		}
		if ex.limit > 0 {
			// A sort that keeps one document: mongod's SORT with its limit.
			input, _ = withSortLimit(input, ex.limit)
		}
		winning = append(winning, bson.E{Key: "inputStage", Value: input})
		if st != nil {
			st = &execStats{keysExamined: st.keysExamined, docsExamined: st.docsExamined}
		}
	case "delete":
		stmts, err := statements(inner, "deletes")
		if err != nil {
			return nil, err
		}
		if len(stmts) != 1 {
			return nil, document.Errorf(document.CodeInvalidOptions, "explained write batches must be of size 1")
		}
		s, err := parseDeleteStmt(stmts[0])
		if err != nil {
			return nil, err
		}
		plannerFilter, shape = s.Filter, []any{"delete"}
		_, p, q, err := db.findPlan(dbName, name, s.Filter, FindOptions{Hint: s.Hint, Collation: s.Collation})
		if err != nil {
			return nil, err
		}
		plannerColl = planCollator(p)
		if p == nil {
			winning = bson.D{{Key: "stage", Value: "EOF"}}
			break
		}
		p.filterRaw = s.Filter
		stage := "BATCHED_DELETE"
		var n int64
		if s.Limit == 1 {
			stage = "DELETE"
			q.limit = 1
		}
		if execute {
			for !q.done {
				docs, err := q.nextBatch(ctx, 4096)
				if err != nil {
					return nil, err
				}
				n += int64(len(docs))
			}
			st = &q.sc.stats
			st.partial = !q.sc.done // a delete of one stops at it
		}
		if p.ts != nil {
			if residual := tsResidualFilter(p.ts.scan.o, s.Filter); len(residual) > 0 {
				winning = tsModifyStage(p, st, s.Limit == 1, residual, n)
				if st != nil {
					st = &execStats{keysExamined: st.keysExamined, docsExamined: st.docsExamined}
				}
				break
			}
		}
		input := stageTree(p, st, true)
		if idHackable(p, s.Filter, FindOptions{Hint: s.Hint, Collation: s.Collation}) {
			input = idHackDoc(st)
		}
		winning = bson.D{{Key: "stage", Value: stage}}
		if st != nil {
			winning = append(winning, bson.E{Key: "nReturned", Value: int32(0)}, bson.E{Key: "isEOF", Value: int32(1)},
				bson.E{Key: "nWouldDelete", Value: int32OrLong(n)})
		}
		// mongod's BATCHED_DELETE shows DELETE's fields alone: its
		// statsToBSON prints nWouldDelete for both, not the batch
		// targets (its BatchedDeleteStats holds none of them).
		winning = append(winning, bson.E{Key: "inputStage", Value: input})
		if st != nil {
			st = &execStats{keysExamined: st.keysExamined, docsExamined: st.docsExamined}
		}
	default:
		return nil, document.Errorf(document.CodeCommandNotFound, "explain of '%s' is not supported", inner[0].Key)
	}
	if c := db.lookup(dbName, name); c != nil {
		plannerFilter = textParsedFilter(plannerFilter, c.m())
	}
	qp := append(plannerHeader(ns, plannerFilter, plannerColl, shape...),
		bson.E{Key: "winningPlan", Value: planOnly(winning)}, bson.E{Key: "rejectedPlans", Value: bson.A{}})
	reply := bson.D{{Key: "explainVersion", Value: explainVersion}, {Key: "queryPlanner", Value: qp}}
	if execute {
		if st == nil {
			st = &execStats{}
		}
		ms := time.Since(start).Milliseconds()
		stages, _ := execTree(winning, ms)
		es := bson.D{
			{Key: "executionSuccess", Value: true}, {Key: "nReturned", Value: int32OrLong(st.nReturned)},
			{Key: "executionTimeMillis", Value: int32OrLong(ms)},
			{Key: "totalKeysExamined", Value: int32OrLong(st.keysExamined)}, {Key: "totalDocsExamined", Value: int32OrLong(st.docsExamined)},
			{Key: "executionStages", Value: stages}}
		if verbosity == "allPlansExecution" {
			// One plan: ttlkv ranks none against another.
			es = append(es, bson.E{Key: "allPlansExecution", Value: bson.A{}})
		}
		reply = append(reply, bson.E{Key: "executionStats", Value: es})
	}
	return append(reply, bson.E{Key: "command", Value: explainCommand(inner, dbName)},
		bson.E{Key: "serverInfo", Value: explainServerInfo(ctx)},
		bson.E{Key: "serverParameters", Value: db.explainServerParameters()}), nil
}

// projectionFlag reads a projection field's value as an inclusion (on)
// or an exclusion: a boolean, or a number, nonzero to include; ok is
// false for anything else (an expression, $slice, $elemMatch, $meta).
func projectionFlag(v any) (on, ok bool) {
	switch v := v.(type) {
	case bool:
		return v, true
	case int32, int64, float64, bson.Decimal128:
		f, _ := asFloat(v)
		return f != 0, true
	}
	return false, false
}

// projectionStage is the projection stage mongod's classic planner
// puts over fetched documents: PROJECTION_SIMPLE for an inclusion of
// top-level fields (with or without _id: mongod's
// projection_ast::Projection::isSimple), PROJECTION_DEFAULT for
// anything else: an exclusion (it needs the whole document), a dotted
// path, an expression, $slice, $elemMatch, $meta, a positional a.$.
// A find its index answers alone shows PROJECTION_COVERED instead
// (coverable).
func projectionStage(proj bson.D) string {
	inclusion := false
	for _, e := range proj {
		if strings.ContainsAny(e.Key, ".$") {
			return "PROJECTION_DEFAULT"
		}
		on, ok := projectionFlag(e.Value)
		if !ok {
			return "PROJECTION_DEFAULT"
		}
		if on {
			inclusion = true
		} else if e.Key != "_id" {
			return "PROJECTION_DEFAULT"
		}
	}
	if !inclusion {
		return "PROJECTION_DEFAULT"
	}
	return "PROJECTION_SIMPLE"
}
