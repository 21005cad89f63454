package engine

import (
	"context"
	"time"

	"github.com/ttlkv/ttlkv/doc"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// codeNotImplemented marks features not built yet (MongoDB's 238
// NotImplemented).
const codeNotImplemented = doc.Code(238)

func parseCappedCreate(opts bson.D, has map[string]any, co *createOptions) (*createOptions, error) {
	return nil, doc.Errorf(codeNotImplemented, "capped collections are not implemented yet")
}

// prepareExt creates kind-specific storage for a new collection.
func (db *DB) prepareExt(c *coll, m *collMeta, co *createOptions) error { return nil }

// abortExt removes what prepareExt made when the create failed.
func (db *DB) abortExt(c *coll, m *collMeta) {}

// openExt opens kind-specific state of an existing collection.
func (db *DB) openExt(c *coll) error { return nil }

// dropExt removes kind-specific files of a dropped collection.
func (db *DB) dropExt(c *coll) error { return nil }

// closeExt closes kind-specific state at DB close.
func (c *coll) closeExt() error { return nil }

// insertSpecial inserts into capped and time-series collections.
func (db *DB) insertSpecial(ctx context.Context, c *coll, docs []any, ordered bool) ([]any, []WriteError, error) {
	return nil, nil, doc.Errorf(codeNotImplemented, "inserts into %s collections are not implemented yet", c.m().Kind)
}

func (s *scanner) nextCapped(ctx context.Context, n int) ([]record, error) {
	s.done = true
	return nil, doc.Errorf(codeNotImplemented, "capped collections are not implemented yet")
}

func (db *DB) cappedUpdate(c *coll, rid uint64, oldRaw, newRaw []byte) error {
	return doc.Errorf(codeNotImplemented, "capped collections are not implemented yet")
}

// tailState drives a tailable cursor on a capped collection.
type tailState struct{ maxAwait time.Duration }

func newTailState(c *coll, q *queryExec, o FindOptions) *tailState { return &tailState{} }

func (t *tailState) next(ctx context.Context, n int, await bool) ([]bson.D, error) {
	return nil, doc.Errorf(codeNotImplemented, "tailable cursors are not implemented yet")
}

func (t *tailState) keepOpen() bool { return false }

func cmdConvertToCapped(ctx context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	return nil, doc.Errorf(codeNotImplemented, "convertToCapped is not implemented yet")
}

// specialStats counts capped and time-series collections.
func (db *DB) specialStats(c *coll) collStatsInfo {
	return collStatsInfo{indexSizes: map[string]int64{}}
}

// specialStatsFields adds kind-specific collStats fields (maxSize, max).
func (db *DB) specialStatsFields(c *coll) bson.D { return nil }

// validateSpecial checks capped and time-series collections.
func (db *DB) validateSpecial(ctx context.Context, c *coll, res *ValidateResult, fail func(string, ...any)) {
}
