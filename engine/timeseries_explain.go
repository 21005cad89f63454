package engine

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// tsExplainFind answers explain of a find on time-series collection
// name (plan p, options o) as mongod 7.0 does, which runs such a find as
// an aggregate over the buckets collection (docs/timeseries.md,
// "Reads"): the stages of that pipeline, a $cursor holding the buckets
// scan (queryPlanner on system.buckets.<name>, the bucket filter as its
// parsedQuery, and executed its executionStats, which count buckets),
// then $_internalUnpackBucket (tsUnpackStage), then the find's sort,
// skip, limit and projection as the $sort, $skip, $limit and $project
// that mongod's optimised pipeline holds. winning is the find's plan as
// cmdExplain built it (UNPACK_TS_BUCKET under those stages); st its
// figures when executed (nil for queryPlanner).
func (db *DB) tsExplainFind(ctx context.Context, dbName string, inner bson.D, p *plan, winning bson.D, st *execStats, verbosity string, start time.Time) bson.D {
	execute := st != nil
	ms := time.Since(start).Milliseconds()
	tree := winning
	if execute {
		tree, _ = execTree(winning, ms)
	}
	// The stages above the unpacking, outermost first.
	var above []bson.D
	unpack := tree
	for {
		if s, _ := get(unpack, "stage"); s == "UNPACK_TS_BUCKET" {
			break
		}
		above = append(above, unpack)
		in, _ := get(unpack, "inputStage")
		d, ok := in.(bson.D)
		if !ok {
			break
		}
		unpack = d
	}
	scan, _ := get(unpack, "inputStage")
	scanD, _ := scan.(bson.D)
	info := p.ts
	bucketsNs := dbName + "." + tsBucketsPre + p.m.Name
	qp := append(plannerHeader(bucketsNs, info.bucket, p.filter.Collator(), "find"),
		bson.E{Key: "winningPlan", Value: planOnly(scanD)}, bson.E{Key: "rejectedPlans", Value: bson.A{}})
	cursor := bson.D{{Key: "queryPlanner", Value: qp}}
	if execute {
		keys := st.keysExamined
		if in := info.inner; in != nil && in.ix != nil && tsOwnIndex(in.m, in.ix) {
			keys = 0 // shown as a COLLSCAN (stageTree)
		}
		es := bson.D{{Key: "executionSuccess", Value: true}, {Key: "nReturned", Value: int32OrLong(info.scan.unpacked)},
			{Key: "executionTimeMillis", Value: int32OrLong(ms)},
			{Key: "totalKeysExamined", Value: int32OrLong(keys)}, {Key: "totalDocsExamined", Value: int32OrLong(st.docsExamined)},
			{Key: "executionStages", Value: scanD}}
		if verbosity == "allPlansExecution" {
			es = append(es, bson.E{Key: "allPlansExecution", Value: bson.A{}})
		}
		cursor = append(cursor, bson.E{Key: "executionStats", Value: es})
	}
	stages := bson.A{bson.D{{Key: "$cursor", Value: cursor}}}
	withCount := func(d bson.D, from bson.D) bson.D {
		if execute {
			d = append(d, bson.E{Key: "nReturned", Value: figure(get(from, "nReturned"))},
				bson.E{Key: "executionTimeMillisEstimate", Value: ms})
		}
		return d
	}
	stages = append(stages, withCount(db.tsUnpackStage(p), unpack))
	// mongod's pipeline for a find is $sort, $skip, $limit, $project;
	// optimised, a $limit goes before the $skip (taking both) and a
	// $sort absorbs it.
	var sortNode, proj bson.D
	var skipN, limitN int64
	n := figure(get(unpack, "nReturned"))
	for i := len(above) - 1; i >= 0; i-- {
		s := above[i]
		switch name, _ := get(s, "stage"); name {
		case "SORT":
			sortNode = s
		case "SKIP":
			skipN = figure(get(s, "skipAmount"))
		case "LIMIT":
			limitN = figure(get(s, "limitAmount"))
		default:
			proj = s
		}
	}
	count := func(v int64) bson.D { return bson.D{{Key: "nReturned", Value: v}} }
	if sortNode != nil {
		sk, _ := get(sortNode, "sortPattern")
		spec := bson.D{{Key: "sortKey", Value: sk}}
		if l, ok := get(sortNode, "limitAmount"); ok {
			spec = append(spec, bson.E{Key: "limit", Value: figure(l, true)})
		}
		n = figure(get(sortNode, "nReturned"))
		stages = append(stages, withCount(bson.D{{Key: "$sort", Value: spec}}, count(n)))
	}
	if limitN > 0 {
		n = min(n, limitN+skipN)
		stages = append(stages, withCount(bson.D{{Key: "$limit", Value: limitN + skipN}}, count(n)))
	}
	if skipN > 0 {
		n = max(0, n-skipN)
		stages = append(stages, withCount(bson.D{{Key: "$skip", Value: skipN}}, count(n)))
	}
	if proj != nil {
		tb, _ := get(proj, "transformBy")
		stages = append(stages, withCount(bson.D{{Key: "$project", Value: tb}}, count(n)))
	}
	return bson.D{{Key: "explainVersion", Value: explainVersion}, {Key: "stages", Value: stages},
		{Key: "serverInfo", Value: explainServerInfo(ctx)}, {Key: "serverParameters", Value: db.explainServerParameters()},
		{Key: "command", Value: explainCommand(inner, dbName)}}
}

// tsUnpackStage is the $_internalUnpackBucket stage of a read of
// time-series plan p as mongod 7.0's explain prints it: exclude [] (the
// whole measurement; ttlkv does not narrow it to the fields the rest
// needs, as mongod's dependency analysis may, into include), timeField,
// metaField, bucketMaxSpanSeconds, assumeNoMixedSchemaData (true: ttlkv's
// buckets never mix types within a field's column as mongod's 5.0
// buckets could), usesExtendedRange when a time lies outside 1970..2038,
// and the eventFilter each measurement must pass: the filter without its
// metaField conditions, which mongod moves before the unpacking onto
// the buckets' meta (all of it under a non-simple collation, which
// ttlkv's bucket filter does not apply to the meta).
func (db *DB) tsUnpackStage(p *plan) bson.D {
	o := p.ts.scan.o
	spec := bson.D{{Key: "exclude", Value: bson.A{}}, {Key: "timeField", Value: o.TimeField}}
	if o.MetaField != "" {
		spec = append(spec, bson.E{Key: "metaField", Value: o.MetaField})
	}
	spec = append(spec, bson.E{Key: "bucketMaxSpanSeconds", Value: int32(o.BucketMaxSpanSeconds)},
		bson.E{Key: "assumeNoMixedSchemaData", Value: true})
	if t, err := decodeTSMeta(p.m); err == nil && t.outOfRange {
		spec = append(spec, bson.E{Key: "usesExtendedRange", Value: true})
	}
	ev := tsResidualFilter(o, p.filterRaw)
	if p.filter != nil && p.filter.Collator() != nil {
		// Under a collation the metaField's conditions stay with the
		// measurements too (tsBucketFilter leaves them out of the
		// buckets' filter).
		ev = p.filterRaw
	}
	if len(ev) > 0 {
		spec = append(spec, bson.E{Key: "eventFilter", Value: parsedQuery(ev, nil)})
	}
	return bson.D{{Key: "$_internalUnpackBucket", Value: spec}}
}

// tsCountAsAggregate is the aggregate mongod 7.0 runs for count command
// cmd on a view, a time-series collection included: $match of the
// query (when not empty), $skip, $limit, then {$count: "count"}, with
// the count's hint and collation.
func tsCountAsAggregate(cmd bson.D) (bson.D, error) {
	if err := strictFields(cmd, "query", "limit", "skip", "hint", "collation", "fields"); err != nil {
		return nil, err
	}
	pipe := bson.A{}
	if q, ok := get(cmd, "query"); ok && q != nil {
		d, err := toDoc("count.query", q)
		if err != nil {
			return nil, err
		}
		if len(d) > 0 {
			pipe = append(pipe, bson.D{{Key: "$match", Value: d}})
		}
	}
	for _, k := range []string{"skip", "limit"} {
		v, ok := get(cmd, k)
		if !ok {
			continue
		}
		n, err := intOpt("count."+k, v)
		if err != nil {
			return nil, err
		}
		if k == "limit" {
			n = max(n, -n)
		}
		if n != 0 {
			pipe = append(pipe, bson.D{{Key: "$" + k, Value: n}})
		}
	}
	pipe = append(pipe, bson.D{{Key: "$count", Value: "count"}})
	out := bson.D{{Key: "aggregate", Value: cmd[0].Value}, {Key: "pipeline", Value: pipe}, {Key: "cursor", Value: bson.D{}}}
	for _, k := range []string{"hint", "collation"} {
		if v, ok := get(cmd, k); ok {
			out = append(out, bson.E{Key: k, Value: v})
		}
	}
	return out, nil
}
