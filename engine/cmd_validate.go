package engine

import (
	"context"

	"github.com/ttlkv/ttlkv/document"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// cmdValidate runs the validate command.
func cmdValidate(ctx context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	name, err := collName(cmd)
	if err != nil {
		return nil, err
	}
	// mongod's option conflicts (72).
	opt := func(k string) bool { v, ok := get(cmd, k); return ok && truthy(v) }
	switch {
	case opt("background") && (opt("full") || opt("enforceFastCount") || opt("repair")):
		return nil, document.Errorf(document.CodeInvalidOptions, "Running the validate command with { background: true } cannot be done with { full: true }, { enforceFastCount: true } or { repair: true }")
	case opt("metadata") && (opt("full") || opt("background") || opt("repair") || opt("enforceFastCount")):
		return nil, document.Errorf(document.CodeInvalidOptions, "Running the validate command with { metadata: true } is not supported with any other options")
	}
	r, err := db.Validate(ctx, dbName, name)
	if err != nil {
		return nil, err
	}
	kpi, details := bson.D{}, bson.D{}
	for _, ix := range db.lookup(dbName, name).m().Indexes {
		kpi = append(kpi, bson.E{Key: ix.Name, Value: int32OrLong(r.KeysPerIndex[ix.Name])})
		details = append(details, bson.E{Key: ix.Name, Value: bson.D{{Key: "valid", Value: r.Valid()}}})
	}
	errs := bson.A{}
	for _, e := range r.Errors {
		errs = append(errs, e)
	}
	// MongoDB (src/mongo/db/catalog/validate_results.cpp): nInvalidDocuments,
	// nrecords and keysPerIndex through appendNumber, nIndexes an int.
	return bson.D{{Key: "ns", Value: r.Namespace}, {Key: "nInvalidDocuments", Value: int32(0)},
		{Key: "nrecords", Value: int32OrLong(r.Records)}, {Key: "nIndexes", Value: int32(len(kpi))},
		{Key: "keysPerIndex", Value: kpi}, {Key: "indexDetails", Value: details}, {Key: "valid", Value: r.Valid()},
		{Key: "repaired", Value: false}, {Key: "warnings", Value: bson.A{}}, {Key: "errors", Value: errs},
		{Key: "extraIndexEntries", Value: bson.A{}}, {Key: "missingIndexEntries", Value: bson.A{}}, {Key: "corruptRecords", Value: bson.A{}}}, nil
}
