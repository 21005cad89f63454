package query

import (
	"context"

	"github.com/ttlkv/ttlkv/document"
	script "github.com/ttlkv/ttlkv/engine/internal/js"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// whereNode is a top-level $where: a JavaScript function a document
// matches when it returns a truthy value for it, called with the
// document as this and as the global obj.
type whereNode struct {
	fn  *script.Func
	ctx context.Context // nil: background (Filter.WithContext binds it)
}

func (w whereNode) match(root any) bool {
	d, ok := root.(bson.D)
	if !ok {
		return false
	}
	ctx := w.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	r, err := w.fn.Where(ctx, d)
	if err != nil {
		panic(exprFailure{err})
	}
	return r
}

// parseWhere parses {$where: code} as mongod does: refused where the
// filter takes no JavaScript (2) and below the top level (2); refused
// when scripting is off (6108304); a string or a BSON JavaScript value
// (CodeWithScope is 4649201), not empty, compiled now, so that a syntax
// error fails the query before it reads a document (139).
func parseWhere(v any, top *topCtx) (expr, error) {
	if top == nil {
		return nil, badValue("$where can only be applied to the top-level document")
	}
	if !top.where {
		return nil, badValue("$where is not allowed in this context")
	}
	var code string
	switch t := v.(type) {
	case string:
		code = t
	case bson.JavaScript:
		code = string(t)
	case bson.CodeWithScope:
		return nil, document.Errorf(document.Code(4649201), "$where no longer supports deprecated BSON type CodeWScope")
	default:
		return nil, badValue("$where got bad type")
	}
	if code == "" {
		return nil, badValue("code for $where cannot be empty")
	}
	if top.noScripting {
		return nil, document.Errorf(document.Code(6108304), "no globalScriptEngine in $where parsing")
	}
	fn, err := script.Compile(code)
	if err != nil {
		return nil, err
	}
	top.hasExpr, top.js, top.hasWhere = true, true, true
	return whereNode{fn: fn}, nil
}
