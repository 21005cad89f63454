package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/ttlkv/ttlkv/collation"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/fts"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/internal/indexkey"
	"github.com/ttlkv/ttlkv/engine/query"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// maxIndexes is MongoDB's limit of indexes per collection.
const maxIndexes = 64

// IndexModel describes an index to create, as the driver's IndexModel
// does: Keys is the key pattern ({createdAt: 1}); Options holds the
// spec's other fields (name, unique, sparse, hidden,
// partialFilterExpression, expireAfterSeconds).
type IndexModel struct {
	Keys    bson.D
	Options bson.D
}

// knownIndexOptions lists the spec fields ttlkv understands. Others
// are 197 InvalidIndexSpecificationOption, as in MongoDB.
var knownIndexOptions = map[string]bool{
	"key": true, "name": true, "unique": true, "sparse": true, "hidden": true,
	"partialFilterExpression": true, "expireAfterSeconds": true, "background": true, "v": true,
	"ns": true, "dropDups": true, "collation": true, "storageEngine": true,
	indexkey.WildcardProjection: true,
	"weights":                   true, "default_language": true, "language_override": true, "textIndexVersion": true,
	"2dsphereIndexVersion": true, "bits": true, "min": true, "max": true,
	"finestIndexedLevel": true, "coarsestIndexedLevel": true, "prepareUnique": true,
}

// defaultIndexName joins fields and directions: {a: 1, b: -1} -> a_1_b_-1.
func defaultIndexName(key bson.D) string {
	parts := make([]string, 0, 2*len(key))
	for _, e := range key {
		parts = append(parts, e.Key, fmt.Sprint(e.Value))
	}
	return strings.Join(parts, "_")
}

// parseExpireAfterSeconds validates the TTL value v of index spec spec
// (docs/ttl-indexes.md §1.2) and returns it truncated toward zero. Its
// errors are 67 CannotCreateIndex worded as mongod 7.0's
// validateIndexSpecTTL words them: ". Index spec: <spec> :: caused by ::
// <reason>" (the reason's wording is mongod's, a type name without its
// closing quote included).
func parseExpireAfterSeconds(v any, spec bson.D) (int64, error) {
	fail := func(reason string) (int64, error) {
		return 0, document.Errorf(document.CodeCannotCreateIndex, ". Index spec: %s :: caused by :: TTL index 'expireAfterSeconds' %s", fmtValue(spec), reason)
	}
	var f float64
	switch n := v.(type) {
	case int32:
		f = float64(n)
	case int64:
		f = float64(n)
	case float64:
		f = n
	case bson.Decimal128:
		f, _ = asFloat(n)
	default:
		return fail("option must be numeric, but received a type of '" + typeName(v))
	}
	if math.IsNaN(f) {
		return fail("option must not be NaN")
	}
	t := math.Trunc(f)
	if t > math.MaxInt32 || t < math.MinInt32 {
		return fail("must be within the range of a 32-bit integer")
	}
	if t < 0 {
		return fail("option cannot be less than 0")
	}
	return int64(t), nil
}

// MongoDB's limits on a key pattern: its BSON size, and the fields of a
// compound index (codeTooManyCompoundKeys past them, from mongod's
// Ordering).
const (
	maxKeyPatternSize       = 2048
	maxCompoundFields       = 32
	codeTooManyCompoundKeys = document.Code(13103)
)

// MongoDB's codes for the rules of hashed indexes.
const (
	codeMaxOneHashedField = document.Code(31303) // two hashed fields in one key
	codeHashedNotUnique   = document.Code(16764) // a unique hashed index
)

// parseIndexSpec validates one index spec for collection meta m. Its
// errors are mongod's: those its validateIndexSpec and its catalog's
// checks of a spec find read "Error in specification <spec> :: caused
// by :: <reason>" with the reason's code (specError); the rest (an _id
// index's spec, the name _id_ or *, a TTL option, the collection kind's
// refusals and ttlkv's own) are as they are.
func parseIndexSpec(m *catalog.Coll, spec bson.D) (*catalog.Index, error) {
	ix, err := parseIndexSpecFields(m, spec)
	if err != nil {
		var k keptSpecError
		if errors.As(err, &k) {
			return nil, k.err
		}
		return nil, specError(spec, err)
	}
	return ix, nil
}

// keptSpecError marks an error parseIndexSpec returns as it is, not
// wrapped in "Error in specification": mongod finds it outside its spec
// validation.
type keptSpecError struct{ err error }

func (k keptSpecError) Error() string { return k.err.Error() }
func (k keptSpecError) Unwrap() error { return k.err }

// keepSpec marks err to be returned as it is (keptSpecError).
func keepSpec(err error) error { return keptSpecError{err} }

// specError is err as mongod reports an index spec its validation
// refuses: "Error in specification <spec> :: caused by :: <reason>",
// with err's code (67 for an error without one). An error already so
// worded is returned as it is.
func specError(spec bson.D, err error) error {
	var e *document.Error
	if !errors.As(err, &e) {
		e = &document.Error{Code: document.CodeCannotCreateIndex, Message: err.Error()}
	}
	if strings.HasPrefix(e.Message, "Error in specification ") {
		return e
	}
	return &document.Error{Code: e.Code, Message: "Error in specification " + fmtValue(spec) + " :: caused by :: " + e.Message, Info: e.Info}
}

// parseIndexSpecFields is parseIndexSpec before its errors are worded.
func parseIndexSpecFields(m *catalog.Coll, spec bson.D) (*catalog.Index, error) {
	ix := &catalog.Index{NullRules7: true}
	var extra bson.D
	hasCollation := false
	for _, e := range spec {
		if !knownIndexOptions[e.Key] {
			return nil, document.Errorf(document.CodeInvalidIndexSpecificationOption, "The field '%s' is not valid for an index specification. Specification: %s", e.Key, fmtValue(spec))
		}
	}
	if err := indexOptionTypes(spec); err != nil {
		return nil, err
	}
	kv, ok := get(spec, "key")
	if !ok {
		return nil, document.Errorf(document.CodeFailedToParse, "The 'key' field is a required property of an index specification")
	}
	key, ok := kv.(bson.D)
	if !ok {
		return nil, document.Errorf(document.CodeTypeMismatch, "The field 'key' must be an object, but got %s", typeName(kv))
	}
	if raw, err := bson.Marshal(key); err == nil && len(raw) > maxKeyPatternSize {
		return nil, document.Errorf(document.CodeCannotCreateIndex, "Index key pattern too large.")
	}
	if len(key) == 0 {
		return nil, document.Errorf(document.CodeCannotCreateIndex, "Index keys cannot be empty.")
	}
	if err := indexKeyPaths(key); err != nil {
		return nil, err
	}
	userKey := key // the key as given names the index
	textKey, textOpts, text, err := parseTextIndex(key, spec)
	if err != nil {
		return nil, err
	}
	if text {
		key = textKey
		extra = append(extra, textOpts...)
	}
	wildcard := false
	hashed := 0
	var geoKinds []string // each field's geo type, "" for others
	for _, f := range key {
		if f.Key == "" || strings.HasPrefix(f.Key, "$") && f.Key != "$**" {
			return nil, document.Errorf(document.CodeCannotCreateIndex, "Index key contains an illegal field name: '%s'", f.Key)
		}
		if f.Key == "$**" || strings.HasSuffix(f.Key, ".$**") {
			wildcard = true
			continue
		}
		switch v := f.Value.(type) {
		case string:
			if v == indexkey.Hashed {
				hashed++
				continue
			}
			if v == indexkey.Geo2DSphere || v == indexkey.Geo2D {
				geoKinds = append(geoKinds, v)
				continue
			}
			if text && f.Key == "_fts" {
				continue
			}
			if v == "" {
				return nil, document.Errorf(document.CodeCannotCreateIndex, "Values in the index key pattern cannot be empty strings")
			}
			if v == "geoHaystack" {
				return nil, document.Errorf(document.CodeCannotCreateIndex, "GeoHaystack indexes cannot be created in version 5.0 and above")
			}
			return nil, document.Errorf(document.CodeCannotCreateIndex, "Unknown index plugin '%s'", v)
		default:
			if err := keyValueNumber(v); err != nil {
				return nil, err
			}
		}
	}
	if len(key) > maxCompoundFields {
		return nil, document.Errorf(codeTooManyCompoundKeys, "too many compound keys")
	}
	ix.Key = key
	if text {
		ix.Text = fts.SpecFromOptions(textOpts)
	}
	if len(geoKinds) > 0 {
		geoOpts, err := parseGeoIndex(key, spec, geoKinds, text || wildcard || hashed > 0)
		if err != nil {
			return nil, err
		}
		extra = append(extra, geoOpts...)
	}
	if nv, ok := get(spec, "name"); ok {
		s, isStr := nv.(string)
		if !isStr {
			return nil, document.Errorf(document.CodeTypeMismatch, "The field 'name' must be a string, but got %s", typeName(nv))
		}
		if s == "" {
			return nil, document.Errorf(document.CodeCannotCreateIndex, "The index name cannot be empty")
		}
		ix.Name = s
	} else {
		ix.Name = defaultIndexName(userKey)
	}
	isID := len(key) == 1 && key[0].Key == "_id"
	if !isID && ix.Name == "_id_" || isID && ix.Name == "_id_" && !idPatternKey(key) {
		return nil, keepSpec(document.Errorf(document.CodeBadValue, "The index name '_id_' is reserved for the _id index, which must have key pattern {_id: 1}, found key: %s", fmtValue(userKey)))
	}
	// {_id: 1} and {_id: -1} are specs of the _id index, as MongoDB's
	// IndexDescriptor::isIdIndexPattern says ({_id: -1} is then refused
	// below); {_id: "hashed"} is an ordinary index.
	idPattern := idPatternKey(key)
	var ttlErr error
	for _, e := range spec {
		switch e.Key {
		case "unique", "sparse", "hidden":
			b, ok := asBool(e.Value)
			if !ok {
				return nil, document.Errorf(document.CodeTypeMismatch, "The field '%s' must be a boolean, but got %s", e.Key, typeName(e.Value))
			}
			switch e.Key {
			case "unique":
				ix.Unique = b
			case "sparse":
				ix.Sparse = b
				if !b {
					// mongod keeps sparse as given: listIndexes shows
					// sparse: false.
					extra = append(extra, bson.E{Key: "sparse", Value: false})
				}
			case "hidden":
				ix.Hidden = b
			}
		case "prepareUnique":
			ix.PrepareUnique, _ = asBool(e.Value)
		case "background":
			// Kept and listed, as mongod does; it changes nothing.
			b, _ := asBool(e.Value)
			extra = append(extra, bson.E{Key: "background", Value: b})
		case "v":
			if f, _ := asFloat(e.Value); f == 1 {
				// A v: 1 index is listed so; ttlkv keys it as any other.
				extra = append(extra, bson.E{Key: "v", Value: int32(1)})
			}
		case "partialFilterExpression":
			pd, ok := e.Value.(bson.D)
			if !ok {
				return nil, document.Errorf(document.CodeTypeMismatch, "The field 'partialFilterExpression' must be an object, but got %s", typeName(e.Value))
			}
			f, err := query.ParseFilter(pd)
			if err != nil {
				return nil, err // the parser's code, as mongod's
			}
			if f.Text() != nil {
				return nil, document.Errorf(document.CodeCannotCreateIndex, "Error in specification %s :: caused by :: Expression not supported in partial index: $text", fmtValue(spec))
			}
			if f.Near() != nil {
				return nil, document.Errorf(document.CodeCannotCreateIndex, "Error in specification %s :: caused by :: %v", fmtValue(spec), errNearNotAllowed)
			}
			if err := partialFilterSupported(pd, spec); err != nil {
				return nil, err
			}
			ix.Partial, ix.PartialFilter = pd, f
		case "expireAfterSeconds":
			// A bad value is reported once the rest of the spec passed,
			// as mongod checks TTL options after its spec validation.
			ix.TTL = true
			ix.Expire, ttlErr = parseExpireAfterSeconds(e.Value, spec)
		case "collation":
			// The full specification; none for the simple collation.
			full, err := normalizeCollation(e.Value)
			if err != nil {
				return nil, err
			}
			if text && full != nil {
				return nil, document.Errorf(document.CodeCannotCreateIndex, "Index type 'text' does not support collation: %s", fmtValue(e.Value))
			}
			if idPattern && !collation.Equal(catalog.CollatorOf(full), idCollator(m)) {
				// The _id index is in the collection's collation (or
				// simple in a collection created before that rule).
				return nil, keepSpec(document.Errorf(document.CodeBadValue,
					"The _id index must have the same collation as the collection. Index collation: %s, collection collation: %s",
					fmtValue(collationShown(full)), fmtValue(collationShown(idCollationDoc(m)))))
			}
			if full != nil {
				extra = append(extra, bson.E{Key: "collation", Value: full})
			}
			hasCollation = true
		case "storageEngine":
			extra = append(extra, e)
		case indexkey.WildcardProjection:
			if !wildcard {
				return nil, document.Errorf(document.CodeBadValue, "The field 'wildcardProjection' is only allowed in 'wildcard' indexes")
			}
			pd, ok := e.Value.(bson.D)
			if !ok {
				return nil, document.Errorf(document.CodeTypeMismatch, "The field 'wildcardProjection' must be a non-empty object, but got %s", typeName(e.Value))
			}
			if !slices.ContainsFunc(key, func(f bson.E) bool { return f.Key == "$**" }) {
				return nil, document.Errorf(document.CodeFailedToParse, "The field 'wildcardProjection' is only allowed when 'key' is {\"$**\": ±1}")
			}
			if len(pd) == 0 {
				return nil, document.Errorf(document.CodeFailedToParse, "The 'wildcardProjection' field can't be an empty object")
			}
			if len(key) > 1 {
				if err := indexkey.CheckCompoundWildcard(key, pd); err != nil {
					return nil, err
				}
			}
			if err := indexkey.CheckWildcardProjection(pd); err != nil {
				return nil, err
			}
			extra = append(extra, e)
		}
	}
	if !hasCollation && !idPattern && !text {
		// An index without a collation takes the collection's default
		// (a text index compares its terms' bytes).
		if def := m.DefaultCollator(); def != nil {
			extra = append(extra, bson.E{Key: "collation", Value: def.Doc()})
		}
	} else if !hasCollation {
		// An _id index takes the collection's _id collation.
		if c := idCollator(m); c != nil {
			extra = append(extra, bson.E{Key: "collation", Value: c.Doc()})
		}
	}
	if ix.PartialFilter != nil {
		// MongoDB evaluates a partial filter under its index's collation.
		for _, e := range extra {
			if c := catalog.CollatorOf(e.Value); e.Key == "collation" && c != nil {
				f, err := ix.PartialFilter.Collate(c)
				if err != nil {
					return nil, document.Errorf(document.CodeCannotCreateIndex, "Error in specification %s :: caused by :: %v", fmtValue(spec), err)
				}
				ix.PartialFilter = f
			}
		}
	}
	if ttlErr != nil && !isID {
		// (On an _id key, expireAfterSeconds is refused as an _id
		// index option below, as mongod refuses it first.)
		return nil, keepSpec(ttlErr)
	}
	if wildcard {
		// docs/commands.md, "Wildcard indexes".
		switch {
		case ix.TTL:
			return nil, document.Errorf(document.CodeCannotCreateIndex, "cannot make a TTL index :: caused by :: Index type 'wildcard' does not support the 'expireAfterSeconds' option")
		case ix.Unique:
			return nil, document.Errorf(document.CodeCannotCreateIndex, "Index type 'wildcard' does not support the unique option")
		case ix.Sparse:
			return nil, document.Errorf(document.CodeCannotCreateIndex, "Index type 'wildcard' does not support the sparse option")
		case hashed > 0 || text || len(geoKinds) > 0:
			return nil, document.Errorf(document.CodeCannotCreateIndex, "Can't use more than one index plugin for a single index.")
		}
		// docs/commands.md, "Compound wildcard indexes".
		var proj bson.D
		if p, ok := get(spec, indexkey.WildcardProjection); ok {
			proj, _ = p.(bson.D)
		}
		if err := indexkey.CheckCompoundWildcard(key, proj); err != nil {
			return nil, err
		}
		if v := key[indexkey.WildcardPos(key)].Value; !document.IsNumber(v) {
			// {"$**": "hashed"} is a hashed key on a '$' field to mongod.
			return nil, document.Errorf(document.CodeCannotCreateIndex, "Index key contains an illegal field name: field name starts with '$'.")
		} else if err := keyValueNumber(v); err != nil {
			return nil, err
		}
	}
	if hashed > 0 {
		// docs/commands.md, "Hashed indexes".
		if hashed > 1 {
			return nil, document.Errorf(codeMaxOneHashedField, "A maximum of one index field is allowed to be hashed but found %d for 'key' %s", hashed, fmtValue(key))
		}
		if ix.Unique && !idPattern {
			return nil, keepSpec(document.Errorf(codeHashedNotUnique, "Currently hashed indexes cannot guarantee uniqueness. Use a regular index."))
		}
		if ix.TTL {
			return nil, keepSpec(document.Errorf(document.CodeCannotCreateIndex, "TTL indexes cannot be hashed: the TTL monitor reads an index in date order. Index spec: %s", fmtValue(spec)))
		}
	}
	if ix.Unique && ix.PrepareUnique && !idPattern {
		return nil, document.Errorf(document.CodeCannotCreateIndex, "Invalid index specification %s; cannot create an index with the 'unique' option and the 'prepareUnique' option", fmtValue(spec))
	}
	if ix.PrepareUnique {
		// ttlkv enforces it where its writes check unique indexes.
		switch {
		case m.Kind != catalog.KindNormal || isBucketsColl(m) || m.Clustered:
			return nil, keepSpec(document.Errorf(document.CodeCannotCreateIndex, "prepareUnique is not supported by ttlkv on a %s collection", collKindName(m)))
		case hashed > 0 || text || wildcard || len(geoKinds) > 0:
			return nil, keepSpec(document.Errorf(document.CodeCannotCreateIndex, "prepareUnique is not supported by ttlkv on a hashed, text, wildcard or geospatial index"))
		}
	}
	if ix.Sparse && ix.PartialFilter != nil {
		return nil, document.Errorf(document.CodeCannotCreateIndex, "cannot mix \"partialFilterExpression\" and \"sparse\" options")
	}
	if len(geoKinds) > 0 {
		// docs/geo.md, "Indexes".
		switch {
		case m.Kind != catalog.KindNormal || isBucketsColl(m):
			return nil, keepSpec(document.Errorf(document.CodeCannotCreateIndex, "geospatial indexes are not supported by ttlkv on a %s collection. Index spec: %s", m.Kind, fmtValue(spec)))
		case ix.TTL:
			return nil, keepSpec(document.Errorf(document.CodeCannotCreateIndex, "a geospatial index cannot be a TTL index in ttlkv: the TTL monitor reads an index in date order. Index spec: %s", fmtValue(spec)))
		case ix.Unique:
			return nil, keepSpec(document.Errorf(document.CodeCannotCreateIndex, "a geospatial index cannot be unique in ttlkv: its keys are cells, which many geometries share. Index spec: %s", fmtValue(spec)))
		}
	}
	if idPattern || (isID && ix.TTL) {
		// mongod's validateIdIndexSpec: the _id index takes its key,
		// name, version, namespace and collation, nothing else (not
		// hidden, even false).
		for _, e := range spec {
			switch e.Key {
			case "key", "name", "v", "ns", "collation":
			default:
				return nil, keepSpec(document.Errorf(document.CodeInvalidIndexSpecificationOption, "The field '%s' is not valid for an _id index specification. Specification: %s", e.Key, fmtValue(spec)))
			}
		}
	}
	if isID && ix.Hidden {
		return nil, keepSpec(document.Errorf(document.CodeCannotCreateIndex, "can't hide _id index"))
	}
	if idPattern {
		if f, _ := asFloat(key[0].Value); f != 1 {
			return nil, keepSpec(document.Errorf(document.CodeBadValue, "The field 'key' for an _id index must be {_id: 1}, but got %s", fmtValue(key)))
		}
		ix.Unique = true // the _id index is unique whatever the spec says
		// mongod names the _id index _id_ whatever the spec says
		// (_fixIndexSpec): asking for it under another name finds it.
		ix.Name = "_id_"
	}
	if ix.TTL {
		if len(key) > 1 {
			return nil, keepSpec(document.Errorf(document.CodeCannotCreateIndex, "TTL indexes are single-field indexes, compound indexes do not support TTL. Index spec: %s", fmtValue(spec)))
		}
	}
	if err := kindOf(m).checkIndex(ix); err != nil {
		return nil, keepSpec(err)
	}
	ix.Extra = extra
	ix.TypeBits = typedIndex(m, ix)
	return ix, nil
}

// CreateIndexesResult is createIndexes' reply.
type CreateIndexesResult struct {
	NumIndexesBefore, NumIndexesAfter int
	CreatedCollectionAutomatically    bool
	Note                              string // "all indexes already exist" when nothing was built, "index already exists" when some were there
	Names                             []string
}

// createIndexes validates every spec first (one bad spec creates
// none), then builds the new indexes over the existing documents.
func (db *DB) createIndexes(ctx context.Context, dbName, name string, specs []bson.D) (*CreateIndexesResult, error) {
	if err := db.checkWritable(); err != nil {
		return nil, err
	}
	if len(specs) == 0 {
		return nil, document.Errorf(document.CodeBadValue, "Must specify at least one index to create")
	}
	if db.bucketsTarget(dbName, name) == nil {
		// system.buckets.<name> of a time-series collection takes
		// indexes of its own, as in mongod 7.0.
		if err := validateCollName(dbName, name, false); err != nil {
			return nil, err
		}
	}
	res := &CreateIndexesResult{}
	c := db.lookup(dbName, name)
	if c != nil {
		if px, ok := kindOf(c.m()).(indexProxy); ok {
			return px.createIndexes(ctx, db, c, specs)
		}
	}
	// Validate against the current (or a would-be new) collection.
	probe := &catalog.Coll{DB: dbName, Name: name, Kind: catalog.KindNormal, Indexes: []*catalog.Index{idIndex()}}
	if c != nil {
		probe = c.m()
	}
	parsed := make([]*catalog.Index, 0, len(specs))
	for _, s := range specs {
		ix, err := parseIndexSpec(probe, s)
		if err != nil {
			return nil, err
		}
		parsed = append(parsed, ix)
	}
	if c == nil {
		var created bool
		var err error
		c, created, err = db.ensureColl(dbName, name)
		if err != nil {
			return nil, err
		}
		res.CreatedCollectionAutomatically = created
	}
	db.catMu.Lock()
	defer db.catMu.Unlock()
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.dropped.Load() {
		return nil, errDropped
	}
	m := c.m()
	res.NumIndexesBefore = len(m.Indexes)
	pos, err := newIndexes(m, parsed, specs)
	if err != nil {
		return nil, err
	}
	todo := make([]*catalog.Index, len(pos))
	for j, i := range pos {
		todo[j] = parsed[i]
	}
	if len(todo) == 0 {
		res.NumIndexesAfter = res.NumIndexesBefore
		res.Note = "all indexes already exist"
		return res, nil
	}
	if o, ok := db.bucketsOptions(m); ok && isBucketsColl(m) && tsMutableIndexes(&catalog.Coll{Indexes: todo}, o) {
		// Its keys may move as a bucket grows: no bucket may keep
		// deltas from now on (tsMutableIndexes).
		if err := db.tsFoldAllDeltas(ctx, c); err != nil {
			return nil, err
		}
		m = c.m()
	}
	nm := m.Clone()
	for i := range nm.Indexes {
		nm.Indexes[i].PartialFilter = m.Indexes[i].PartialFilter
	}
	for _, ix := range todo {
		ix.ID = nm.NextIndexID
		nm.NextIndexID++
	}
	// On an empty collection MongoDB creates the indexes one by one (a
	// createIndexes oplog entry, so an event, each); otherwise one
	// build commits them all (commitIndexBuild: one event listing them).
	empty, err := db.collEmpty(ctx, c, m)
	if err != nil {
		return nil, err
	}
	// Reserve the ids and mark the builds so a crash mid-build cleans up.
	if err := db.reserveIndexes(c, nm, todo); err != nil {
		return nil, err
	}
	if err := kindOf(nm).buildIndexes(ctx, db, c, nm, todo); err != nil {
		db.dropIndexData(nm.ID, todo)
		return nil, err
	}
	final, err := db.publishIndexes(c, nm, todo, empty)
	if err != nil {
		return nil, err
	}
	res.NumIndexesAfter = len(final.Indexes)
	if len(todo) < len(specs) {
		// Some of the indexes asked for were there already.
		res.Note = "index already exists"
	}
	now := time.Now()
	for _, ix := range todo {
		db.noteIndexCreated(nm.ID, ix.Name, now)
		res.Names = append(res.Names, ix.Name)
	}
	return res, nil
}

// buildIndexes writes the keys of every existing document for ixs.
// The caller holds the collection's write lock.
func (db *DB) buildIndexes(ctx context.Context, c *coll, m *catalog.Coll, ixs []*catalog.Index) error {
	uniq := make([]map[string]uint64, len(ixs))
	for i, ix := range ixs {
		if ix.Unique {
			uniq[i] = map[string]uint64{}
		}
		if idBoundKept(m, ix) {
			// Entries written here do not raise the _id bound: read it
			// again afterwards (indexkey.IDBound). The _id index is never
			// rebuilt today; this keeps the invariant if it is.
			defer c.forgetIDBound()
		}
	}
	p := &plan{c: c, m: m, filter: matchAll}
	sc := newScanner(p)
	sc.noMatch = true
	batch := db.store.NewBatch()
	defer batch.Cancel()
	newKeys := make([][][]byte, len(ixs))
	for !sc.done {
		if err := ctxErr(ctx); err != nil {
			return err
		}
		recs, err := sc.next(ctx, 1024)
		if err != nil {
			return err
		}
		for _, r := range recs {
			for i, ix := range ixs {
				keys, mk, err := indexkey.Of(ix, r.d)
				if err != nil {
					return err
				}
				if mk {
					ix.MarkMultikey(indexkey.MultikeyFields(ix, r.d))
				}
				newKeys[i] = keys
			}
			if err := db.fitsOneTxn(m, r.d, newKeys); err != nil {
				return err
			}
			for i, ix := range ixs {
				for _, k := range newKeys[i] {
					if uniq[i] != nil {
						if other, dup := uniq[i][string(k)]; dup && other != r.rid {
							return dupKeyErr(m, ix, r.d)
						}
						uniq[i][string(k)] = r.rid
					}
					if err := batch.Set(lsm.IndexKey(m.ID, ix.ID, k, r.rid), entryValue(m, ix, r.d, r.raw)); err != nil {
						return err
					}
				}
			}
		}
		db.failpoint(FailpointIndexBuildMid)
	}
	return batch.Flush()
}

// fitsOneTxn refuses (67 CannotCreateIndex) an index build that would
// give document d more entries, under m's indexes and the keys newKeys
// of the indexes being built, than one transaction holds: such a
// document could not be deleted, each document going with all its
// index entries in one transaction. An insert refuses such a document
// alike (lsm.ErrTxnTooBig).
func (db *DB) fitsOneTxn(m *catalog.Coll, d bson.D, newKeys [][][]byte) error {
	// Badger counts a delete as one entry of len(key)+12 bytes, plus 10
	// per entry for the transaction (txn.checkSize); an index key is its
	// keystring with a tag, collection and index ids and the record id
	// (docs/storage-keys.md; counted at their longest: compact ids of
	// up to 9 bytes, the record id's length byte).
	const perEntry = 12 + 10
	const indexKeyExtra = 1 + 9 + 9 + 9 + 1
	entries := int64(1)
	bytes := int64(len(lsm.RecordKey(m.ID, math.MaxUint64)) + perEntry)
	count := func(keys [][]byte) {
		for _, k := range keys {
			entries++
			bytes += int64(len(k)) + indexKeyExtra + perEntry
		}
	}
	for _, ix := range m.Indexes {
		keys, _, err := indexkey.Of(ix, d)
		if err != nil {
			return err
		}
		count(keys)
	}
	for _, keys := range newKeys {
		count(keys)
	}
	if entries > db.store.MaxBatchCount() || bytes > db.store.MaxBatchSize() {
		id, _ := get(d, "_id")
		return document.Errorf(document.CodeCannotCreateIndex,
			"index build on %s: the document with _id %s would have %d index entries (%d bytes), more than one transaction holds (%d entries, %d bytes), so it could not be deleted",
			m.NS(), fmtValue(id), entries-1, bytes, db.store.MaxBatchCount(), db.store.MaxBatchSize())
	}
	return nil
}

var matchAll, _ = query.ParseFilter(bson.D{})

// collEmpty reports whether collection c (entry m) holds no document.
func (db *DB) collEmpty(ctx context.Context, c *coll, m *catalog.Coll) (bool, error) {
	p, err := makePlan(c, m, matchAll, nil, nil)
	if err != nil {
		return false, err
	}
	sc := newScanner(p)
	sc.noMatch = true
	for !sc.done {
		recs, err := sc.next(ctx, 1)
		if err != nil {
			return false, err
		}
		if len(recs) > 0 {
			return false, nil
		}
	}
	return true, nil
}

func pendingIndexDropKey(coll, idx uint64) []byte {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], coll)
	binary.BigEndian.PutUint64(b[8:], idx)
	return append(lsm.MetaKey("dropix/"), b[:]...)
}

// dropIndexData removes the keys of ixs and their pending markers, and
// forgets the TTL monitor's state of them.
func (db *DB) dropIndexData(collID uint64, ixs []*catalog.Index) error {
	for _, ix := range ixs {
		if db.mon != nil {
			db.ttl.ResetLowWater(collID, ix.ID)
		}
		p := lsm.IndexPrefix(collID, ix.ID)
		if _, err := db.store.DeleteRange(p, lsm.PrefixEnd(p)); err != nil {
			return err
		}
		if err := db.store.Update(func(txn *lsm.Txn) error { return txn.Delete(pendingIndexDropKey(collID, ix.ID)) }); err != nil {
			return err
		}
	}
	return nil
}

// resumeIndexDrops finishes index drops and builds a crash interrupted.
func (db *DB) resumeIndexDrops() error {
	pre := lsm.MetaKey("dropix/")
	type pair struct{ c, i uint64 }
	var todo []pair
	err := db.store.View(func(txn *lsm.Txn) error {
		it := txn.NewIter(lsm.IterOptions{Prefix: pre, KeysOnly: true})
		defer it.Close()
		for it.Next() {
			k := it.Key()
			if len(k) == len(pre)+16 {
				todo = append(todo, pair{binary.BigEndian.Uint64(k[len(pre):]), binary.BigEndian.Uint64(k[len(pre)+8:])})
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, p := range todo {
		if err := db.dropIndexData(p.c, []*catalog.Index{{ID: p.i}}); err != nil {
			return err
		}
	}
	return nil
}

// listIndexOrder is the order of a listIndexes entry's option fields
// after v, key and name: mongod serialises each entry through its
// ListIndexesReplyItem, whose fields come in this order.
var listIndexOrder = []string{
	"background", "unique", "hidden", "partialFilterExpression", "sparse", "expireAfterSeconds",
	"storageEngine", "weights", "default_language", "language_override", "textIndexVersion",
	"2dsphereIndexVersion", "bits", "min", "max", "bucketSize", "collation", indexkey.WildcardProjection,
	"coarsestIndexedLevel", "finestIndexedLevel", "clustered", "prepareUnique",
}

// listIndexEntry renders an index as listIndexes shows it: v (2 unless
// the spec asked for 1), key, name, then the options in mongod's order
// (listIndexOrder). unique and hidden appear when true, as mongod keeps
// them; sparse and background as the spec gave them.
func listIndexEntry(ix *catalog.Index) bson.D {
	opts := map[string]any{}
	if ix.Unique && ix.ID != idIndexID {
		opts["unique"] = true
	}
	if ix.Sparse {
		opts["sparse"] = true
	}
	if ix.Hidden {
		opts["hidden"] = true
	}
	if ix.Partial != nil {
		opts["partialFilterExpression"] = ix.Partial
	}
	if ix.TTL {
		opts["expireAfterSeconds"] = int32(ix.Expire)
	}
	if ix.PrepareUnique {
		opts["prepareUnique"] = true
	}
	var rest bson.D // options outside listIndexOrder, in their order
	v := any(int32(2))
	for _, e := range ix.Extra {
		switch _, set := opts[e.Key]; {
		case e.Key == "v":
			v = e.Value
		case set:
		case slices.Contains(listIndexOrder, e.Key):
			opts[e.Key] = e.Value
		default:
			rest = append(rest, e)
		}
	}
	d := bson.D{{Key: "v", Value: v}, {Key: "key", Value: ix.Key}, {Key: "name", Value: ix.Name}}
	for _, k := range listIndexOrder {
		val, ok := opts[k]
		if !ok {
			continue
		}
		// The reply item's types: safeInt and safeDouble fields come
		// out as int and double whatever number the spec held.
		switch f, isNum := asFloat(val); {
		case !isNum:
		case k == "min" || k == "max" || k == "bucketSize":
			val = f
		case k == "bits" || k == "2dsphereIndexVersion" || k == "textIndexVersion" || k == "coarsestIndexedLevel" || k == "finestIndexedLevel":
			if f >= math.MinInt32 && f <= math.MaxInt32 {
				val = int32(f)
			}
		}
		d = append(d, bson.E{Key: k, Value: val})
	}
	return append(d, rest...)
}

// findIndexes resolves an index reference (a name or a key pattern).
func findIndex(m *catalog.Coll, ref any) (*catalog.Index, error) {
	switch r := ref.(type) {
	case string:
		if ix := m.Index(r); ix != nil {
			return ix, nil
		}
		return nil, document.Errorf(document.CodeIndexNotFound, "index not found with name [%s]", r)
	case bson.D:
		var found []*catalog.Index
		for _, ix := range m.Indexes {
			if document.Equal(ix.Key, r) {
				found = append(found, ix)
			}
		}
		switch len(found) {
		case 0:
			return nil, document.Errorf(document.CodeIndexNotFound, "can't find index with key: %s", fmtValue(r))
		case 1:
			return found[0], nil
		}
		return nil, document.Errorf(document.CodeAmbiguousIndexKeyPattern, "%d indexes found for key: %s, identify by name instead. Conflicting indexes: %s, %s", len(found), fmtValue(r), fmtValue(listIndexEntry(found[0])), fmtValue(listIndexEntry(found[1])))
	}
	return nil, document.Errorf(document.CodeTypeMismatch, "index reference must be a name or a key pattern, not %s", typeName(ref))
}

// dropIndexes drops the named indexes ("*": all but _id_).
func (db *DB) dropIndexes(dbName, name string, which any) (int, error) {
	if err := db.checkWritable(); err != nil {
		return 0, err
	}
	db.catMu.Lock()
	defer db.catMu.Unlock()
	c := db.lookup(dbName, name)
	if c == nil {
		return 0, document.Errorf(document.CodeNamespaceNotFound, "ns not found %s.%s", dbName, name)
	}
	if px, ok := kindOf(c.m()).(indexProxy); ok {
		return px.dropIndexes(db, c, which)
	}
	if tc := db.bucketsTarget(dbName, name); tc != nil {
		return db.dropBucketsIndexes(tc, c, which)
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	m := c.m()
	before := len(m.Indexes)
	drop, err := indexesToDrop(m, which)
	if err != nil {
		return 0, err
	}
	for _, ix := range drop {
		if ix.ID == idIndexID && m.Clustered {
			return 0, document.Errorf(5979800, "It is illegal to drop the clusteredIndex")
		}
		if ix.ID == idIndexID {
			return 0, document.Errorf(document.CodeInvalidOptions, "cannot drop _id index")
		}
	}
	return before, db.removeIndexes(c, drop)
}

// reserveIndexes writes nm, which has the ids of the indexes ixs
// reserved, as c's catalog entry, and marks each of ixs as a pending
// build in the same transaction: if the build never finishes, opening
// the database drops what it wrote.
func (db *DB) reserveIndexes(c *coll, nm *catalog.Coll, ixs []*catalog.Index) error {
	return db.updateMeta(c, nm, func(txn *lsm.Txn) error {
		for _, ix := range ixs {
			if err := txn.Set(pendingIndexDropKey(nm.ID, ix.ID), nil); err != nil {
				return err
			}
		}
		return nil
	})
}

// publishIndexes makes the built indexes ixs part of c's catalog entry
// (nm plus ixs) and clears their pending marks in the same transaction,
// which also carries their createIndexes events: one per index when
// perIndex is set (the collection was empty), else one listing them
// all. It returns the new entry.
func (db *DB) publishIndexes(c *coll, nm *catalog.Coll, ixs []*catalog.Index, perIndex bool) (*catalog.Coll, error) {
	final := nm.Clone()
	final.Indexes = append(final.Indexes, ixs...)
	if err := db.updateMeta(c, final, func(txn *lsm.Txn) error {
		for _, ix := range ixs {
			if err := txn.Delete(pendingIndexDropKey(nm.ID, ix.ID)); err != nil {
				return err
			}
		}
		return db.noteCreateIndexes(txn, final, ixs, perIndex)
	}); err != nil {
		return nil, err
	}
	return final, nil
}

// removeIndexes takes the indexes drop out of c's catalog entry,
// recording each as a pending drop in the same transaction, then
// deletes their entries (dropIndexData). The caller holds catMu and
// c.wmu.
func (db *DB) removeIndexes(c *coll, drop []*catalog.Index) error {
	nm := c.m().Clone()
	kept := nm.Indexes[:0]
	for _, ix := range nm.Indexes {
		if !containsID(drop, ix.ID) {
			kept = append(kept, ix)
		}
	}
	nm.Indexes = kept
	if err := db.updateMeta(c, nm, func(txn *lsm.Txn) error {
		for _, ix := range drop {
			if err := txn.Set(pendingIndexDropKey(nm.ID, ix.ID), nil); err != nil {
				return err
			}
		}
		if err := db.noteDropIndexes(txn, nm, drop); err != nil {
			return err
		}
		return nil
	}); err != nil {
		return err
	}
	return db.dropIndexData(nm.ID, drop)
}

func containsID(list []*catalog.Index, id uint64) bool {
	for _, ix := range list {
		if ix.ID == id {
			return true
		}
	}
	return false
}

// indexesToDrop resolves dropIndexes' index argument: a name, "*" (every
// index but _id_), a key pattern, or an array of names and patterns.
func indexesToDrop(m *catalog.Coll, which any) ([]*catalog.Index, error) {
	var drop []*catalog.Index
	add := func(ref any) error {
		ix, err := findIndex(m, ref)
		if err == nil {
			drop = append(drop, ix)
		}
		return err
	}
	switch w := which.(type) {
	case string:
		if w != "*" {
			return drop, add(w)
		}
		for _, ix := range m.Indexes {
			if ix.ID != idIndexID {
				drop = append(drop, ix)
			}
		}
		return drop, nil
	case bson.D:
		return drop, add(w)
	case bson.A:
		for _, n := range w {
			if err := add(n); err != nil {
				return nil, err
			}
		}
		return drop, nil
	}
	return nil, document.Errorf(document.CodeTypeMismatch, "dropIndexes 'index' must be a string, an object or an array, not %s", typeName(which))
}

// wildcardProjectionOf returns a wildcard index's wildcardProjection,
// nil when it has none.
func wildcardProjectionOf(ix *catalog.Index) bson.D {
	for _, e := range ix.Extra {
		if e.Key == indexkey.WildcardProjection {
			d, _ := e.Value.(bson.D)
			return d
		}
	}
	return nil
}

// newIndexes returns the positions in parsed of the indexes a
// createIndexes must build: those neither in m nor earlier in parsed.
// It returns the error MongoDB gives instead when a request clashes
// with an index, by mongod's rules (IndexCatalogImpl's check of a spec
// against the existing ones, docs/commands.md §9): an index of the same
// name is the same one (nothing to build), an equivalent one with other
// options (85 IndexOptionsConflict) or another index (86
// IndexKeySpecsConflict); an index of another name that is equivalent
// or identical is 85; past maxIndexes in all, or a second text index,
// 67 CannotCreateIndex. specs are the requests as given, for the
// messages. Every collection kind's createIndexes asks it.
func newIndexes(m *catalog.Coll, parsed []*catalog.Index, specs []bson.D) ([]int, error) {
	var pos []int
	seen := slices.Clone(m.Indexes)
	for i, ix := range parsed {
		exists := false
		if j := slices.IndexFunc(seen, func(old *catalog.Index) bool { return old.Name == ix.Name }); j >= 0 {
			old := seen[j]
			switch compareIndexes(ix, old) {
			case indexIdentical:
				exists = true
			case indexEquivalent:
				return nil, document.Errorf(document.CodeIndexOptionsConflict, "An equivalent index already exists with the same name but different options. Requested index: %s, existing index: %s", fmtValue(specs[i]), fmtValue(listIndexEntry(old)))
			default:
				return nil, document.Errorf(document.CodeIndexKeySpecsConflict, "An existing index has the same name as the requested index. When index names are not specified, they are auto generated and can cause conflicts. Please refer to our documentation. Requested index: %s, existing index: %s", fmtValue(specs[i]), fmtValue(listIndexEntry(old)))
			}
		} else {
			for _, old := range seen {
				if isBucketsColl(m) && strings.HasPrefix(old.Name, "_ts_") {
					// The engine's own indexes of a buckets collection
					// (_ts_control_min_time, _ts_meta, _ts_ix_*) do not
					// stand in for one the user asks for by key.
					continue
				}
				switch compareIndexes(ix, old) {
				case indexEquivalent:
					return nil, document.Errorf(document.CodeIndexOptionsConflict, "An equivalent index already exists with a different name and options. Requested index: %s, existing index: %s", fmtValue(specs[i]), fmtValue(listIndexEntry(old)))
				case indexIdentical:
					return nil, document.Errorf(document.CodeIndexOptionsConflict, "Index already exists with a different name: %s", old.Name)
				}
			}
			if isTextKey(ix.Key) {
				// One text index a collection (docs/text.md).
				for _, old := range seen {
					if isTextKey(old.Key) {
						return nil, document.Errorf(document.CodeCannotCreateIndex, "only one text index per collection allowed, found existing text index \"%s\"", old.Name)
					}
				}
			}
		}
		if !exists {
			pos = append(pos, i)
			seen = append(seen, ix)
		}
	}
	if len(m.Indexes)+len(pos) > maxIndexes {
		return nil, document.Errorf(document.CodeCannotCreateIndex, "add index fails, too many indexes for %s key:%s", m.NS(), fmtValue(parsed[pos[0]].Key))
	}
	return pos, nil
}

// indexComparison is how a requested index compares with an existing
// one, as mongod's IndexDescriptor::compareIndexOptions tells.
type indexComparison int

const (
	// indexDifferent: another index; the key or an option that tells
	// indexes apart (unique, sparse, collation, partial filter, wildcard
	// projection) differs.
	indexDifferent indexComparison = iota
	// indexEquivalent: the same key and telling options, but other
	// options (a TTL, hidden, a text index's weights) differ; the two
	// cannot both exist.
	indexEquivalent
	// indexIdentical: the same index, however its options are spelled.
	indexIdentical
)

// compareIndexes compares requested index a with existing index b. A
// partial filter or a wildcard projection is compared by what it
// means ({a: {$gt: 1}} and {a: {$gt: 1.0}}, an $and in any order,
// {a: 1} and {a: true}), not by its spelling.
func compareIndexes(a, b *catalog.Index) indexComparison {
	switch {
	case !document.Equal(a.Key, b.Key),
		!indexkey.SameWildcardProjection(wildcardProjectionOf(a), wildcardProjectionOf(b)),
		a.Unique != b.Unique, a.Sparse != b.Sparse,
		!sameIndexCollation(a, b),
		!samePartialFilter(a, b):
		return indexDifferent
	}
	if a.TTL != b.TTL || a.TTL && a.Expire != b.Expire || a.Hidden != b.Hidden || a.PrepareUnique != b.PrepareUnique {
		return indexEquivalent
	}
	ao, bo := otherIndexOptions(a), otherIndexOptions(b)
	if len(ao) != len(bo) {
		return indexEquivalent
	}
	for k, v := range ao {
		if w, ok := bo[k]; !ok || !document.Equal(v, w) {
			return indexEquivalent
		}
	}
	return indexIdentical
}

// samePartialFilter reports whether two indexes have equivalent partial
// filters, or neither has one.
func samePartialFilter(a, b *catalog.Index) bool {
	if a.Partial == nil || b.Partial == nil {
		return a.Partial == nil && b.Partial == nil
	}
	if document.Equal(a.Partial, b.Partial) {
		return true
	}
	return a.PartialFilter != nil && b.PartialFilter != nil && a.PartialFilter.Equivalent(b.PartialFilter)
}

// otherIndexOptions returns the options of ix kept in its Extra that
// mongod weighs when it tells an identical index from an equivalent
// one (a text index's weights and languages, a 2d index's bits, min
// and max, storageEngine), by name: not those that tell indexes apart
// or that it ignores there (sparse, collation, wildcardProjection, v,
// background, textIndexVersion, 2dsphereIndexVersion).
func otherIndexOptions(ix *catalog.Index) map[string]any {
	out := map[string]any{}
	for _, e := range ix.Extra {
		switch e.Key {
		case "sparse", "collation", indexkey.WildcardProjection, "v", "background", "textIndexVersion", "2dsphereIndexVersion":
		default:
			out[e.Key] = e.Value
		}
	}
	return out
}

// indexOptionTypes refuses index options of a type or value mongod's
// validateIndexSpec refuses: hidden not a boolean (14), unique, sparse
// and background neither a boolean nor a number (14, in mongod's words,
// its unclosed quote included), a geo or text option that is not a
// number (14), v other than 1 or 2 or v 1 with a collation (67), a
// storageEngine that is not a non-empty document (67), a name holding a
// NUL byte (67) or "*" (2).
func indexOptionTypes(spec bson.D) error {
	for _, e := range spec {
		switch e.Key {
		case "hidden":
			if _, ok := e.Value.(bool); !ok {
				return document.Errorf(document.CodeTypeMismatch, "The field 'hidden' must be a bool, but got %s", typeName(e.Value))
			}
		case "unique", "sparse", "background", "prepareUnique":
			if _, ok := e.Value.(bool); !ok && !document.IsNumber(e.Value) {
				return document.Errorf(document.CodeTypeMismatch, "The field '%s has value %s: %s, which is not convertible to bool", e.Key, e.Key, fmtValue(e.Value))
			}
		case "2dsphereIndexVersion", "bits", "min", "max", "finestIndexedLevel", "coarsestIndexedLevel", "textIndexVersion":
			if !document.IsNumber(e.Value) {
				return document.Errorf(document.CodeTypeMismatch, "The field '%s' must be a number, but got %s", e.Key, typeName(e.Value))
			}
		case "v":
			if !document.IsNumber(e.Value) {
				return document.Errorf(document.CodeTypeMismatch, "The field 'v' must be a number, but got %s", typeName(e.Value))
			}
			v, _ := asFloat(e.Value)
			if v != math.Trunc(v) || v > math.MaxInt32 || v < math.MinInt32 {
				return document.Errorf(document.CodeBadValue, "Index version must be representable as a 32-bit integer, but got %s", fmtValue(e.Value))
			}
			if v != 1 && v != 2 {
				return document.Errorf(document.CodeCannotCreateIndex, "Invalid index specification %s; cannot create an index with v=%s", fmtValue(spec), fmtValue(e.Value))
			}
			if _, has := get(spec, "collation"); has && v == 1 {
				return document.Errorf(document.CodeCannotCreateIndex, "Invalid index specification %s; cannot create an index with the 'collation' option and v=1", fmtValue(spec))
			}
		case "collation":
			d, ok := e.Value.(bson.D)
			if !ok {
				return document.Errorf(document.CodeTypeMismatch, "The field 'collation' must be an object, but got %s", typeName(e.Value))
			}
			if len(d) == 0 {
				return document.Errorf(document.CodeBadValue, "The field 'collation' cannot be an empty object.")
			}
		case "default_language", "language_override":
			if _, ok := e.Value.(string); !ok {
				return document.Errorf(document.CodeTypeMismatch, "The field '%s' must be a string, but got %s", e.Key, typeName(e.Value))
			}
		case "weights":
			switch e.Value.(type) {
			case bson.D, bson.A, string:
			default:
				return document.Errorf(document.CodeTypeMismatch, "The field 'weights' must be an object, but got %s", typeName(e.Value))
			}
		case "storageEngine":
			d, ok := e.Value.(bson.D)
			if !ok {
				return document.Errorf(document.CodeCannotCreateIndex, "\"storageEngine\" options must be a document if present")
			}
			if len(d) == 0 {
				return document.Errorf(document.CodeCannotCreateIndex, "Empty \"storageEngine\" options are invalid. Please remove the field or include valid options.")
			}
		case "name":
			s, _ := e.Value.(string)
			if strings.Contains(s, "\x00") {
				return document.Errorf(document.CodeCannotCreateIndex, "index name cannot contain NUL bytes")
			}
			if s == "*" {
				return keepSpec(document.Errorf(document.CodeBadValue, "The index name '*' is not valid."))
			}
		}
	}
	return nil
}

// indexKeyPaths refuses key fields mongod's validateKeyPattern refuses:
// an empty path component (67), a component starting with '$' but a
// wildcard's $** (67), the text index's internal _fts and _ftsx outside
// a text key (67), and a field named twice (2).
func indexKeyPaths(key bson.D) error {
	text := false
	for _, f := range key {
		if v, _ := f.Value.(string); v == "text" {
			text = true
		}
	}
	seen := make(map[string]bool, len(key))
	for _, f := range key {
		if seen[f.Key] {
			return document.Errorf(document.CodeBadValue, "The field '%s' appears multiple times in the index key pattern %s", f.Key, fmtValue(key))
		}
		seen[f.Key] = true
		if f.Key == "" {
			continue // reported as an illegal field name
		}
		for i, part := range strings.Split(f.Key, ".") {
			switch {
			case part == "":
				return document.Errorf(document.CodeCannotCreateIndex, "Index keys cannot contain an empty field.")
			case part == "$**":
			case strings.HasPrefix(part, "$"):
				if f.Key == part {
					continue // the whole key: reported as an illegal field name, as before
				}
				if i > 0 && (part == "$id" || part == "$ref" || part == "$db") {
					continue // may be a DBRef's field, which mongod lets a key name
				}
				return document.Errorf(document.CodeCannotCreateIndex, "Index key contains an illegal field name: field name starts with '$'.")
			}
		}
		if !text && (f.Key == "_fts" || f.Key == "_ftsx") {
			return document.Errorf(document.CodeCannotCreateIndex, "Index key contains an illegal field name: '%s'", f.Key)
		}
	}
	return nil
}

// idPatternKey reports whether key is the pattern of an _id index:
// {_id: 1} or {_id: -1}, as mongod's IndexDescriptor::isIdIndexPattern
// says ({_id: -1} is then refused); {_id: "hashed"} is an ordinary index.
func idPatternKey(key bson.D) bool {
	if len(key) != 1 || key[0].Key != "_id" {
		return false
	}
	f, ok := asFloat(key[0].Value)
	return ok && (f == 1 || f == -1)
}

// keyValueNumber refuses (67) a key pattern value that is neither a
// number nor a string, or a number that is 0 or NaN, in mongod's
// validateKeyPattern words.
func keyValueNumber(v any) error {
	if !document.IsNumber(v) {
		return document.Errorf(document.CodeCannotCreateIndex, "Values in v:2 index key pattern cannot be of type %s. Only numbers > 0, numbers < 0, and strings are allowed.", typeName(v))
	}
	switch n, _ := asFloat(v); {
	case math.IsNaN(n):
		return document.Errorf(document.CodeCannotCreateIndex, "Values in the index key pattern cannot be NaN.")
	case n == 0:
		return document.Errorf(document.CodeCannotCreateIndex, "Values in the index key pattern cannot be 0.")
	}
	return nil
}

// collKindName names m's kind for a message: "clustered" for a
// clustered collection, "time-series" for a buckets collection.
func collKindName(m *catalog.Coll) string {
	switch {
	case m.Clustered:
		return "clustered"
	case isBucketsColl(m):
		return "time-series"
	}
	return string(m.Kind)
}
