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
	if n := len(d); n > 0 && d[n-1].Key == query.TextScoreField {
		return d[n-1].Value, nil
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

// StripTextScore returns d without the text score a $text query's
// document carries, at any depth (a $$ROOT kept by $push holds one).
func StripTextScore(d bson.D) bson.D {
	out := d
	copied := false
	for i := 0; i < len(out); i++ {
		e := out[i]
		if e.Key == query.TextScoreField {
			if !copied {
				out, copied = append(bson.D(nil), out...), true
			}
			out = append(out[:i], out[i+1:]...)
			i--
			continue
		}
		if nv, changed := stripValue(e.Value); changed {
			if !copied {
				out, copied = append(bson.D(nil), out...), true
			}
			out[i].Value = nv
		}
	}
	return out
}

func stripValue(v any) (any, bool) {
	switch t := v.(type) {
	case bson.D:
		s := StripTextScore(t)
		return s, len(s) != len(t) || !sameBacking(s, t)
	case bson.A:
		var out bson.A
		for i, x := range t {
			if nv, changed := stripValue(x); changed {
				if out == nil {
					out = append(bson.A(nil), t...)
				}
				out[i] = nv
			}
		}
		if out != nil {
			return out, true
		}
	}
	return v, false
}

func sameBacking(a, b bson.D) bool { return len(a) == 0 || len(b) == 0 || &a[0] == &b[0] }
