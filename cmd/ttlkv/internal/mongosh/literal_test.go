package mongosh

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestParseLiteral: the legacy Extended JSON of the old shell is read;
// anything that would run code (a function, a loop, eval, a getter, a
// call of a name that is not a constructor of the legacy forms) is
// refused before it runs.
func TestParseLiteral(t *testing.T) {
	t.Parallel()
	p, err := NewDocParser()
	if err != nil {
		t.Fatal(err)
	}
	d, err := p.ParseLiteral(`{_id: ObjectId("65a1b2c3d4e5f60718293a4b"), n: NumberLong(5), i: NumberInt(3), s: 'x', neg: -1.5,
		at: new Date(0), ts: Timestamp(5, 6), re: /ab/i, b: BinData(0, "aGk="), a: [1, , MinKey], u: undefined, inf: -Infinity, "q k": null}`)
	if err != nil {
		t.Fatal(err)
	}
	want := bson.D{
		{Key: "_id", Value: mustOID(t, "65a1b2c3d4e5f60718293a4b")}, {Key: "n", Value: int64(5)}, {Key: "i", Value: int32(3)},
		{Key: "s", Value: "x"}, {Key: "neg", Value: -1.5}, {Key: "at", Value: bson.DateTime(0)},
		{Key: "ts", Value: bson.Timestamp{T: 5, I: 6}}, {Key: "re", Value: bson.Regex{Pattern: "ab", Options: "i"}},
		{Key: "b", Value: bson.Binary{Data: []byte("hi")}},
	}
	for i, e := range want {
		if i >= len(d) || d[i].Key != e.Key {
			t.Fatalf("document %v, want %v first", d, want)
		}
		got, _ := bson.Marshal(bson.D{d[i]})
		exp, _ := bson.Marshal(bson.D{e})
		if string(got) != string(exp) {
			t.Errorf("%s: %#v, want %#v", e.Key, d[i].Value, e.Value)
		}
	}
	for _, src := range []string{
		`{a: (function() { for (;;); })()}`,
		`{a: eval("1")}`,
		`{get a() { return 1 }}`,
		`{a: x => x}`,
		"{a: `t`}",
		`{a: this.x}`,
		`{a: Math.max(1)}`,
		`{[k]: 1}`,
		`{a: 1}; while (true) {}`,
		`{a: ObjectId(function() {})}`,
		`{a: 1 + 1}`,
		`{a: typeof 1}`,
		`{a: 1}), (function() { for (;;); })(), ({b: 1}`,
	} {
		if _, err := p.ParseLiteral(src); err == nil || !strings.Contains(err.Error(), "SyntaxError") {
			t.Errorf("%s: %v, want a SyntaxError", src, err)
		}
	}
}

func mustOID(t *testing.T, h string) bson.ObjectID {
	t.Helper()
	id, err := bson.ObjectIDFromHex(h)
	if err != nil {
		t.Fatal(err)
	}
	return id
}
