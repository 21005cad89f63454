package engine

import (
	"context"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// stageTree renders a plan's stages for explain, innermost first
// wrapped by the outer ones; stats, when non-nil, add execution fields.
func stageTree(p *plan, st *execStats, isEOF bool) bson.D {
	if p.ts != nil {
		return tsStageTree(p, st, isEOF)
	}
	var leaf bson.D
	if p.ix == nil {
		dir := "forward"
		if p.reverse {
			dir = "backward"
		}
		leaf = bson.D{{Key: "stage", Value: "COLLSCAN"}, {Key: "filter", Value: nonNilDoc(p.filterDoc())}, {Key: "direction", Value: dir}}
		if st != nil {
			leaf = append(leaf, bson.E{Key: "docsExamined", Value: int32OrLong(st.docsExamined)})
		}
	} else {
		dir := "forward"
		if p.reverse {
			dir = "backward"
		}
		ixscan := bson.D{{Key: "stage", Value: "IXSCAN"}, {Key: "keyPattern", Value: p.ix.Key},
			{Key: "indexName", Value: p.ix.Name}, {Key: "isMultiKey", Value: p.ix.Multikey},
			{Key: "isUnique", Value: p.ix.Unique}, {Key: "isSparse", Value: p.ix.Sparse},
			{Key: "isPartial", Value: p.ix.Partial != nil}, {Key: "direction", Value: dir},
			{Key: "indexBounds", Value: p.boundsDesc}}
		if c := p.ix.collator(); c != nil {
			// As MongoDB's explain: the index's collation after its name.
			ixscan = append(ixscan[:3], append(bson.D{{Key: "collation", Value: c.Doc()}}, ixscan[3:]...)...)
		}
		if st != nil {
			ixscan = append(ixscan, bson.E{Key: "keysExamined", Value: int32OrLong(st.keysExamined)})
		}
		leaf = bson.D{{Key: "stage", Value: "FETCH"}}
		if len(p.filterDoc()) > 0 {
			leaf = append(leaf, bson.E{Key: "filter", Value: p.filterDoc()})
		}
		if st != nil {
			leaf = append(leaf, bson.E{Key: "docsExamined", Value: int32OrLong(st.docsExamined)})
		}
		leaf = append(leaf, bson.E{Key: "inputStage", Value: ixscan})
	}
	if p.sort != nil && !p.sortByIndex && len(p.sort.Keys()) > 0 {
		leaf = bson.D{{Key: "stage", Value: "SORT"}, {Key: "sortPattern", Value: p.sortDoc}, {Key: "inputStage", Value: leaf}}
	}
	if st != nil {
		leaf = withExec(leaf, st.nReturned, isEOF)
	}
	return leaf
}

// withExec adds a stage's execution figures after its name. MongoDB
// appends nReturned with appendNumber and isEOF, a bool, through
// appendNumber(int) (src/mongo/db/query/plan_explainer_impl.cpp,
// statsToBSON), so both are int32 in practice.
func withExec(stage bson.D, nReturned int64, isEOF bool) bson.D {
	out := bson.D{stage[0], {Key: "nReturned", Value: int32OrLong(nReturned)}, {Key: "isEOF", Value: boolInt32(isEOF)}}
	return append(out, stage[1:]...)
}

func boolInt32(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

func (p *plan) filterDoc() bson.D { return p.filterRaw }

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
	if inner[0].Key == "aggregate" {
		s, err := parseAggregate(append(inner, bson.E{Key: "explain", Value: true}))
		if err != nil {
			return nil, err
		}
		return db.explainAggregate(ctx, dbName, s, verbosity)
	}
	name, err := collName(inner)
	if err != nil {
		return nil, err
	}
	execute := verbosity != "queryPlanner"
	ns := dbName + "." + name
	var p *plan
	var winning bson.D
	var st *execStats
	isEOF := true
	start := time.Now()
	switch inner[0].Key {
	case "find":
		filter, o, err := parseFindOptions(inner)
		if err != nil {
			return nil, err
		}
		o.Tailable, o.AwaitData = false, false
		_, p, q, err := db.findPlan(dbName, name, filter, o)
		if err != nil {
			return nil, err
		}
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
		}
		winning = stageTree(p, st, isEOF)
		if o.Limit != 0 {
			lim := o.Limit
			if lim < 0 {
				lim = -lim
			}
			winning = bson.D{{Key: "stage", Value: "LIMIT"}, {Key: "limitAmount", Value: int32OrLong(lim)}, {Key: "inputStage", Value: winning}}
		}
		if o.Skip > 0 {
			winning = bson.D{{Key: "stage", Value: "SKIP"}, {Key: "skipAmount", Value: int32OrLong(o.Skip)}, {Key: "inputStage", Value: winning}}
		}
		if len(o.Projection) > 0 {
			winning = bson.D{{Key: "stage", Value: "PROJECTION_DEFAULT"}, {Key: "transformBy", Value: o.Projection}, {Key: "inputStage", Value: winning}}
		}
	case "count":
		var filter bson.D
		if v, ok := get(inner, "query"); ok {
			if filter, err = toDoc("count.query", v); err != nil {
				return nil, err
			}
		}
		_, p, q, err := db.findPlan(dbName, name, filter, FindOptions{})
		if err != nil {
			return nil, err
		}
		if p == nil {
			winning = bson.D{{Key: "stage", Value: "EOF"}}
			break
		}
		p.filterRaw = filter
		if execute {
			for !q.done {
				if _, err := q.nextBatch(ctx, 4096); err != nil {
					return nil, err
				}
			}
			st = &q.sc.stats
		}
		winning = bson.D{{Key: "stage", Value: "COUNT"}, {Key: "inputStage", Value: stageTree(p, st, true)}}
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
		_, p, q, err := db.findPlan(dbName, name, s.Filter, FindOptions{Hint: s.Hint})
		if err != nil {
			return nil, err
		}
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
		}
		input := stageTree(p, st, true)
		winning = bson.D{{Key: "stage", Value: stage}}
		if st != nil {
			winning = append(winning, bson.E{Key: "nReturned", Value: int32(0)}, bson.E{Key: "isEOF", Value: int32(1)},
				bson.E{Key: "nWouldDelete", Value: int32OrLong(n)})
		}
		if stage == "BATCHED_DELETE" {
			t := db.deleteTargets()
			winning = append(winning, bson.E{Key: "batchSizeTargets", Value: bson.D{
				{Key: "targetBatchDocs", Value: int32OrLong(t.docs)}, {Key: "targetBatchTimeMS", Value: int32OrLong(t.timeMS)},
				{Key: "targetStagedDocBytes", Value: int32OrLong(t.bytes)}}})
		}
		winning = append(winning, bson.E{Key: "inputStage", Value: input})
		if st != nil {
			st = &execStats{keysExamined: st.keysExamined, docsExamined: st.docsExamined}
		}
	default:
		return nil, document.Errorf(document.CodeCommandNotFound, "explain of '%s' is not supported", inner[0].Key)
	}
	reply := bson.D{{Key: "queryPlanner", Value: bson.D{{Key: "namespace", Value: ns},
		{Key: "winningPlan", Value: planOnly(winning)}, {Key: "rejectedPlans", Value: bson.A{}}}}}
	if execute {
		if st == nil {
			st = &execStats{}
		}
		reply = append(reply, bson.E{Key: "executionStats", Value: bson.D{
			{Key: "executionSuccess", Value: true}, {Key: "nReturned", Value: int32OrLong(st.nReturned)},
			{Key: "executionTimeMillis", Value: int32OrLong(time.Since(start).Milliseconds())},
			{Key: "totalKeysExamined", Value: int32OrLong(st.keysExamined)}, {Key: "totalDocsExamined", Value: int32OrLong(st.docsExamined)},
			{Key: "executionStages", Value: winning}}})
	}
	reply = append(reply, bson.E{Key: "command", Value: inner})
	_ = p
	return reply, nil
}

// execFields are the stage fields that only executionStats shows.
var execFields = map[string]bool{"nReturned": true, "isEOF": true, "nWouldDelete": true,
	"docsExamined": true, "keysExamined": true}

// planOnly returns a copy of a stage tree without its execution
// figures, as queryPlanner.winningPlan shows it (MongoDB keeps those
// in executionStats.executionStages).
func planOnly(stage bson.D) bson.D {
	out := make(bson.D, 0, len(stage))
	for _, e := range stage {
		if execFields[e.Key] {
			continue
		}
		if in, ok := e.Value.(bson.D); ok && (e.Key == "inputStage") {
			e.Value = planOnly(in)
		}
		out = append(out, e)
	}
	return out
}
