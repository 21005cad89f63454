package agg

import (
	"fmt"
	"testing"
)

// TestSample checks $sample: size documents of the input, each one of
// them, no one twice; all of them when there are fewer; every document
// has a chance (over many draws each is drawn); and the refusals with
// mongod's codes.
func TestSample(t *testing.T) {
	t.Parallel()
	docs := "["
	for i := range 20 {
		if i > 0 {
			docs += ","
		}
		docs += fmt.Sprintf(`{"_id": %d}`, i)
	}
	docs += "]"
	drawn := map[int32]int{}
	for range 200 {
		out, err := run(t, docs, `[{"$sample": {"size": 5}}]`, Options{})
		if err != nil || len(out) != 5 {
			t.Fatalf("$sample 5 of 20: %v, %v", out, err)
		}
		once := map[int32]bool{}
		for _, d := range out {
			id := d[0].Value.(int32)
			if once[id] || id < 0 || id >= 20 {
				t.Fatalf("$sample drew %v", out)
			}
			once[id] = true
			drawn[id]++
		}
	}
	if len(drawn) != 20 {
		t.Errorf("over 200 draws of 5 of 20, only %d documents were ever drawn", len(drawn))
	}
	out, err := run(t, `[{"_id": 1}, {"_id": 2}]`, `[{"$sample": {"size": 10.7}}, {"$sort": {"_id": 1}}]`, Options{})
	if err != nil || !same(out, val(t, `[{"_id": 1}, {"_id": 2}]`)) {
		t.Errorf("$sample of more than there are: %v, %v", out, err)
	}
	if out, err := run(t, docs, `[{"$sample": {"size": 0}}]`, Options{}); err != nil || len(out) != 0 {
		t.Errorf("$sample 0: %v, %v", out, err)
	}
	for _, c := range []struct {
		spec string
		code int
	}{{`1`, 28745}, {`{"size": "a"}`, 28746}, {`{"size": -1}`, 28747}, {`{"size": 1, "x": 1}`, 28748}, {`{}`, 28749}} {
		if _, err := run(t, docs, `[{"$sample": `+c.spec+`}]`, Options{}); codeOf(err) != c.code {
			t.Errorf("%s: %v, want %d", c.spec, err, c.code)
		}
	}
	if _, err := run(t, docs, `[{"$sample": {"size": 10}}]`, Options{MaxMemoryBytes: 100}); codeOf(err) != 292 {
		t.Errorf("$sample over the memory limit: %v, want 292", err)
	}
}
