package engine

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestDensifyTimeseries fills the hourly gaps of a time-series
// collection's measurements through the aggregate command, as a chart
// needs them: per sensor ("partition"), up to the last measurement of
// any sensor ("full") and over a given day ([lo, hi)); generated
// measurements hold only the sensor and the time. Explain shows the
// $sort and $_internalDensify that $densify stands for.
func TestDensifyTimeseries(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "ts", "timeseries": {"timeField": "t", "metaField": "m", "granularity": "minutes"}}`)
	base := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	hour := func(h int) string {
		return fmt.Sprintf(`{"$date": "%s"}`, base.Add(time.Duration(h)*time.Hour).Format(time.RFC3339))
	}
	var docs []string
	for _, m := range []struct {
		sensor string
		h      int
	}{{"s1", 0}, {"s1", 1}, {"s1", 4}, {"s2", 3}, {"s2", 0}} {
		docs = append(docs, fmt.Sprintf(`{"t": %s, "m": "%s", "temp": %d.5}`, hour(m.h), m.sensor, m.h))
	}
	mustRun(t, db, "test", `{"insert": "ts", "documents": [`+strings.Join(docs, ", ")+`]}`)

	// rows reads the results as "sensor@hour" and "sensor@hour*" for a
	// generated one (no temp).
	rows := func(pipeline string) string {
		t.Helper()
		r := mustRun(t, db, "test", `{"aggregate": "ts", "pipeline": `+pipeline+`, "cursor": {}}`)
		_, batch := checkCursorShape(t, "densify", field(r, "cursor"), "firstBatch")
		var out []string
		for _, v := range batch {
			d := v.(bson.D)
			at, _ := field(d, "t").(bson.DateTime)
			s := fmt.Sprintf("%v@%d", field(d, "m"), int(at.Time().Sub(base)/time.Hour))
			if field(d, "temp") == nil {
				s += "*"
				for _, el := range d {
					if el.Key != "m" && el.Key != "t" {
						t.Errorf("generated %v: want only m and t", d)
					}
				}
			}
			out = append(out, s)
		}
		return strings.Join(out, " ")
	}
	cases := []struct{ densify, after, want string }{
		{`{"field": "t", "partitionByFields": ["m"], "range": {"step": 1, "unit": "hour", "bounds": "partition"}}`, ``,
			"s1@0 s1@1 s1@2* s1@3* s1@4 s2@0 s2@1* s2@2* s2@3"},
		{`{"field": "t", "partitionByFields": ["m"], "range": {"step": 1, "unit": "hour", "bounds": "full"}}`, `, {"$sort": {"m": 1, "t": 1}}`,
			"s1@0 s1@1 s1@2* s1@3* s1@4 s2@0 s2@1* s2@2* s2@3 s2@4*"},
		{`{"field": "t", "partitionByFields": ["m"], "range": {"step": 2, "unit": "hour", "bounds": [` + hour(0) + `, ` + hour(6) + `]}}`, `, {"$sort": {"m": 1, "t": 1}}`,
			"s1@0 s1@1 s1@2* s1@4 s2@0 s2@2* s2@3 s2@4*"},
		{`{"field": "t", "range": {"step": 90, "unit": "minute", "bounds": "full"}}`, `, {"$match": {"temp": {"$exists": false}}}`,
			"<nil>@1*"}, // 1:30, a step after midnight and before 3:00

	}
	for _, c := range cases {
		if got := rows(`[{"$project": {"_id": 0}}, {"$densify": ` + c.densify + `}` + c.after + `]`); got != c.want {
			t.Errorf("$densify %s:\n got %s\nwant %s", c.densify, got, c.want)
		}
	}

	r := mustRun(t, db, "test", `{"aggregate": "ts", "pipeline": [{"$densify": {"field": "t", "partitionByFields": ["m"], "range": {"step": 1, "unit": "hour", "bounds": "partition"}}}], "explain": true}`)
	stages, _ := field(r, "stages").(bson.A)
	var names []string
	for _, s := range stages {
		names = append(names, s.(bson.D)[0].Key)
	}
	if got := strings.Join(names, " "); !strings.HasSuffix(got, "$sort $_internalDensify") {
		t.Errorf("explain stages: %s, want $sort then $_internalDensify", got)
	}

	// internalQueryMaxAllowedDensifyDocs bounds what it generates, as in
	// mongod's generated_limit.js.
	if v := field(mustRun(t, db, "admin", `{"getParameter": 1, "internalQueryMaxAllowedDensifyDocs": 1}`), "internalQueryMaxAllowedDensifyDocs"); v != int32(500000) {
		t.Errorf("internalQueryMaxAllowedDensifyDocs = %v, want 500000", v)
	}
	mustRun(t, db, "admin", `{"setParameter": 1, "internalQueryMaxAllowedDensifyDocs": 4}`)
	partition := `{"aggregate": "ts", "pipeline": [{"$densify": {"field": "t", "partitionByFields": ["m"], "range": {"step": 1, "unit": "hour", "bounds": "partition"}}}], "cursor": {}}`
	mustRun(t, db, "test", partition) // four generated
	mustRun(t, db, "admin", `{"setParameter": 1, "internalQueryMaxAllowedDensifyDocs": 3}`)
	wantCode(t, db, "test", partition, document.Code(5897900), "internalQueryMaxAllowedDensifyDocs")
	wantCode(t, db, "admin", `{"setParameter": 1, "internalQueryMaxAllowedDensifyDocs": 0}`, document.CodeBadValue, "less than the minimum")

	wantCode(t, db, "test", `{"aggregate": "ts", "pipeline": [{"$densify": {"field": "t", "range": {"step": 1, "unit": "hour", "bounds": "partition"}}}], "cursor": {}}`, document.Code(5733408), "partitionByFields")
	wantCode(t, db, "test", `{"aggregate": "ts", "pipeline": [{"$densify": {"field": "temp", "range": {"step": 1, "unit": "hour", "bounds": "full"}}}], "cursor": {}}`, document.Code(6053600), "numeric densify value")
}
