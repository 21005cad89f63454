package engine

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// cmdValidate runs the validate command.
func cmdValidate(ctx context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	name, err := collName(cmd)
	if err != nil {
		return nil, err
	}
	r, err := db.Validate(ctx, dbName, name)
	if err != nil {
		return nil, err
	}
	kpi := bson.D{}
	for _, ix := range db.lookup(dbName, name).m().Indexes {
		kpi = append(kpi, bson.E{Key: ix.Name, Value: int32OrLong(r.KeysPerIndex[ix.Name])})
	}
	errs := bson.A{}
	for _, e := range r.Errors {
		errs = append(errs, e)
	}
	// MongoDB (src/mongo/db/catalog/validate_results.cpp): nInvalidDocuments,
	// nrecords and keysPerIndex through appendNumber, nIndexes an int.
	return bson.D{{Key: "ns", Value: r.Namespace}, {Key: "nInvalidDocuments", Value: int32(0)},
		{Key: "nrecords", Value: int32OrLong(r.Records)}, {Key: "nIndexes", Value: int32(len(kpi))},
		{Key: "keysPerIndex", Value: kpi}, {Key: "valid", Value: r.Valid()},
		{Key: "errors", Value: errs}, {Key: "warnings", Value: bson.A{}}}, nil
}
