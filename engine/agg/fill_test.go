package agg

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestFill checks $fill as mongod parses it (a $setWindowFields of $locf
// and $linearFill, then an $addFields of $ifNull): each method and a
// value, partitions, explain's stages, and the refusals.
func TestFill(t *testing.T) {
	t.Parallel()
	docs := `[{"_id": 1, "t": 1, "v": 10, "s": "a"}, {"_id": 2, "t": 2, "s": null}, {"_id": 3, "t": 3, "v": 30}, {"_id": 4, "t": 4}]`
	cases := []pipelineCase{
		{"methods and a value", docs,
			`[{"$fill": {"sortBy": {"t": 1}, "output": {"v": {"method": "linear"}, "s": {"method": "locf"}, "c": {"value": 0}}}}]`,
			`[{"_id": 1, "t": 1, "v": 10, "s": "a", "c": 0}, {"_id": 2, "t": 2, "s": "a", "v": 20.0, "c": 0},
			  {"_id": 3, "t": 3, "v": 30, "s": "a", "c": 0}, {"_id": 4, "t": 4, "v": null, "s": "a", "c": 0}]`},
		{"a value only, no sort", docs,
			`[{"$fill": {"output": {"v": {"value": {"$multiply": ["$t", 100]}}}}}]`,
			`[{"_id": 1, "t": 1, "v": 10, "s": "a"}, {"_id": 2, "t": 2, "s": null, "v": 200}, {"_id": 3, "t": 3, "v": 30}, {"_id": 4, "t": 4, "v": 400}]`},
		{"an output with neither method nor value does nothing, as in mongod", docs,
			`[{"$fill": {"output": {"v": {}}}}, {"$count": "n"}]`, `[{"n": 4}]`},
		{"partitions", `[{"_id": 1, "g": "x", "t": 1, "v": 1}, {"_id": 2, "g": "y", "t": 2, "v": 5}, {"_id": 3, "g": "x", "t": 3}, {"_id": 4, "g": "y", "t": 4}]`,
			`[{"$fill": {"sortBy": {"t": 1}, "partitionByFields": ["g"], "output": {"v": {"method": "locf"}}}}, {"$sort": {"_id": 1}}]`,
			`[{"_id": 1, "g": "x", "t": 1, "v": 1}, {"_id": 2, "g": "y", "t": 2, "v": 5}, {"_id": 3, "g": "x", "t": 3, "v": 1}, {"_id": 4, "g": "y", "t": 4, "v": 5}]`},
	}
	checkPipelines(t, cases)

	p, err := Parse(val(t, `[{"$fill": {"sortBy": {"t": 1}, "output": {"v": {"method": "locf"}, "c": {"value": 0}}}}]`).(bson.A))
	if err != nil {
		t.Fatal(err)
	}
	if st := p.Stages(); len(st) != 2 || st[0].(bson.D)[0].Key != "$setWindowFields" || st[1].(bson.D)[0].Key != "$addFields" {
		t.Errorf("explain of $fill: %v, want $setWindowFields and $addFields", st)
	}

	errs := []codeCase{
		{`[{"$fill": 1}]`, 9},
		{`[{"$fill": {}}]`, 40414},
		{`[{"$fill": {"output": {}}}]`, 6050203},
		{`[{"$fill": {"output": {"v": 1}}}]`, 6050200},
		{`[{"$fill": {"output": {"v": {"method": "locf", "value": 1}}}}]`, 6050201},
		{`[{"$fill": {"output": {"v": {"method": "spline"}}}}]`, 6050202},
		{`[{"$fill": {"output": {"v": {"value": 1}}, "partitionBy": "$g", "partitionByFields": ["g"]}}]`, 6050204},
		{`[{"$fill": {"output": {"v": {"value": 1}}, "bogus": 1}}]`, 40415},
		{`[{"$fill": {"output": {"v": {"how": 1}}}}]`, 40415},
		{`[{"$fill": {"output": 1}}]`, 14},
		{`[{"$fill": {"output": {"v": {"method": "linear"}}}}]`, 605001},
	}
	checkCodes(t, docs, errs)
}
