package document

import (
	"bytes"
	"encoding/binary"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

var testNewID = bson.ObjectID{0xfe, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}

func fixedID() bson.ObjectID { return testNewID }

// refInsertBSON is the path AppendInsertBSON replaces: decode the BSON
// (bson.Unmarshal, Normalize), put the first _id first or add one, check
// with ValidateForStorage and encode with Marshal (the engine's
// prepareInsert, whose engine test compares the two paths too).
func refInsertBSON(raw []byte) ([]byte, any, error) {
	d, err := Normalize(bson.Raw(raw))
	if err != nil {
		return nil, nil, err
	}
	idPos := -1
	for i, e := range d {
		if e.Key == "_id" {
			idPos = i
			break
		}
	}
	switch {
	case idPos < 0:
		d = append(bson.D{{Key: "_id", Value: testNewID}}, d...)
	case idPos > 0:
		nd := bson.D{d[idPos]}
		nd = append(nd, d[:idPos]...)
		d = append(nd, d[idPos+1:]...)
	}
	if err := ValidateForStorage(d); err != nil {
		return nil, nil, err
	}
	b, err := Marshal(d)
	if err != nil {
		return nil, nil, err
	}
	return b, d[0].Value, nil
}

// checkInsertBSON asserts AppendInsertBSON's contract for raw against
// refInsertBSON. strict says raw is valid BSON (made by bson.Marshal),
// so the two must agree on success and on the error's code and message;
// otherwise AppendInsertBSON may refuse with CodeInvalidBSON what the
// driver's lenient decoder takes, and for input both refuse only a
// failure is required.
func checkInsertBSON(t *testing.T, raw []byte, strict bool) {
	t.Helper()
	prefix := []byte("pre")
	got, id, err := AppendInsertBSON(prefix, raw, fixedID)
	if len(got) < len(prefix) || !bytes.Equal(got[:len(prefix)], prefix) {
		t.Fatalf("AppendInsertBSON(% x) lost its prefix: % x", raw, got)
	}
	want, wid, werr := refInsertBSON(raw)
	switch {
	case err == nil && werr != nil:
		t.Fatalf("AppendInsertBSON(% x) succeeded; the decoding path fails: %v", raw, werr)
	case err == nil:
		if !bytes.Equal(got[len(prefix):], want) {
			t.Fatalf("AppendInsertBSON(% x):\n got % x\nwant % x", raw, got[len(prefix):], want)
		}
		if !identical(id, wid) {
			t.Fatalf("AppendInsertBSON(% x): _id %#v, want %#v", raw, id, wid)
		}
	case len(got) != len(prefix):
		t.Fatalf("AppendInsertBSON(% x) failed (%v) but grew dst", raw, err)
	case werr == nil:
		if strict || CodeOf(err) != CodeInvalidBSON {
			t.Fatalf("AppendInsertBSON(% x): %v; the decoding path succeeds", raw, err)
		}
	case strict || CodeOf(werr) != CodeBadValue:
		// A rule of the valid document: same code, same message.
		if err.Error() != werr.Error() {
			t.Fatalf("AppendInsertBSON(% x): %v, want %v", raw, err, werr)
		}
	}
}

func mustBSON(t testing.TB, d bson.D) []byte {
	t.Helper()
	if b, ok := flatBSON(d); ok && len(b) > 1<<20 {
		return b
	}
	b, err := bson.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// flatBSON encodes d, if it holds only int32 and string fields, in one
// allocation: the driver's Marshal copies a 16 MiB document three times
// over growing buffers, seconds under -race for each of the rule
// documents at the size limit. TestFlatBSONMatchesDriver checks it.
func flatBSON(d bson.D) ([]byte, bool) {
	n := 5
	for _, e := range d {
		switch v := e.Value.(type) {
		case int32:
			n += 2 + len(e.Key) + 4
		case string:
			n += 2 + len(e.Key) + 4 + len(v) + 1
		default:
			return nil, false
		}
	}
	b := binary.LittleEndian.AppendUint32(make([]byte, 0, n), uint32(n))
	for _, e := range d {
		switch v := e.Value.(type) {
		case int32:
			b = append(append(append(b, 0x10), e.Key...), 0)
			b = binary.LittleEndian.AppendUint32(b, uint32(v))
		case string:
			b = append(append(append(b, 0x02), e.Key...), 0)
			b = binary.LittleEndian.AppendUint32(b, uint32(len(v)+1))
			b = append(append(b, v...), 0)
		}
	}
	return append(b, 0), true
}

func TestFlatBSONMatchesDriver(t *testing.T) {
	t.Parallel()
	for _, d := range []bson.D{{}, {{Key: "_id", Value: int32(-7)}, {Key: "s", Value: "xyz"}}, {{Key: "s", Value: ""}, {Key: "a.b", Value: int32(1 << 30)}}} {
		got, ok := flatBSON(d)
		want, err := bson.Marshal(d)
		if !ok || err != nil || !bytes.Equal(got, want) {
			t.Fatalf("flatBSON(%v) = % x %v, driver % x %v", d, got, ok, want, err)
		}
	}
	if _, ok := flatBSON(bson.D{{Key: "f", Value: 1.5}}); ok {
		t.Fatal("flatBSON encoded a double")
	}
}

// insertRuleDocs are documents that exercise every insert rule: _id
// missing, not first, twice, of a refused type; nesting at and past
// both limits, empty containers at the limit; a size at and past
// 16 MiB; and every BSON type.
func insertRuleDocs() []bson.D {
	big := strings.Repeat("x", MaxDocumentSize-40)
	return []bson.D{
		{},
		allTypesDoc(),
		{{Key: "a", Value: int32(1)}},
		{{Key: "a", Value: int32(1)}, {Key: "_id", Value: "second"}, {Key: "b", Value: bson.A{}}},
		{{Key: "_id", Value: int32(1)}, {Key: "_id", Value: int32(2)}},
		{{Key: "x", Value: int32(0)}, {Key: "_id", Value: bson.D{{Key: "k", Value: bson.A{int32(1)}}}}},
		{{Key: "_id", Value: bson.A{int32(1)}}},
		{{Key: "a", Value: nestDocs(200, false)}, {Key: "_id", Value: bson.A{}}},
		{{Key: "_id", Value: bson.Regex{Pattern: "a", Options: "i"}}},
		{{Key: "_id", Value: bson.Undefined{}}},
		{{Key: "_id", Value: bson.Undefined{}}, {Key: "deep", Value: nestDocs(150, false)}},
		{{Key: "_id", Value: nil}},
		{{Key: "n", Value: nestDocs(MaxWriteDepth-1, false)}},
		{{Key: "n", Value: nestDocs(MaxWriteDepth, false)}},
		{{Key: "n", Value: nestDocs(MaxWriteDepth, true)}},
		{{Key: "n", Value: nestDocs(MaxWriteDepth+1, true)}},
		{{Key: "n", Value: nestDocs(MaxReadDepth-1, false)}},
		{{Key: "n", Value: nestDocs(MaxReadDepth, false)}},
		{{Key: "n", Value: nestDocs(MaxReadDepth+5, true)}},
		nestArrays(MaxWriteDepth, false),
		nestArrays(MaxWriteDepth+1, false),
		nestArrays(MaxWriteDepth+1, true),
		nestArrays(MaxReadDepth+1, true),
		{{Key: "cws", Value: bson.CodeWithScope{Code: "c", Scope: nestDocs(MaxWriteDepth+3, false)}}},
		{{Key: "_id", Value: int32(1)}, {Key: "s", Value: big}},
		{{Key: "s", Value: big[:MaxDocumentSize-40-17]}},
		{{Key: "s", Value: big[:MaxDocumentSize-40-16]}},
		{{Key: "_id", Value: int32(1)}, {Key: "s", Value: big + "12345678901234567890"}},
		{{Key: "$set", Value: int32(1)}, {Key: "a.b", Value: int32(2)}, {Key: "", Value: int32(3)}},
		{{Key: "old", Value: bson.Binary{Subtype: 2, Data: []byte{1, 2}}}, {Key: "old0", Value: bson.Binary{Subtype: 2}}},
		{{Key: "re", Value: bson.Regex{Pattern: "a", Options: "xmi"}}},
		{{Key: "many", Value: make(bson.A, 70000)}},
		{{Key: "ints", Value: bson.A{int32(0), int32(127), int32(128), int32(255), int32(256), int32(65535), int32(65536), int32(-1), int32(-32), int32(-33), int32(-128), int32(-129), int32(-32768), int32(-32769)}}},
	}
}

// TestAppendInsertBSONMatchesDecoding compares AppendInsertBSON with the
// decoding path on the rule documents and random ones.
func TestAppendInsertBSONMatchesDecoding(t *testing.T) {
	t.Parallel()
	docs := insertRuleDocs()
	if raceOn {
		// Under the race detector each 16 MiB document costs about a
		// second on one goroutine: the one 20 bytes past the limit
		// with its own _id goes; the pair at the limit and one byte
		// past it stays, and the engine's raw insert tests
		// (TestRunCommandRawInsert) send one past it with an _id
		// through AppendInsertBSON under -race too.
		docs = slices.DeleteFunc(docs, func(d bson.D) bool {
			if len(d) != 2 || d[0].Key != "_id" {
				return false
			}
			s, _ := d[1].Value.(string)
			return len(s) > MaxDocumentSize-40
		})
	}
	docs = appendRandDocs(t, docs)
	for _, d := range docs {
		checkInsertBSON(t, mustBSON(t, d), true)
	}
}

// TestAppendInsertBSONRules checks each rule's code directly.
func TestAppendInsertBSONRules(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		d    bson.D
		code Code
	}{
		{"id array", bson.D{{Key: "_id", Value: bson.A{}}}, CodeInvalidIDField},
		{"id regex", bson.D{{Key: "_id", Value: bson.Regex{Pattern: "a"}}}, CodeInvalidIDField},
		{"id undefined", bson.D{{Key: "_id", Value: bson.Undefined{}}}, CodeInvalidIDField},
		{"too deep", nestDocs(MaxWriteDepth+1, false), CodeOverflow},
		{"far too deep", nestDocs(MaxReadDepth+1, true), CodeOverflow},
		{"too large", bson.D{{Key: "s", Value: strings.Repeat("x", MaxDocumentSize)}}, CodeBadValue},
		{"ok", bson.D{{Key: "$x", Value: int32(1)}}, 0},
	} {
		_, _, err := AppendInsertBSON(nil, mustBSON(t, tc.d), fixedID)
		if CodeOf(err) != tc.code {
			t.Errorf("%s: %v, want code %d", tc.name, err, tc.code)
		}
	}
	// The generated _id comes first, then the fields in their order.
	out, id, err := AppendInsertBSON(nil, mustBSON(t, bson.D{{Key: "a", Value: int32(1)}}), fixedID)
	if err != nil || id != testNewID {
		t.Fatalf("AppendInsertBSON: %v, _id %v", err, id)
	}
	d, err := Unmarshal(out)
	if err != nil || !identical(d, bson.D{{Key: "_id", Value: testNewID}, {Key: "a", Value: int32(1)}}) {
		t.Fatalf("stored %#v, %v", d, err)
	}
}

// handBSON builds a document from raw elements (type, key, value bytes).
func handBSON(elems ...[]byte) []byte {
	b := []byte{0, 0, 0, 0}
	for _, e := range elems {
		b = append(b, e...)
	}
	b = append(b, 0)
	binary.LittleEndian.PutUint32(b, uint32(len(b)))
	return b
}

func elem(typ byte, key string, val []byte) []byte {
	return append(append(append([]byte{typ}, key...), 0), val...)
}

// TestAppendInsertBSONRejectsInvalid feeds malformed BSON: each is an
// error with CodeInvalidBSON (never a panic, never stored), whatever
// the driver's lenient decoder makes of it; truncations and trailing
// bytes of valid documents too.
func TestAppendInsertBSONRejectsInvalid(t *testing.T) {
	t.Parallel()
	i32 := func(n int32) []byte { return binary.LittleEndian.AppendUint32(nil, uint32(n)) }
	bad := map[string][]byte{
		"empty":           {},
		"short":           {4, 0, 0, 0},
		"length lies":     {6, 0, 0, 0, 0},
		"no final NUL":    {5, 0, 0, 0, 1},
		"unknown type":    handBSON(elem(0x20, "a", nil)),
		"bool 2":          handBSON(elem(bsonBoolean, "b", []byte{2})),
		"string no NUL":   handBSON(elem(bsonString, "s", append(i32(2), 'x', 'y'))),
		"string len 0":    handBSON(elem(bsonString, "s", append(i32(0), 0))),
		"string too long": handBSON(elem(bsonString, "s", append(i32(100), 'x', 0))),
		"key no NUL":      {7, 0, 0, 0, 0x10, 'a', 0},
		"inner doc lies":  handBSON(elem(bsonDocument, "d", append(i32(9), 0, 0, 0, 0, 0))),
		"binary lies":     handBSON(elem(bsonBinary, "b", append(i32(50), 0, 1))),
		"old binary":      handBSON(elem(bsonBinary, "b", append(append(i32(6), 2), append(i32(5), 1, 2)...))),
		"cws lies":        handBSON(elem(bsonCodeScope, "c", append(append(i32(30), append(i32(2), 'x', 0)...), 5, 0, 0, 0, 0))),
		"trailing":        append(mustBSON(t, bson.D{{Key: "a", Value: int32(1)}}), 0),
	}
	for name, b := range bad {
		if out, _, err := AppendInsertBSON(nil, b, fixedID); CodeOf(err) != CodeInvalidBSON || len(out) != 0 {
			t.Errorf("%s: AppendInsertBSON(% x) = % x, %v; want InvalidBSON", name, b, out, err)
		}
		checkInsertBSON(t, b, false)
	}
	r := rand.New(rand.NewSource(seed(t)))
	for i := 0; i < 200; i++ {
		b := mustBSON(t, randDoc(r, 3, 5))
		for n := 0; n < len(b); n++ {
			if _, _, err := AppendInsertBSON(nil, b[:n], fixedID); CodeOf(err) != CodeInvalidBSON {
				t.Fatalf("truncated to %d: AppendInsertBSON(% x): %v; want InvalidBSON", n, b[:n], err)
			}
		}
	}
}

// FuzzInsertBSON feeds arbitrary bytes to AppendInsertBSON: it never
// panics, succeeds only where the decoding path succeeds and then gives
// its bytes, and refuses the decoding path's rule violations with the
// same code and message.
func FuzzInsertBSON(f *testing.F) {
	for _, d := range []bson.D{{}, allTypesDoc(), {{Key: "a", Value: bson.A{int32(1), "x"}}, {Key: "_id", Value: int32(3)}},
		{{Key: "_id", Value: bson.A{}}}, nestDocs(MaxWriteDepth+1, false)} {
		f.Add(mustBSON(f, d))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkInsertBSON(t, b, false)
	})
}
