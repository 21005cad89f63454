package changestream

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/document"
)

// oldEncode is the stored form as it was first written: the whole event
// as one document of the codec. Encode must keep writing the same bytes,
// so logs written before still read.
func oldEncode(t *testing.T, c *Change) []byte {
	t.Helper()
	d := bson.D{{Key: "o", Value: string(c.Op)}, {Key: "db", Value: c.DB}, {Key: "c", Value: c.Coll}}
	if c.ToDB != "" || c.ToColl != "" {
		d = append(d, bson.E{Key: "tdb", Value: c.ToDB}, bson.E{Key: "tc", Value: c.ToColl})
	}
	if c.DocumentKey != nil {
		d = append(d, bson.E{Key: "k", Value: c.DocumentKey})
	}
	if c.FullDocument != nil {
		d = append(d, bson.E{Key: "f", Value: c.FullDocument})
	}
	if c.Before != nil {
		d = append(d, bson.E{Key: "b", Value: c.Before})
	}
	if c.Expiry != nil {
		d = append(d, bson.E{Key: "x", Value: expiryDoc(c.Expiry)})
	}
	d = append(d, bson.E{Key: "w", Value: bson.NewDateTimeFromTime(c.WallTime)})
	b, err := document.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestEncodeRawSameBytes(t *testing.T) {
	t.Parallel()
	wall := time.UnixMilli(1700000000123)
	long := strings.Repeat("x", 300)
	full := bson.D{{Key: "_id", Value: int32(7)}, {Key: "s", Value: long}, {Key: "sub", Value: bson.D{{Key: "a", Value: bson.A{1.5, "b"}}}}}
	raw, err := document.Marshal(full)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []*Change{
		{Op: Insert, DB: "d", Coll: "c", DocumentKey: bson.D{{Key: "_id", Value: int32(7)}}, FullDocument: full, WallTime: wall},
		{Op: Delete, DB: strings.Repeat("d", 40), Coll: long, DocumentKey: bson.D{{Key: "_id", Value: int32(7)}}, Before: full, Expiry: &Expiry{Index: "exp_1"}, WallTime: wall},
		{Op: Delete, DB: "d", Coll: "c", DocumentKey: bson.D{{Key: "_id", Value: int32(7)}}, Before: full, Expiry: &Expiry{Bucket: true}, WallTime: time.UnixMilli(-5)},
		{Op: Rename, DB: "d", Coll: "c", ToDB: "e", ToColl: "f", WallTime: wall},
	} {
		want := oldEncode(t, c)
		got, err := c.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: Encode differs from the codec's encoding of the event document:\n got %x\nwant %x", c.Op, got, want)
		}
		// The same change with the document given as its encoded bytes.
		rc := *c
		if rc.FullDocument != nil {
			rc.FullDocument, rc.FullRaw = nil, raw
		}
		if rc.Before != nil {
			rc.Before, rc.BeforeRaw = nil, raw
		}
		got, err = rc.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s from raw bytes: Encode differs:\n got %x\nwant %x", c.Op, got, want)
		}
		s, err := decode(got)
		if err != nil {
			t.Fatal(err)
		}
		if s.op != c.Op || s.db != c.DB || s.coll != c.Coll || s.toColl != c.ToColl || s.wall != bson.NewDateTimeFromTime(c.WallTime) {
			t.Errorf("%s: decoded %+v", c.Op, s)
		}
		if c.FullDocument != nil && !reflect.DeepEqual(s.full, full) {
			t.Errorf("%s: fullDocument %v, want %v", c.Op, s.full, full)
		}
		if c.Before != nil && !reflect.DeepEqual(s.prev, full) {
			t.Errorf("%s: pre-image %v, want %v", c.Op, s.prev, full)
		}
	}
}

func TestDecodeCorrupt(t *testing.T) {
	t.Parallel()
	good, err := (&Change{Op: Insert, DB: "d", Coll: "c", FullDocument: bson.D{{Key: "_id", Value: 1.0}}}).Encode()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(good); i++ {
		if _, err := decode(good[:i]); err == nil {
			t.Errorf("decode of the first %d of %d bytes: no error", i, len(good))
		}
	}
	if _, err := decode([]byte{0x81, 0xa1, 'z', 0x01}); err == nil {
		t.Error("decode of a change without an operation type: no error")
	}
}
