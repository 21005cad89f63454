package engine

import (
	"go.mongodb.org/mongo-driver/v2/bson"
)

// stageTree renders a plan's stages for explain, innermost first
// wrapped by the outer ones; stats, when non-nil, add execution fields.
func stageTree(p *plan, st *execStats, isEOF bool) bson.D {
	if p.ts != nil {
		return tsStageTree(p, st, isEOF)
	}
	var leaf bson.D
	if p.or != nil {
		// mongod's index union: FETCH (the whole filter) over OR over an
		// IXSCAN a branch.
		inputs := bson.A{}
		for i, sp := range p.or {
			var sst *execStats
			if st != nil && i < len(p.orStats) {
				sst = p.orStats[i]
			}
			inputs = append(inputs, ixscanDoc(sp, sst))
		}
		or := bson.D{{Key: "stage", Value: "OR"}, {Key: "inputStages", Value: inputs}}
		leaf = bson.D{{Key: "stage", Value: "FETCH"}}
		if len(p.filterDoc()) > 0 {
			leaf = append(leaf, bson.E{Key: "filter", Value: p.filterDoc()})
		}
		if st != nil {
			leaf = append(leaf, bson.E{Key: "docsExamined", Value: int32OrLong(st.docsExamined)})
		}
		leaf = append(leaf, bson.E{Key: "inputStage", Value: or})
	} else if p.ix == nil {
		dir := "forward"
		if p.reverse {
			dir = "backward"
		}
		leaf = bson.D{{Key: "stage", Value: "COLLSCAN"}, {Key: "filter", Value: nonNilDoc(p.filterDoc())}, {Key: "direction", Value: dir}}
		if st != nil {
			leaf = append(leaf, bson.E{Key: "docsExamined", Value: int32OrLong(st.docsExamined)})
		}
	} else {
		ixscan := ixscanDoc(p, st)
		leaf = bson.D{{Key: "stage", Value: "FETCH"}}
		if len(p.filterDoc()) > 0 {
			leaf = append(leaf, bson.E{Key: "filter", Value: p.filterDoc()})
		}
		if st != nil {
			leaf = append(leaf, bson.E{Key: "docsExamined", Value: int32OrLong(st.docsExamined)})
		}
		leaf = append(leaf, bson.E{Key: "inputStage", Value: ixscan})
		if p.text != nil {
			leaf = textMatchDoc(p, leaf)
		}
		if p.near != nil {
			// The documents the index finds, ordered by distance.
			leaf = bson.D{{Key: "stage", Value: nearStageName(p.ix)}, {Key: "keyPattern", Value: p.ix.Key},
				{Key: "indexName", Value: p.ix.Name}, {Key: "inputStage", Value: leaf}}
		}
	}
	if p.sort != nil && !p.sortByIndex && len(p.sort.Keys()) > 0 {
		leaf = sortStageDoc(p, st, leaf)
	}
	if st != nil {
		leaf = withExec(leaf, st.nReturned, isEOF)
	}
	return leaf
}

// ixscanDoc is the IXSCAN stage of index plan p; stats, when non-nil,
// add its keysExamined.
func ixscanDoc(p *plan, st *execStats) bson.D {
	dir := "forward"
	if p.reverse {
		dir = "backward"
	}
	keyPattern := p.ix.Key
	if p.keyPattern != nil {
		keyPattern = p.keyPattern
	}
	ixscan := bson.D{{Key: "stage", Value: "IXSCAN"}, {Key: "keyPattern", Value: keyPattern},
		{Key: "indexName", Value: p.ix.Name}, {Key: "isMultiKey", Value: p.ix.Multikey},
		{Key: "isUnique", Value: p.ix.Unique}, {Key: "isSparse", Value: p.ix.Sparse},
		{Key: "isPartial", Value: p.ix.Partial != nil}, {Key: "direction", Value: dir},
		{Key: "indexBounds", Value: p.boundsDesc}}
	if c := p.ix.Collator(); c != nil {
		// As MongoDB's explain: the index's collation after its name.
		ixscan = append(ixscan[:3], append(bson.D{{Key: "collation", Value: c.Doc()}}, ixscan[3:]...)...)
	}
	if st != nil {
		ixscan = append(ixscan, bson.E{Key: "keysExamined", Value: int32OrLong(st.keysExamined)})
	}
	return ixscan
}

// sortStageDoc is the SORT stage over in; with execution figures it
// adds mongod's: memLimit, type, totalDataSizeSorted, usedDisk, spills.
func sortStageDoc(p *plan, st *execStats, in bson.D) bson.D {
	d := bson.D{{Key: "stage", Value: "SORT"}, {Key: "sortPattern", Value: p.sortDoc}}
	if st != nil {
		d = append(d, bson.E{Key: "memLimit", Value: int32OrLong(st.sort.memLimit)}, bson.E{Key: "type", Value: "simple"},
			bson.E{Key: "totalDataSizeSorted", Value: int32OrLong(st.sort.bytes)}, bson.E{Key: "usedDisk", Value: st.sort.spills > 0},
			bson.E{Key: "spills", Value: int32OrLong(st.sort.spills)})
	}
	return append(d, bson.E{Key: "inputStage", Value: in})
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

// execFields are the stage fields that only executionStats shows.
var execFields = map[string]bool{"nReturned": true, "isEOF": true, "nWouldDelete": true,
	"nMatched": true, "nWouldModify": true, "nWouldUpsert": true, "nCounted": true, "nSkipped": true,
	"docsExamined": true, "keysExamined": true, "bucketsUnpacked": true, "measurementsExamined": true,
	"nBucketsUnpacked": true, "nMeasurementsDeleted": true,
	"memLimit": true, "type": true, "totalDataSizeSorted": true, "usedDisk": true, "spills": true}

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
