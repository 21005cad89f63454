package agg

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/collation"
	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// FuzzPipeline parses the input as an Extended JSON pipeline and runs
// it over a few varied documents: no input may panic, and every failure
// must be a typed *document.Error.
func FuzzPipeline(f *testing.F) {
	for _, s := range []string{
		`[{"$group": {"_id": "$team", "n": {"$sum": 1}, "a": {"$avg": "$age"}, "s": {"$addToSet": "$tags"}}}]`,
		`[{"$unwind": {"path": "$tags", "includeArrayIndex": "i", "preserveNullAndEmptyArrays": true}}, {"$sortByCount": "$tags"}]`,
		`[{"$project": {"x": {"$dateTrunc": {"date": "$at", "unit": "week", "binSize": 3, "startOfWeek": "fri", "timezone": "+05:30"}}}}]`,
		`[{"$addFields": {"a.b.c": {"$cond": [{"$gt": ["$age", 1]}, {"$divide": ["$age", 3]}, "$$REMOVE"]}}}, {"$unset": "a.b"}]`,
		`[{"$replaceWith": {"$mergeObjects": ["$$ROOT"]}}]`,
		`[{"$project": {"s": {"$dateToString": {"date": "$at", "format": "%G-%V %z %Z %L"}}, "t": {"$toDate": "$name"}, "m": {"$mod": ["$age", -1]}}}]`,
		`[{"$sort": {"age": -1, "name": 1}}, {"$skip": 1}, {"$limit": 2}, {"$count": "n"}]`,
		`[{"$project": {"m": {"$map": {"input": "$tags", "as": "t", "in": {"$concat": ["$$t", "!"]}}}, "f": {"$filter": {"input": "$tags", "cond": {"$ne": ["$$this", "x"]}, "limit": 2}}, "r": {"$reduce": {"input": "$tags", "initialValue": 0, "in": {"$add": ["$$value", 1]}}}}}]`,
		`[{"$project": {"l": {"$let": {"vars": {"a": "$age"}, "in": {"$switch": {"branches": [{"case": {"$gt": ["$$a", 3]}, "then": {"$slice": ["$tags", -1, 1]}}], "default": {"$split": ["$name", "a"]}}}}}}}]`,
		`[{"$project": {"a": {"$dateAdd": {"startDate": "$at", "unit": "month", "amount": "$age", "timezone": "Europe/Paris"}}, "d": {"$dateDiff": {"startDate": "$at", "endDate": "$$NOW", "unit": "week", "startOfWeek": "mon"}}}}]`,
		`[{"$project": {"c": {"$convert": {"input": "$name", "to": "$team", "onError": {"$toBool": "$age"}, "onNull": {"$toDecimal": 1.5}}}, "t": {"$trim": {"input": "$name", "chars": "a"}}, "o": {"$toObjectId": "$name"}}}]`,
		`[{"$project": {"r": {"$round": ["$age", -1]}, "t": {"$trunc": [{"$divide": ["$age", 3]}, 2]}, "d": {"$round": [{"$toDecimal": "$age"}, 1]}}}]`,
		`[{"$project": {"w": {"$week": "$at"}, "i": {"$isoWeek": {"date": "$at", "timezone": "Europe/Paris"}}, "p": {"$dateToParts": {"date": "$at", "iso8601": true}}, "f": {"$dateFromParts": {"isoWeekYear": "$age", "isoWeek": 53, "millisecond": "$age", "timezone": "+05:30"}}, "s": {"$tsSecond": "$at"}}}]`,
		`[{"$project": {"a": {"$dateFromString": {"dateString": "$name", "format": "%G-%V-%u %H:%M:%S.%L%z", "onError": "$age", "timezone": "America/New_York"}}, "b": {"$dateFromString": {"dateString": "July 4th, 2017 12:39:30.5 GMT+0545", "onNull": 1}}, "c": {"$dateFromString": {"dateString": "7/4/17", "format": "%m/%d/%Y%Z"}}}}]`,
		`[{"$unionWith": {"coll": "y", "pipeline": [{"$match": {"age": {"$gt": 1}}}]}}, {"$count": "n"}]`,
		`[{"$facet": {"t": [{"$count": "n"}], "p": [{"$skip": 1}, {"$project": {"name": 1}}], "g": [{"$sortByCount": "$team"}]}}]`,
		`[{"$project": {"f": {"$regexFindAll": {"input": "$name", "regex": "(a*)|(b)", "options": "i"}}, "m": {"$regexMatch": {"input": "$team", "regex": "$name"}}, "r": {"$replaceAll": {"input": "$name", "find": "", "replacement": "$team"}}}}]`,
		`[{"$project": {"b": {"$substrBytes": ["$name", "$age", -1]}, "c": {"$substrCP": ["$name", 1, "$age"]}, "i": {"$indexOfCP": ["$name", "a", "$age"]}, "k": {"$strcasecmp": ["$name", "$team"]}, "o": {"$replaceOne": {"input": "$team", "find": "a", "replacement": "$name"}}}}]`,
		`[{"$lookup": {"from": "x", "localField": "team", "foreignField": "team", "as": "t"}}, {"$project": {"n": {"$size": "$t"}, "s": {"$sum": "$t.age"}, "c": {"$concatArrays": ["$tags", {"$reverseArray": "$tags"}]}}}]`,
		`[{"$project": {"u": {"$setUnion": ["$tags", ["x", 1.0]]}, "d": {"$setDifference": ["$tags", []]}, "e": {"$setEquals": ["$tags", "$tags"]}, "a": {"$anyElementTrue": ["$tags"]}}}]`,
		`[{"$project": {"o": {"$arrayToObject": {"$zip": {"inputs": ["$tags", {"$range": [0, 3]}], "useLongestLength": true, "defaults": ["k", 0]}}}, "s": {"$sortArray": {"input": "$tags", "sortBy": -1}}, "g": {"$getField": {"field": "name", "input": {"$setField": {"field": "a.b", "input": "$$ROOT", "value": "$age"}}}}, "i": {"$isNumber": "$age"}}}]`,
		`[{"$group": {"_id": {"t": "$team"}, "f": {"$firstN": {"input": "$name", "n": {"$cond": [{"$eq": ["$t", "a"]}, 1, 2]}}}, "m": {"$maxN": {"input": "$age", "n": 2}}, "t": {"$topN": {"n": 2, "sortBy": {"age": -1, "tags": 1}, "output": "$name"}}, "b": {"$bottom": {"sortBy": {"at": 1}, "output": "$$ROOT"}}, "o": {"$mergeObjects": {"n": "$name"}}}}, {"$project": {"l": {"$lastN": {"n": 1, "input": "$f"}}, "x": {"$minN": {"n": 3, "input": "$m"}}}}]`,
		`[{"$fill": {"sortBy": {"at": 1}, "partitionByFields": ["team"], "output": {"age": {"method": "linear"}, "name": {"method": "locf"}, "tags": {"value": []}}}}]`,
		`[{"$redact": {"$cond": [{"$in": ["x", {"$ifNull": ["$tags", []]}]}, "$$DESCEND", {"$cond": [{"$eq": ["$$ROOT.age", "$age"]}, "$$KEEP", "$$PRUNE"]}]}}]`,
		`[{"$bucket": {"groupBy": "$age", "boundaries": [0, 10, {"$add": [20, 5]}], "default": "other", "output": {"n": {"$sum": 1}, "names": {"$push": "$name"}}}}]`,
		`[{"$bucketAuto": {"groupBy": {"$toDouble": "$age"}, "buckets": 3, "granularity": "E12", "output": {"f": {"$first": "$name"}}}}]`,
		`[{"$graphLookup": {"from": "x", "startWith": "$tags", "connectFromField": "tags", "connectToField": "name", "as": "g", "maxDepth": 3, "depthField": "d", "restrictSearchWithMatch": {"age": {"$gt": 1}}}}]`,
		`[{"$densify": {"field": "age", "partitionByFields": ["team", "x.y"], "range": {"step": 0.5, "bounds": "full"}}}]`,
		`[{"$densify": {"field": "at", "range": {"step": 1, "unit": "month", "bounds": [{"$date": "2020-01-31T00:00:00Z"}, {"$date": "2021-01-01T00:00:00Z"}]}}}]`,
		`[{"$merge": {"into": {"db": "d", "coll": "c"}, "on": ["team", "name"], "let": {"a": "$age"}, "whenMatched": [{"$set": {"n": {"$add": ["$n", "$$a", "$$new.age"]}}}], "whenNotMatched": "discard"}}]`,
		`[{"$setWindowFields": {"partitionBy": "$team", "sortBy": {"age": 1}, "output": {"s": {"$sum": "$age", "window": {"documents": ["unbounded", "current"]}}, "a.b": {"$avg": "$age", "window": {"range": [-5, 5]}}, "r": {"$rank": {}}, "p": {"$shift": {"output": "$name", "by": -1, "default": "?"}}}}}]`,
		`[{"$setWindowFields": {"sortBy": {"at": 1}, "output": {"d": {"$derivative": {"input": "$age", "unit": "hour"}, "window": {"range": [-1, "current"], "unit": "day"}}, "i": {"$integral": {"input": "$age", "unit": "second"}}, "e": {"$expMovingAvg": {"input": "$age", "N": 2}}, "l": {"$linearFill": "$age"}, "f": {"$locf": "$tags"}}}}]`,
		`[{"$group": {"_id": "$team", "p": {"$percentile": {"input": "$age", "p": [0, 0.5, {"$divide": [99, 100]}], "method": "continuous"}}, "m": {"$median": {"input": {"$toDouble": "$age"}, "method": "approximate"}}}}, {"$project": {"q": {"$percentile": {"input": "$p", "p": [0.9], "method": "discrete"}}, "r": {"$median": {"input": ["$m", 1, "$_id"], "method": "continuous"}}}}]`,
		`[{"$setWindowFields": {"partitionBy": "$team", "sortBy": {"age": 1}, "output": {"f": {"$firstN": {"input": "$name", "n": 2}, "window": {"documents": [-1, 1]}}, "x": {"$maxN": {"input": "$age", "n": {"$add": [1, 1]}}, "window": {"range": [-3, 0]}}, "t": {"$topN": {"n": 2, "sortBy": {"tags": -1}, "output": "$$ROOT"}, "window": {"documents": ["unbounded", "current"]}}, "b": {"$bottom": {"sortBy": {"at": 1}, "output": "$name"}, "window": {"documents": ["current", 2]}}}}}]`,
		`[{"$setWindowFields": {"sortBy": {"age": 1}, "output": {"c": {"$concatArrays": "$tags", "window": {"documents": [-1, 0]}}, "u": {"$setUnion": {"$ifNull": ["$tags", []]}, "window": {"range": ["unbounded", 2]}}}}}]`,
		`[{"$setWindowFields": {"partitionBy": "$team", "sortBy": {"age": 1}, "output": {"s": {"$minMaxScaler": {"input": "$age", "min": -1, "max": {"$add": [1, 1]}}, "window": {"documents": [-1, 2]}}, "g": {"$minMaxScaler": {"input": {"$toDouble": "$age"}}, "window": {"range": ["unbounded", 0]}}}}}]`,
		`[{"$setWindowFields": {"sortBy": {"age": 1}, "output": {"p": {"$percentile": {"input": "$age", "p": [1, 0.25], "method": "discrete"}, "window": {"documents": [-2, "current"]}}, "m": {"$median": {"input": "$age", "method": "continuous"}, "window": {"range": [-10, 10]}}}}}]`,
		`[{"$project": {"r": {"$rand": {}}, "c": {"$cmp": ["$name", "$team"]}, "i": {"$in": ["$team", ["A", "b"]]}}}, {"$match": {"$sampleRate": 0.5}}, {"$bucket": {"groupBy": "$name", "boundaries": ["a", "m", "z"], "default": "?"}}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(runOne)
}

// fuzzCollator is the collation FuzzPipeline runs each pipeline under
// besides the simple one.
var fuzzCollator = collation.MustParse(bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: int32(2)}, {Key: "numericOrdering", Value: true}})

func runOne(t *testing.T, data []byte) {
	{
		if len(data) > 8<<10 {
			return
		}
		v, err := document.ParseExtJSONValue(data)
		if err != nil {
			return
		}
		arr, ok := v.(bson.A)
		if !ok {
			return
		}
		p, err := Parse(arr)
		if err != nil {
			var de *document.Error
			if !errors.As(err, &de) {
				t.Fatalf("Parse(%s): untyped error %T %v", data, err, err)
			}
			return
		}
		// Explain's serialized stages: one per stage or more, each with
		// the stage it reports for.
		if st, from := p.ExplainStages("db", nil); len(st) != len(from) {
			t.Fatalf("ExplainStages(%s): %d stages, %d sources", data, len(st), len(from))
		}
		var in []bson.D
		for _, d := range val(t, people).(bson.A) {
			in = append(in, d.(bson.D))
		}
		// Read at most 10,000 results: $unwind stages multiply documents
		// without bound, as in MongoDB, and are pulled only as read. Each
		// pipeline runs simple and under a collation.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		for _, coll := range []*collation.Collator{nil, fuzzCollator} {
			c := p.Open(sliceSource(in), Options{MaxMemoryBytes: 1 << 20, Collator: coll})
			for range 10000 {
				d, err := c.Next(ctx)
				var de *document.Error
				if err != nil && !errors.As(err, &de) && !errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("Run(%s) under %v: untyped error %T %v", data, coll, err, err)
				}
				if err != nil || d == nil {
					break
				}
			}
		}
	}
}
