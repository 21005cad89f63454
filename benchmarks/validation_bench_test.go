package benchmarks

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// BenchmarkValidatorInsert is the cost of a collection validator on
// inserts: batches of 500 makeDoc documents sent as raw BSON, as the
// wire server hands them to the engine (RunCommandRaw), into a
// collection with no validator (the baseline), a query-operator
// validator of three clauses, and a $jsonSchema validator of the same
// rules. Each op is one batch; compare ns/op against "none" of the same
// run.
func BenchmarkValidatorInsert(b *testing.B) {
	const batch = 500
	validators := []struct {
		name string
		v    bson.D
	}{
		{"none", nil},
		{"query", bson.D{{Key: "n", Value: bson.D{{Key: "$type", Value: "long"}}}, {Key: "name", Value: bson.D{{Key: "$exists", Value: true}}},
			{Key: "exp", Value: bson.D{{Key: "$type", Value: "date"}}}}},
		{"jsonSchema", bson.D{{Key: "$jsonSchema", Value: bson.D{{Key: "required", Value: bson.A{"n", "name", "exp"}},
			{Key: "properties", Value: bson.D{{Key: "n", Value: bson.D{{Key: "bsonType", Value: "long"}}},
				{Key: "exp", Value: bson.D{{Key: "bsonType", Value: "date"}}}}}}}}},
	}
	for _, tc := range validators {
		b.Run(tc.name, func(b *testing.B) {
			db := openEngine(b, b.TempDir(), newClock())
			defer db.Close()
			ctx := context.Background()
			create := bson.D{{Key: "create", Value: "c"}}
			if tc.v != nil {
				create = append(create, bson.E{Key: "validator", Value: tc.v})
			}
			if _, err := db.RunCommand(ctx, "bench", create); err != nil {
				b.Fatal(err)
			}
			next := 0
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				docs := make(bson.A, batch)
				for j := range docs {
					raw, err := bson.Marshal(makeDoc(next, baseTime))
					if err != nil {
						b.Fatal(err)
					}
					docs[j] = bson.Raw(raw)
					next++
				}
				r, err := db.RunCommandRaw(ctx, "bench", bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: docs}})
				if err != nil {
					b.Fatal(err)
				}
				if n, _ := r[0].Value.(int32); n != batch {
					b.Fatalf("inserted %v of %d: %v", r[0].Value, batch, r)
				}
			}
		})
	}
}
