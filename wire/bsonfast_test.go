package wire

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/engine/query"
)

func richDoc() bson.D {
	dec, _ := bson.ParseDecimal128("12.5")
	return bson.D{
		{Key: "_id", Value: bson.NewObjectID()}, {Key: "s", Value: "héllo"}, {Key: "i", Value: int32(-7)},
		{Key: "l", Value: int64(1) << 40}, {Key: "f", Value: 2.5}, {Key: "nan", Value: math.NaN()}, {Key: "b", Value: true},
		{Key: "n", Value: nil}, {Key: "dt", Value: bson.NewDateTimeFromTime(time.Unix(1700000000, 0))},
		{Key: "bin", Value: bson.Binary{Subtype: 4, Data: []byte{1, 2, 3}}}, {Key: "ts", Value: bson.Timestamp{T: 5, I: 6}},
		{Key: "dec", Value: dec}, {Key: "re", Value: bson.Regex{Pattern: "^a", Options: "i"}},
		{Key: "min", Value: bson.MinKey{}}, {Key: "max", Value: bson.MaxKey{}}, {Key: "js", Value: bson.JavaScript("x")},
		{Key: "undef", Value: bson.Undefined{}}, {Key: "sym", Value: bson.Symbol("s")},
		{Key: "a", Value: bson.A{int32(1), "two", bson.D{{Key: "x", Value: bson.A{}}}, bson.A{3.0}, nil}},
		{Key: "d", Value: bson.D{{Key: "deep", Value: bson.D{{Key: "er", Value: int64(1)}}}}},
		{Key: "big", Value: bson.A{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 123}},
	}
}

func TestFastBSONMatchesDriver(t *testing.T) {
	t.Parallel()
	d := richDoc()
	want, err := bson.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	got, err := marshalD(d)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("marshalD differs from bson.Marshal: %v\n got %x\nwant %x", err, got, want)
	}
	var viaDriver bson.D
	if err := bson.Unmarshal(want, &viaDriver); err != nil {
		t.Fatal(err)
	}
	fast, err := rawToD(want)
	if err != nil {
		t.Fatal(err)
	}
	// NaN != NaN: compare re-encoded bytes, and types one by one.
	again, _ := marshalD(fast)
	if !bytes.Equal(again, want) {
		t.Fatalf("rawToD lost something:\n got %v\nwant %v", fast, viaDriver)
	}
	for i := range fast {
		if reflect.TypeOf(fast[i].Value) != reflect.TypeOf(viaDriver[i].Value) {
			t.Errorf("%s: %T, bson.Unmarshal gives %T", fast[i].Key, fast[i].Value, viaDriver[i].Value)
		}
	}
	if _, err := marshalD(bson.D{{Key: "a\x00b", Value: 1}}); err == nil {
		t.Fatal("a key with NUL was encoded")
	}
}

// TestRawToDCorrupt feeds rawToD documents cut or lying about lengths:
// each is an error, never a panic.
func TestRawToDCorrupt(t *testing.T) {
	t.Parallel()
	good, _ := bson.Marshal(richDoc())
	for i := 0; i < len(good); i++ {
		rawToD(good[:i])
		bad := bytes.Clone(good)
		bad[i] ^= 0xff
		rawToD(bad)
	}
	if _, err := rawToD(good[:len(good)-1]); err == nil {
		t.Fatal("a document cut short was accepted")
	}
}

// TestRawToDDoesNotAlias checks that the result shares no bytes with
// its input, so that a read buffer may be reused.
func TestRawToDDoesNotAlias(t *testing.T) {
	t.Parallel()
	raw, _ := bson.Marshal(bson.D{{Key: "b", Value: bson.Binary{Subtype: 0, Data: []byte{1, 2, 3}}}, {Key: "s", Value: "abc"}})
	d, err := rawToD(raw)
	if err != nil {
		t.Fatal(err)
	}
	for i := range raw {
		raw[i] = 0
	}
	if b := d[0].Value.(bson.Binary); !bytes.Equal(b.Data, []byte{1, 2, 3}) || d[1].Value != "abc" {
		t.Fatalf("the result changed with its input: %v", d)
	}
}

// BenchmarkRawToD converts a small command document, beside the
// driver's bson.Unmarshal into a bson.D.
func BenchmarkRawToD(b *testing.B) {
	raw, _ := bson.Marshal(bson.D{{Key: "insert", Value: "docs"}, {Key: "ordered", Value: true},
		{Key: "lsid", Value: bson.D{{Key: "id", Value: bson.Binary{Subtype: 4, Data: make([]byte, 16)}}}},
		{Key: "$db", Value: "bench"}, {Key: "doc", Value: bson.D{{Key: "_id", Value: int32(7)}, {Key: "n", Value: int32(7)}, {Key: "s", Value: "ppppppppppppppppppppppp"}}}})
	b.Run("rawToD", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := rawToD(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("bson.Unmarshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var d bson.D
			if err := bson.Unmarshal(raw, &d); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestCommandKeepsLsidRaw: a command's session id of the drivers'
// shape is kept as bson.Raw (not decoded for every request), encodes to
// the same bytes, and currentOp's copy of the command shows it decoded
// as before; any other lsid, and the other fields, are decoded, so a
// corrupt one is refused as before.
func TestCommandKeepsLsidRaw(t *testing.T) {
	t.Parallel()
	uuid := bson.Binary{Subtype: 4, Data: []byte("0123456789abcdef")}
	cmd := bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: bson.D{{Key: "_id", Value: int32(1)}}},
		{Key: "lsid", Value: bson.D{{Key: "id", Value: uuid}}},
		{Key: "$readPreference", Value: bson.D{{Key: "mode", Value: "primaryPreferred"}}},
		{Key: "$db", Value: "test"}}
	raw, err := bson.Marshal(cmd)
	if err != nil {
		t.Fatal(err)
	}
	got, err := commandToD(raw, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := lookup(got, "lsid").(bson.Raw); !ok {
		t.Errorf("lsid is %T, want bson.Raw", lookup(got, "lsid"))
	}
	for _, k := range []string{"filter", "$readPreference"} {
		if _, ok := lookup(got, k).(bson.D); !ok {
			t.Errorf("%s is %T, want bson.D", k, lookup(got, k))
		}
	}
	enc, err := marshalD(got)
	if err != nil || !bytes.Equal(enc, raw) {
		t.Fatalf("re-encoded command differs: %v\n got %x\nwant %x", err, enc, raw)
	}
	full, err := rawToD(raw)
	if err != nil {
		t.Fatal(err)
	}
	if shown := shownCommand(got); !reflect.DeepEqual(shown, full) {
		t.Fatalf("shownCommand = %v, want %v", shown, full)
	}
	for _, lsid := range []any{
		"x", bson.D{{Key: "id", Value: bson.Binary{Subtype: 3, Data: uuid.Data}}},
		bson.D{{Key: "id", Value: uuid}, {Key: "uid", Value: bson.Binary{Data: []byte{1}}}},
		bson.D{{Key: "id", Value: bson.Binary{Subtype: 4, Data: []byte{1}}}},
	} {
		b, _ := bson.Marshal(bson.D{{Key: "ping", Value: 1}, {Key: "lsid", Value: lsid}, {Key: "$db", Value: "admin"}})
		d, err := commandToD(b, 0, nil)
		if err != nil {
			t.Fatalf("commandToD(lsid %v): %v", lsid, err)
		}
		if _, raw := lookup(d, "lsid").(bson.Raw); raw || !reflect.DeepEqual(lookup(d, "lsid"), lsid) {
			t.Fatalf("lsid %v came out as %#v", lsid, lookup(d, "lsid"))
		}
	}
	// An lsid whose inside is not BSON (Validate does not look into
	// embedded documents) is refused, as by rawToD.
	bad := append([]byte(nil), raw...)
	i := bytes.Index(bad, []byte("lsid\x00")) + 5
	copy(bad[i+4:], "00000000000000000000000000")
	if _, err := commandToD(bad, 0, nil); err == nil {
		t.Fatal("commandToD accepted a corrupt lsid")
	}
}

// TestCommandStringsShared: with a connection's cache, the top-level
// strings of a command (collection and database names) are boxed once
// and shared by later requests; the result is the same command. Not
// parallel: it counts allocations.
func TestCommandStringsShared(t *testing.T) {
	raw, err := bson.Marshal(bson.D{{Key: "find", Value: "docs"}, {Key: "filter", Value: bson.D{{Key: "s", Value: "x"}}},
		{Key: "comment", Value: strings.Repeat("c", maxCachedString+1)}, {Key: "$db", Value: "bench"}})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := rawToD(raw)
	var cache stringCache
	for range 2 * maxCachedStrings {
		got, err := commandToD(raw, 0, &cache)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("commandToD with a cache = %v, %v; want %v", got, err, want)
		}
	}
	if len(cache.m) != 2 {
		t.Fatalf("cache holds %d strings, want 2 (the long comment is not kept)", len(cache.m))
	}
	with := testing.AllocsPerRun(100, func() { commandToD(raw, 0, &cache) })
	without := testing.AllocsPerRun(100, func() { commandToD(raw, 0, nil) })
	if with != without-4 {
		t.Fatalf("allocations with the cache %v, without %v; want 4 fewer (two strings, each boxed)", with, without)
	}
	// A full cache starts over; a string cut short is refused as before.
	for i := range maxCachedStrings + 1 {
		b, _ := bson.Marshal(bson.D{{Key: "find", Value: fmt.Sprint("c", i)}, {Key: "$db", Value: "bench"}})
		if _, err := commandToD(b, 0, &cache); err != nil {
			t.Fatal(err)
		}
	}
	if len(cache.m) > maxCachedStrings {
		t.Fatalf("cache grew to %d strings", len(cache.m))
	}
	// Malformed strings come out as without the cache.
	for _, mutate := range []func(b []byte, i int){
		func(b []byte, i int) { b[i+4] = 'x' },  // no NUL
		func(b []byte, i int) { b[i-4] = 0x7f }, // a length past the end
		func(b []byte, i int) { b[i-4] = 0 },    // length 0
		func(b []byte, i int) { b[i-4] = 3 },    // shorter than the bytes
	} {
		bad := append([]byte(nil), raw...)
		mutate(bad, bytes.Index(bad, []byte("docs\x00")))
		d1, err1 := commandToD(bad, 0, &cache)
		d2, err2 := rawToD(bad)
		if (err1 == nil) != (err2 == nil) || (err1 == nil && !reflect.DeepEqual(d1, d2)) {
			t.Fatalf("malformed string: commandToD %v, %v; rawToD %v, %v", d1, err1, d2, err2)
		}
	}
}

// TestShownInsertDocuments: an insert's documents, kept as BSON for the
// engine, show in currentOp's copy of the command decoded, so that a
// currentOp filter on a field inside them matches as on mongod; the
// command kept for the engine is not changed.
func TestShownInsertDocuments(t *testing.T) {
	t.Parallel()
	a, err := bson.Marshal(bson.D{{Key: "_id", Value: int32(1)}, {Key: "kind", Value: "login"}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := bson.Marshal(bson.D{{Key: "_id", Value: int32(2)}, {Key: "kind", Value: "logout"}})
	if err != nil {
		t.Fatal(err)
	}
	cmd := bson.D{{Key: "insert", Value: "events"}, {Key: "documents", Value: bson.A{bson.Raw(a), bson.Raw(b)}}, {Key: "$db", Value: "test"}}
	shown := shownCommand(cmd)
	want := bson.A{bson.D{{Key: "_id", Value: int32(1)}, {Key: "kind", Value: "login"}}, bson.D{{Key: "_id", Value: int32(2)}, {Key: "kind", Value: "logout"}}}
	if got := lookup(shown, "documents"); !reflect.DeepEqual(got, want) {
		t.Fatalf("shown documents %#v, want %#v", got, want)
	}
	if _, ok := lookup(cmd, "documents").(bson.A)[0].(bson.Raw); !ok {
		t.Fatal("the engine's copy of the command was changed")
	}
	op := bson.D{{Key: "op", Value: "command"}, {Key: "command", Value: shown}}
	for filter, match := range map[string]bool{`{"command.documents.kind": "logout"}`: true, `{"command.documents.kind": "other"}`: false} {
		var f bson.D
		if err := bson.UnmarshalExtJSON([]byte(filter), false, &f); err != nil {
			t.Fatal(err)
		}
		q, err := query.ParseFilter(f)
		if err != nil {
			t.Fatal(err)
		}
		if got := q.Match(op); got != match {
			t.Errorf("%s matches %v, want %v", filter, got, match)
		}
	}
}
