package document

import (
	"bytes"
	"errors"
	"math/rand"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// checkTranscode asserts AppendBSON's contract for b: an error wrapping
// ErrCorrupt where Unmarshal fails, an error where bson.Marshal of the
// decoded document fails, and otherwise bson.Marshal's bytes exactly,
// appended after a prefix that stays intact.
func checkTranscode(t *testing.T, b []byte) {
	t.Helper()
	prefix := []byte("pre")
	got, err := AppendBSON(prefix, b)
	if len(got) < len(prefix) || !bytes.Equal(got[:len(prefix)], prefix) {
		t.Fatalf("AppendBSON(% x) lost its prefix: % x", b, got)
	}
	d, uerr := Unmarshal(b)
	if uerr != nil {
		if !errors.Is(err, ErrCorrupt) {
			t.Fatalf("AppendBSON(% x) = % x, %v; Unmarshal fails with %v", b, got, err, uerr)
		}
		if len(got) != len(prefix) {
			t.Fatalf("AppendBSON(% x) failed but grew dst to % x", b, got)
		}
		return
	}
	want, merr := bson.Marshal(d)
	if merr != nil {
		if err == nil {
			t.Fatalf("AppendBSON(% x) succeeded, bson.Marshal(%#v) fails: %v", b, d, merr)
		}
		if CodeOf(err) != CodeBadValue {
			t.Fatalf("AppendBSON(% x): %v, want CodeBadValue", b, err)
		}
		return
	}
	if err != nil {
		t.Fatalf("AppendBSON(% x) of %#v: %v", b, d, err)
	}
	if !bytes.Equal(got[len(prefix):], want) {
		t.Fatalf("AppendBSON of %#v:\n got % x\nwant % x", d, got[len(prefix):], want)
	}
}

// checkTranscodeFields asserts AppendBSONFields's contract: the bytes
// bson.Marshal gives for the decoded document's kept fields.
func checkTranscodeFields(t *testing.T, b []byte, keep func([]byte) bool) {
	t.Helper()
	got, err := AppendBSONFields(nil, b, keep)
	d, uerr := Unmarshal(b)
	if uerr != nil {
		if !errors.Is(err, ErrCorrupt) {
			t.Fatalf("AppendBSONFields(% x) = % x, %v; Unmarshal fails with %v", b, got, err, uerr)
		}
		return
	}
	kept := bson.D{}
	for _, e := range d {
		if keep([]byte(e.Key)) {
			kept = append(kept, e)
		}
	}
	want, merr := bson.Marshal(kept)
	if merr != nil {
		if err == nil {
			t.Fatalf("AppendBSONFields(% x) succeeded, bson.Marshal(%#v) fails: %v", b, kept, merr)
		}
		return
	}
	if err != nil {
		t.Fatalf("AppendBSONFields(% x) of %#v: %v", b, kept, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("AppendBSONFields of %#v:\n got % x\nwant % x", kept, got, want)
	}
}

func keepEvenLength(name []byte) bool { return len(name)%2 == 0 }

func keepID(name []byte) bool { return string(name) == "_id" }

// TestAppendBSONMatchesDriver transcodes a document of every type, the
// FuzzUnmarshal seeds and random documents, and compares with
// bson.Marshal(Unmarshal(b)).
func TestAppendBSONMatchesDriver(t *testing.T) {
	t.Parallel()
	docs := []bson.D{
		{},
		allTypesDoc(),
		{{Key: "old", Value: bson.Binary{Subtype: 2, Data: []byte{1, 2}}}, {Key: "old0", Value: bson.Binary{Subtype: 2}}},
		{{Key: "re", Value: bson.Regex{Pattern: "a", Options: "xmi"}}, {Key: "re2", Value: bson.Regex{Pattern: "b", Options: "ü\xffsa"}}},
		{{Key: "arr", Value: make(bson.A, 123)}},
		{{Key: "n", Value: nestDocs(MaxReadDepth-1, false)}},
		{{Key: "cws", Value: bson.CodeWithScope{Code: "abc", Scope: bson.D{{Key: "x", Value: bson.Regex{Pattern: "p", Options: "si"}}}}}},
		{{Key: "a", Value: int32(1)}, {Key: "b", Value: "x"}},
		{{Key: "d", Value: bson.D{{Key: "e", Value: bson.A{1.5, nil, true}}}}},
		{{Key: "t", Value: bson.DateTime(1)}, {Key: "o", Value: bson.ObjectID{1}}, {Key: "m", Value: mustDec("1.5")}},
	}
	docs = appendRandDocs(t, docs)
	for _, d := range docs {
		b, err := Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		checkTranscode(t, b)
		checkTranscodeFields(t, b, keepEvenLength)
		checkTranscodeFields(t, b, keepID)
	}
}

// TestAppendBSONRejectsCorrupt feeds the decoder's corrupt cases, every
// truncation of valid encodings and trailing bytes: each is an error
// wrapping ErrCorrupt, as from Unmarshal.
func TestAppendBSONRejectsCorrupt(t *testing.T) {
	t.Parallel()
	for _, tc := range corruptEncodings() {
		if out, err := AppendBSON(nil, tc.in); !errors.Is(err, ErrCorrupt) || len(out) != 0 {
			t.Errorf("%s: AppendBSON(% x) = % x, %v; want ErrCorrupt", tc.name, tc.in, out, err)
		}
		if _, err := AppendBSONFields(nil, tc.in, keepID); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: AppendBSONFields(% x): %v; want ErrCorrupt", tc.name, tc.in, err)
		}
	}
	r := rand.New(rand.NewSource(seed(t)))
	for i := 0; i < 200; i++ {
		b, err := Marshal(randDoc(r, 3, 5))
		if err != nil {
			t.Fatal(err)
		}
		for n := 0; n < len(b); n++ {
			checkTranscode(t, b[:n])
			checkTranscodeFields(t, b[:n], keepEvenLength)
		}
		checkTranscode(t, append(b, 0xc0))
	}
}

// TestAppendBSONNulBytes: BSON cannot carry a NUL in a field name or a
// regex; bson.Marshal refuses them and so does AppendBSON, unless the
// field is left out.
func TestAppendBSONNulBytes(t *testing.T) {
	t.Parallel()
	for _, d := range []bson.D{
		{{Key: "a\x00b", Value: int32(1)}},
		{{Key: "x", Value: bson.D{{Key: "\x00", Value: nil}}}},
		{{Key: "x", Value: bson.Regex{Pattern: "a\x00"}}},
		{{Key: "x", Value: bson.Regex{Pattern: "a", Options: "\x00i"}}},
	} {
		b, err := Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := AppendBSON(nil, b); CodeOf(err) != CodeBadValue {
			t.Errorf("AppendBSON(%#v): %v, want CodeBadValue", d, err)
		}
		checkTranscode(t, b)
		out, err := AppendBSONFields(nil, b, keepID)
		if err != nil || !bytes.Equal(out, []byte{5, 0, 0, 0, 0}) {
			t.Errorf("AppendBSONFields(%#v, _id) = % x, %v; want an empty document", d, out, err)
		}
	}
}

// FuzzTranscode feeds arbitrary bytes to AppendBSON and
// AppendBSONFields: they never panic, fail exactly where Unmarshal (or
// bson.Marshal of its result) fails, and otherwise give bson.Marshal's
// bytes. The corpus starts from FuzzUnmarshal's.
func FuzzTranscode(f *testing.F) {
	for _, d := range []bson.D{{}, allTypesDoc(), {{Key: "a", Value: bson.A{int32(1), "x"}}}} {
		b, err := Marshal(d)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkTranscode(t, b)
		checkTranscodeFields(t, b, keepEvenLength)
	})
}
