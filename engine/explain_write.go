package engine

import (
	"context"
	"slices"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// writeExplain is an explained update statement or findAndModify: the
// plan that finds its documents and, once run, what it would do.
type writeExplain struct {
	p      *plan
	q      *queryExec
	stage  string        // UPDATE or DELETE
	u      *query.Update // nil for a delete
	upsert bool
	limit  int64       // 1 when the write changes one document at most
	filter bson.D      // the statement's query
	sort   bson.D      // findAndModify's sort
	opts   FindOptions // what finds the documents

	matched, modified, upserted int64
}

// explainWrite plans the update statement of an explained update
// command (which must hold exactly one) or findAndModify, as the
// command would find its documents: findAndModify one, by its sort, an
// update with multi false one.
func (db *DB) explainWrite(dbName, name string, inner bson.D) (*writeExplain, error) {
	if c := db.lookup(dbName, name); c != nil && c.m().Kind == catalog.KindView {
		return nil, errView(c.m()) // a view takes no writes, explained or not
	}
	var s UpdateSpec
	var sortD bson.D
	ex := &writeExplain{stage: "UPDATE"}
	limit := int64(0)
	if inner[0].Key == "update" {
		stmts, err := statements(inner, "updates")
		if err != nil {
			return nil, err
		}
		if len(stmts) != 1 {
			return nil, document.Errorf(document.CodeInvalidOptions, "explained write batches must be of size 1")
		}
		if s, err = parseUpdateStmt(stmts[0]); err != nil {
			return nil, err
		}
		if !s.Multi {
			limit = 1
		}
	} else {
		limit = 1
		f, err := parseFindAndModify(inner, &s)
		if err != nil {
			return nil, err
		}
		sortD = f.sort
		if f.remove {
			ex.stage = "DELETE"
		}
	}
	if ex.stage == "UPDATE" {
		if s.Constants != nil && s.Pipeline != nil {
			s.vars = append(slices.Clone(s.Constants), s.vars...)
		}
		u, err := parseUpdateSpec(s)
		if err != nil {
			return nil, err
		}
		ex.u, ex.upsert = u, s.Upsert
		if c := db.lookup(dbName, name); c != nil && c.m().Kind == catalog.KindTimeseries && !db.opts.TimeseriesArbitraryUpdates {
			// mongod checks an explained update as it checks one it runs.
			t, err := decodeTSMeta(c.m())
			if err != nil {
				return nil, err
			}
			if err := tsCheckUpdate(s, t.opts.MetaField); err != nil {
				return nil, err
			}
		}
	}
	ex.opts = FindOptions{Sort: sortD, Limit: limit, Hint: s.Hint, Collation: s.Collation}
	_, p, q, err := db.findPlan(dbName, name, s.Filter, ex.opts)
	if err != nil {
		return nil, err
	}
	if p != nil {
		p.filterRaw, p.sortDoc = s.Filter, sortD
		if ex.u != nil {
			ex.u = ex.u.WithQuery(p.filter)
		}
	}
	ex.p, ex.q, ex.limit, ex.filter, ex.sort = p, q, limit, s.Filter, sortD
	return ex, nil
}

// run reads the documents the write would change, counts them and, for
// an update, those it would modify, and returns the scan's statistics.
func (ex *writeExplain) run(ctx context.Context, db *DB) (*execStats, error) {
	now := db.opts.Clock()
	for !ex.q.done {
		docs, err := ex.q.nextBatch(ctx, 4096)
		if err != nil {
			return nil, err
		}
		for _, d := range docs {
			ex.matched++
			if ex.u == nil {
				continue
			}
			nd, err := ex.u.Apply(document.CloneDoc(d), query.UpdateOptions{Now: now})
			if err == nil && !document.Equal(nd, d) {
				ex.modified++
			}
		}
	}
	if ex.u != nil && ex.upsert && ex.matched == 0 {
		ex.upserted = 1
	}
	ex.q.sc.stats.partial = !ex.q.sc.done // one document found, the scan left
	return &ex.q.sc.stats, nil
}
