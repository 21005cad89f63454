package engine

import (
	"fmt"
	"strings"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// partialFilterSupported refuses a partialFilterExpression that mongod
// refuses, so that an index ttlkv builds can be built on MongoDB too:
// mongod takes equalities, $lt, $lte, $gt, $gte, $exists: true, $type,
// $in, $all (equalities), $geoWithin and $geoIntersects, under $and and
// $or four nodes deep at most (docs/commands.md, "Partial indexes"); anything that
// negates ($ne, $nin, $not, $exists: false, $nor) or matches otherwise
// ($regex, $mod, $size, $elemMatch, the bitwise operators,
// $alwaysTrue, $sampleRate) is 67 "Expression not supported in partial
// index", with the offending expression as mongod prints it; $expr and
// $jsonSchema are 224, $where 2. spec is the index specification, for
// the message.
func partialFilterSupported(f bson.D, spec bson.D) error {
	if filterDepth(f) > maxPartialFilterDepth {
		return document.Errorf(document.CodeCannotCreateIndex, "partialFilterExpression depth may not exceed %d", maxPartialFilterDepth)
	}
	bad, err := partialDoc(f)
	if err != nil {
		return err
	}
	if bad == "" {
		return nil
	}
	return document.Errorf(document.CodeCannotCreateIndex,
		"Error in specification %s :: caused by :: Expression not supported in partial index: %s", fmtValue(spec), bad)
}

// maxPartialFilterDepth is mongod's internalPartialFilterExpressionMaxDepth
// default: a partial filter's tree may be four nodes deep.
const maxPartialFilterDepth = 4

// filterDepth is the depth of the tree mongod parses filter document d
// into: a document of one condition is that condition, of several an
// $and of them; $and and $or are a node over their documents, $all an
// $and of equalities, any other condition a leaf.
func filterDepth(d bson.D) int {
	var kids []int
	for _, e := range d {
		switch {
		case e.Key == "$and" || e.Key == "$or" || e.Key == "$nor":
			arr, _ := e.Value.(bson.A)
			deepest := 0
			for _, sub := range arr {
				sd, _ := sub.(bson.D)
				deepest = max(deepest, filterDepth(sd))
			}
			kids = append(kids, 1+deepest)
		case e.Key == "$comment":
		case strings.HasPrefix(e.Key, "$"):
			kids = append(kids, 1)
		default:
			ops, ok := e.Value.(bson.D)
			if !ok || len(ops) == 0 || !strings.HasPrefix(ops[0].Key, "$") {
				kids = append(kids, 1)
				continue
			}
			for _, op := range ops {
				if arr, ok := op.Value.(bson.A); ok && op.Key == "$all" && len(arr) > 0 {
					kids = append(kids, 2)
				} else {
					kids = append(kids, 1)
				}
			}
		}
	}
	if len(kids) == 1 {
		return kids[0]
	}
	deepest := 0
	for _, k := range kids {
		deepest = max(deepest, k)
	}
	return 1 + deepest
}

// partialDoc returns the first expression of filter document d that a
// partial index may not hold, as mongod's debug string ("" if none), or
// the error of an operator not allowed there at all.
func partialDoc(d bson.D) (string, error) {
	for _, e := range d {
		switch e.Key {
		case "$and", "$or":
			arr, _ := e.Value.(bson.A) // the filter parser checked the shape
			for _, sub := range arr {
				sd, _ := sub.(bson.D)
				if bad, err := partialDoc(sd); bad != "" || err != nil {
					return bad, err
				}
			}
		case "$comment":
		case "$expr", "$jsonSchema":
			return "", document.Errorf(document.Code(224), "%s is not allowed in this context", e.Key)
		case "$where":
			return "", document.Errorf(document.CodeBadValue, "$where is not allowed in this context")
		case "$nor":
			arr, _ := e.Value.(bson.A)
			var b strings.Builder
			b.WriteString("$nor\n")
			for _, sub := range arr {
				sd, _ := sub.(bson.D)
				for _, se := range sd {
					b.WriteString("    " + leafDebug(se.Key, se.Value))
				}
			}
			return b.String(), nil
		default:
			if strings.HasPrefix(e.Key, "$") {
				return e.Key + "\n", nil
			}
			if bad := partialPath(e.Key, e.Value); bad != "" {
				return bad, nil
			}
		}
	}
	return "", nil
}

// partialPath is partialDoc for one field's condition.
func partialPath(path string, v any) string {
	if _, ok := v.(bson.Regex); ok {
		return leafDebug(path, v)
	}
	ops, ok := v.(bson.D)
	if !ok || len(ops) == 0 || !strings.HasPrefix(ops[0].Key, "$") {
		return "" // an equality
	}
	for _, op := range ops {
		switch op.Key {
		case "$eq", "$lt", "$lte", "$gt", "$gte", "$type", "$in", "$geoWithin", "$geoIntersects":
		case "$all":
			arr, _ := op.Value.(bson.A)
			for _, x := range arr {
				if xd, ok := x.(bson.D); ok && len(xd) > 0 && xd[0].Key == "$elemMatch" {
					return path + " $elemMatch\n"
				}
				if _, ok := x.(bson.Regex); ok {
					return leafDebug(path, x)
				}
			}
		case "$exists":
			if !truthy(op.Value) {
				return "$not\n    " + path + " exists\n"
			}
		case "$ne":
			return "$not\n    " + path + " $eq " + fmtValue(op.Value) + "\n"
		case "$nin":
			return "$not\n    " + path + " $in " + fmtValue(op.Value) + "\n"
		case "$not":
			return "$not\n    " + path + " " + fmtValue(op.Value) + "\n"
		case "$regex", "$options":
			return leafDebug(path, bson.D{op})
		case "$mod":
			if arr, ok := op.Value.(bson.A); ok && len(arr) == 2 {
				return fmt.Sprintf("%s mod %s %% x == %s\n", path, fmtValue(arr[0]), fmtValue(arr[1]))
			}
			return path + " mod\n"
		case "$size":
			return path + " $size : " + fmtValue(op.Value) + "\n"
		case "$elemMatch":
			if sub, ok := op.Value.(bson.D); ok && len(sub) > 0 && strings.HasPrefix(sub[0].Key, "$") {
				var b strings.Builder
				b.WriteString(path + " $elemMatch (value)\n")
				for _, se := range sub {
					b.WriteString("     " + se.Key + " " + fmtValue(se.Value) + "\n")
				}
				return b.String()
			}
			return path + " $elemMatch (obj)\n"
		case "$bitsAllSet", "$bitsAnySet", "$bitsAllClear", "$bitsAnyClear":
			return path + " " + op.Key + ": " + bitPositions(op.Value) + "\n"
		default:
			return path + " " + op.Key + ": " + fmtValue(op.Value) + "\n"
		}
	}
	return ""
}

// leafDebug prints path's condition v as mongod's debug string prints
// the leaf it parses to: an equality, or a regular expression.
func leafDebug(path string, v any) string {
	switch x := v.(type) {
	case bson.Regex:
		return path + " regex /" + x.Pattern + "/" + x.Options + "\n"
	case bson.D:
		if len(x) > 0 && (x[0].Key == "$regex" || x[0].Key == "$options") {
			pat, opts := "", ""
			for _, e := range x {
				switch r := e.Value.(type) {
				case string:
					if e.Key == "$regex" {
						pat = r
					} else {
						opts = r
					}
				case bson.Regex:
					pat, opts = r.Pattern, r.Options
				}
			}
			return path + " regex /" + pat + "/" + opts + "\n"
		}
		if len(x) > 0 && strings.HasPrefix(x[0].Key, "$") {
			return path + " " + fmtValue(x) + "\n"
		}
	}
	return path + " $eq " + fmtValue(v) + "\n"
}

// bitPositions prints a bitwise operator's operand as mongod's debug
// string does: the positions of its bits, "[0, 2]" for a mask of 5.
func bitPositions(v any) string {
	var pos []string
	switch x := v.(type) {
	case bson.A:
		for _, p := range x {
			pos = append(pos, fmtValue(p))
		}
	case int32, int64, float64:
		var m uint64
		switch n := x.(type) {
		case int32:
			m = uint64(n)
		case int64:
			m = uint64(n)
		case float64:
			m = uint64(n)
		}
		for i := 0; i < 64; i++ {
			if m&(1<<i) != 0 {
				pos = append(pos, fmt.Sprint(i))
			}
		}
	default:
		return fmtValue(v)
	}
	return "[" + strings.Join(pos, ", ") + "]"
}
