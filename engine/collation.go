package engine

import (
	"context"

	"github.com/ttlkv/ttlkv/collation"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/query"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Collations (docs/collation.md). A collection's default collation is
// kept in its options, an index's in its spec's extra fields, both as
// the full specification; the collators are built once per distinct
// specification and shared.

// document.Format(full spec) -> *collation.Collator

// *bson.E -> *collation.Collator

// idCollator is the collation of m's _id index, nil if simple: the
// collection's default collation for collections created since the
// _id index follows it, simple for older ones (docs/collation.md).
func idCollator(m *catalog.Coll) *collation.Collator {
	if len(m.Indexes) == 0 || m.Indexes[0].ID != idIndexID {
		return nil
	}
	return m.Indexes[0].Collator()
}

// appendIDKey appends the _id index keystring of the value id to dst:
// its keystring, of its collation key when the _id index is collated.
func appendIDKey(m *catalog.Coll, dst []byte, id any) []byte {
	if c := idCollator(m); c != nil {
		id = c.KeyValue(id)
	}
	return lsm.AppendKey(dst, id, false)
}

// defaultCollationOption returns the collation option of a collection's listed
// options opts as a one-element document, or nil when it has none.
func defaultCollationOption(opts bson.D) bson.D {
	for _, e := range opts {
		if e.Key == "collation" {
			return bson.D{e}
		}
	}
	return nil
}

// idCollationDoc is the full specification of m's _id collation, nil
// if simple.
func idCollationDoc(m *catalog.Coll) bson.D {
	if c := idCollator(m); c != nil {
		return c.Doc()
	}
	return nil
}

// collationShown is a stored specification as error messages show it:
// {locale: "simple"} for none.
func collationShown(full bson.D) bson.D {
	if full == nil {
		return bson.D{{Key: "locale", Value: "simple"}}
	}
	return full
}

// normalizeCollation validates a collation option and returns the full
// specification to store, or nil for the simple collation.
func normalizeCollation(v any) (bson.D, error) {
	c, err := collation.Parse(v)
	if err != nil {
		return nil, err
	}
	return c.Doc(), nil
}

// normalizeCreateCollation replaces create's collation option by its
// full specification, or drops it when it is simple, as MongoDB's
// listCollections shows it.
func normalizeCreateCollation(opts bson.D) (bson.D, error) {
	i := -1
	for j, e := range opts {
		if e.Key == "collation" {
			i = j
		}
	}
	if i < 0 {
		return opts, nil
	}
	spec, err := normalizeCollation(opts[i].Value)
	if err != nil {
		return nil, err
	}
	out := append(bson.D{}, opts[:i]...)
	if spec != nil {
		out = append(out, bson.E{Key: "collation", Value: spec})
	}
	return append(out, opts[i+1:]...), nil
}

// opCollator resolves an operation's collation: its collation option
// when given (spec non-nil), else the collection's default (m may be nil
// for a collection that does not exist).
func opCollator(m *catalog.Coll, spec bson.D) (*collation.Collator, error) {
	if spec != nil {
		return catalog.ParseCollation(spec)
	}
	if m == nil {
		return nil, nil
	}
	return m.DefaultCollator(), nil
}

// collateQuery applies an operation's collation to its parsed filter and
// sort.
func collateQuery(m *catalog.Coll, spec bson.D, f *query.Filter, s *query.Sort) (*query.Filter, *query.Sort, error) {
	c, err := opCollator(m, spec)
	if err != nil || c == nil {
		return f, s, err
	}
	if f, err = f.Collate(c); err != nil {
		return nil, nil, err
	}
	return f, s.Collate(c), nil
}

// collationOption reads an operation's collation option: a document,
// else 14 TypeMismatch naming the command's field.
func collationOption(cmd string, v any) (bson.D, error) {
	d, ok := v.(bson.D)
	if !ok {
		return nil, document.Errorf(document.CodeTypeMismatch,
			"BSON field '%s.collation' is the wrong type '%s', expected type 'object'", cmd, typeName(v))
	}
	if _, err := catalog.ParseCollation(d); err != nil {
		return nil, err
	}
	return d, nil
}

// sameCollation reports whether an index can serve a query's string
// comparisons: its collation is the query's.
func sameCollation(ix *catalog.Index, f *query.Filter, s *query.Sort) bool {
	c := f.Collator()
	if c == nil {
		c = s.Collator()
	}
	return collation.Equal(ix.Collator(), c)
}

// indexBoundsUsable reports whether index ix may answer filter f on
// its first field: its collation is the query's, or the bounds hold no
// value that a collation changes (docs/collation.md): every interval
// lies within one type class other than strings, documents and arrays,
// whose keys are the same under every collation. ivs are f's bounds on
// the field (ok false: none).
func indexBoundsUsable(ix *catalog.Index, f *query.Filter, s *query.Sort, ivs query.Intervals, ok bool) bool {
	if sameCollation(ix, f, s) {
		return true
	}
	if !ok || len(ivs) == 0 {
		return false
	}
	for _, iv := range ivs {
		lo, hi := boundClass(iv.Lo.Value), boundClass(iv.Hi.Value)
		if lo != hi {
			return false
		}
		switch lo {
		case document.ClassString, document.ClassObject, document.ClassArray, document.ClassMinKey, document.ClassMaxKey, document.ClassUnknown:
			return false
		}
	}
	return true
}

// boundClass is the canonical type class of an interval end.
func boundClass(v any) int {
	switch b := v.(type) {
	case query.TypeBracket:
		return document.CanonicalType(b.Like)
	case bson.MinKey:
		return document.ClassMinKey
	case bson.MaxKey:
		return document.ClassMaxKey
	}
	return document.CanonicalType(v)
}

// collationKey carries a command's collation option through the context
// to the helpers (count, distinct, findOneAndDelete) whose signatures
// predate collations.
type collationKey struct{}

// withCollation returns ctx carrying the collation option spec.
func withCollation(ctx context.Context, spec bson.D) context.Context {
	if spec == nil {
		return ctx
	}
	return context.WithValue(ctx, collationKey{}, spec)
}

type letKey struct{}

// withLet is ctx carrying a command's let, for the paths that take no
// options (findAndModify's remove).
func withLet(ctx context.Context, let bson.D) context.Context {
	if let == nil {
		return ctx
	}
	return context.WithValue(ctx, letKey{}, let)
}

// ctxLet returns the let ctx carries, nil if none.
func ctxLet(ctx context.Context) bson.D {
	if ctx == nil {
		return nil
	}
	let, _ := ctx.Value(letKey{}).(bson.D)
	return let
}

// ctxCollation returns the collation option ctx carries, nil if none.
func ctxCollation(ctx context.Context) bson.D {
	if ctx == nil {
		return nil
	}
	spec, _ := ctx.Value(collationKey{}).(bson.D)
	return spec
}

// sameIndexCollation reports whether two indexes have one collation;
// indexes on one key pattern with different collations are distinct
// indexes, as in MongoDB.
func sameIndexCollation(a, b *catalog.Index) bool { return collation.Equal(a.Collator(), b.Collator()) }
