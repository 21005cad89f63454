package agg

import (
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// metaExpr is {$meta: "textScore"}: the score a $text query's document
// carries (query.TextScoreField), missing when it has none.
type metaExpr struct{}

func (metaExpr) Eval(e *Env) (any, error) {
	d := e.Root
	if e.current != nil {
		d = e.current
	}
	if v, ok := query.TextScoreOf(d); ok {
		return v, nil
	}
	return missing, nil
}

// parseMeta parses $meta's argument: "textScore" (17307 for one that is
// not a string, 17308 for a name mongod does not know, 2 for one ttlkv
// does not keep).
func parseMeta(arg any) (Expr, error) {
	name, ok := arg.(string)
	if !ok {
		return nil, document.Errorf(document.Code(17307), "$meta only supports string arguments")
	}
	switch name {
	case "textScore":
		return metaExpr{}, nil
	case "randVal", "searchScore", "searchHighlights", "geoNearDistance", "geoNearPoint", "recordId", "indexKey",
		"sortKey", "searchScoreDetails", "searchSequenceToken", "score", "scoreDetails", "vectorSearchScore":
		return nil, document.Errorf(document.CodeBadValue, "$meta %q is not supported by ttlkv", name)
	}
	return nil, document.Errorf(document.Code(17308), "Unsupported argument to $meta: %s", name)
}

// UsesTextScore reports whether a pipeline reads a $text query's score
// ({$meta: "textScore"} anywhere in a stage after the leading ones run
// in the scan), so that the scan gives its documents their scores.
func (p *Pipeline) UsesTextScore() bool { return p.textScore }

// mentionsTextScore reports whether v holds {$meta: "textScore"}.
func mentionsTextScore(v any) bool {
	switch t := v.(type) {
	case bson.D:
		if len(t) == 1 && t[0].Key == "$meta" && t[0].Value == "textScore" {
			return true
		}
		for _, e := range t {
			if mentionsTextScore(e.Value) {
				return true
			}
		}
	case bson.A:
		for _, x := range t {
			if mentionsTextScore(x) {
				return true
			}
		}
	}
	return false
}

// keepTextScore returns out, a stage's document made from in, with in's
// text score when out lost it: a $text query's score stays with its
// document through $project, $addFields, $replaceRoot and the like, as
// mongod's metadata does.
func keepTextScore(in, out bson.D) bson.D {
	score, ok := query.TextScoreOf(in)
	if !ok {
		return out
	}
	if _, has := query.TextScoreOf(out); has {
		return out
	}
	return append(out[:len(out):len(out)], bson.E{Key: query.TextScoreField, Value: score})
}
