package agg

import (
	"context"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// parseDocuments parses $documents: an expression, evaluated once
// against an empty document, whose array's elements are the pipeline's
// documents (mongod runs it as a $project of the array, an $unwind and a
// $replaceWith, and so does this: a null or missing value gives no
// documents, any other value is one, and each must be an object).
func parseDocuments(arg any, sc pdepth) (stageSpec, error) {
	e, err := parseExpr(arg, sc)
	if err != nil {
		return stageSpec{}, err
	}
	return stageSpec{name: "$documents", spec: arg, make: func(_ iter, o *Options) iter {
		return &documentsIter{e: e, o: o}
	}}, nil
}

// documentsIter yields $documents' documents; it has no input.
type documentsIter struct {
	e    Expr
	o    *Options
	done bool
	docs bson.A
}

func (d *documentsIter) next(context.Context) (bson.D, error) {
	if !d.done {
		d.done = true
		v, err := d.e.Eval(d.o.env(bson.D{}))
		if err != nil {
			return nil, err
		}
		switch x := v.(type) {
		case bson.A:
			d.docs = x
		case nil, Missing:
		default:
			d.docs = bson.A{x}
		}
	}
	if len(d.docs) == 0 {
		return nil, nil
	}
	v := d.docs[0]
	d.docs = d.docs[1:]
	doc, ok := v.(bson.D)
	if !ok {
		return nil, document.Errorf(document.Code(40228), "'newRoot' expression must evaluate to an object, but resulting value was: %s. Type of resulting value: '%s'. Input document: {}",
			formatMaybeMissing(v), typeOrMissing(v))
	}
	return doc, nil
}

// Collectionless reports whether the pipeline starts with $documents,
// which has no input and runs as {aggregate: 1}.
func (p *Pipeline) Collectionless() bool {
	return len(p.stages) > 0 && p.stages[0].name == "$documents"
}

// FirstStage is the name of the pipeline's first stage ("" for none),
// for the messages that name it.
func (p *Pipeline) FirstStage() string {
	switch {
	case p.filter != nil:
		return "$match"
	case p.sort != nil:
		return "$sort"
	case len(p.stages) > 0:
		return p.stages[0].name
	case p.out != nil:
		return p.out.Stage
	}
	return ""
}
