package document

import (
	"math"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestHashedKeyVectors checks HashedKey against the values MongoDB's
// own unit tests fix for its hashed index function, so that a hashed
// key here is the one mongod, convertShardKeyToHashed and a sharded
// cluster's chunk bounds use.
func TestHashedKeyVectors(t *testing.T) {
	t.Parallel()
	oid := func(s string) bson.ObjectID {
		id, err := bson.ObjectIDFromHex(s)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	dec := func(s string) bson.Decimal128 {
		d, err := bson.ParseDecimal128(s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	// Decimals round half to even: 1.5 and 2.5 both have 2's key.
	two := HashedKey(int32(2))
	cases := []struct {
		name string
		v    any
		want int64
	}{
		{"int 42", int32(42), -944302157085130861},
		{"double 42.123 truncates", 42.123, -944302157085130861},
		{"long 42", int64(42), -944302157085130861},
		{"decimal 42", dec("42"), -944302157085130861},
		{"int 0", int32(0), 4854801880128277513},
		{"double 0.456", 0.456, 4854801880128277513},
		{"NaN is 0", math.NaN(), 4854801880128277513},
		{"decimal NaN is 0", dec("NaN"), 4854801880128277513},
		{"int 1", int32(1), 5902408780260971510},
		{"double 1.987", 1.987, 5902408780260971510},
		{"decimal 1.4 rounds", dec("1.4"), 5902408780260971510},
		{"decimal 0.5 rounds to even", dec("0.5"), 4854801880128277513},
		{"decimal 1.5 rounds to even", dec("1.5"), two},
		{"decimal 2.5 rounds to even", dec("2.5"), two},
		{"int -1", int32(-1), 1140205862565771219},
		{"double -1.789", -1.789, 1140205862565771219},
		{"int32 min", int32(math.MinInt32), 6165898260261354870},
		{"double int32 min", float64(math.MinInt32), 6165898260261354870},
		{"int32 max", int32(math.MaxInt32), 1143184177162245883},
		{"double max clamps", math.MaxFloat64, 921523596458303250},
		{"long max", int64(math.MaxInt64), 921523596458303250},
		{"+Inf clamps", math.Inf(1), 921523596458303250},
		{"decimal 1e40 clamps", dec("1E+40"), 921523596458303250},
		{"double lowest clamps", -math.MaxFloat64, 4532067210535695462},
		{"long min", int64(math.MinInt64), 4532067210535695462},
		{"double 2^63 is -2^63", float64(1 << 63), 4532067210535695462},
		{"MinKey", bson.MinKey{}, 7961148599568647290},
		{"MaxKey", bson.MaxKey{}, 5504842513779440750},
		{"undefined", bson.Undefined{}, 40158834000849533},
		{"string", "abc", 8478485326885698097},
		{"symbol", bson.Symbol("abc"), 8478485326885698097},
		{"empty string", "", 2049396243249673340},
		{"object", bson.D{{Key: "a", Value: "abc"}, {Key: "b", Value: int64(123)}}, 4771603801758380216},
		{"empty object", bson.D{}, 7980500913326740417},
		{"array", bson.A{"bar", "baz", "qux"}, -2938911267422831539},
		{"empty array", bson.A{}, 8849948234993459283},
		{"binary", bson.Binary{Subtype: 0, Data: []byte{0, 1, 2, 3, 4, 6}}, 7252465090394235301},
		{"binary custom", bson.Binary{Subtype: 0x80, Data: []byte{0, 1, 2, 3, 4, 6}}, 5736670452907618262},
		{"uuid", bson.Binary{Subtype: 4, Data: []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}}, 6084661258071355978},
		{"objectId", oid("010203040506070809101112"), -5588663249627035708},
		{"zero objectId", oid("000000000000000000000000"), -4293118519463489418},
		{"true", true, 6405873908747105701},
		{"false", false, 6289544573401934092},
		{"date", bson.DateTime(0x5566778811223344), 4476222765095560467},
		{"date 0", bson.DateTime(0), -1178696894582842035},
		{"regex", bson.Regex{Pattern: "mongodb"}, -7275792090268217043},
		{"regex with options", bson.Regex{Pattern: ".*", Options: "i"}, 7095855029187981886},
		{"dbPointer", bson.DBPointer{DB: "c", Pointer: oid("010203040506070809101112")}, 940175826736461384},
		{"dbPointer with a db", bson.DBPointer{DB: "db.c", Pointer: oid("010203040506070809101112")}, 2426768198104018194},
		{"code", bson.JavaScript("func f() { return 1; }"), 6861638109178014270},
		{"code with scope", bson.CodeWithScope{Code: "func f() { return 1; }", Scope: bson.D{{Key: "c", Value: true}}}, 501342939894575968},
		{"Go int", 42, -944302157085130861},
		// From MongoDB's tests of $toHashedIndexKey (newer than the above:
		// a timestamp hashes with its own type class, 47, not a date's).
		{"string literal", "hashThisStringLiteral", -5776344739422278694},
		{"int 123", int32(123), -6548868637522515075},
		{"timestamp 0", bson.Timestamp{}, -7867208682377458672},
		{"objectId 47cc", oid("47cc67093475061e3d95369d"), 1576265281381834298},
		{"null", nil, 2338878944348059895},
		{"double 16", 16.0, 2598032665634823220},
	}
	for _, c := range cases {
		if got := HashedKey(c.v); got != c.want {
			t.Errorf("%s: HashedKey(%v) = %d, want %d", c.name, c.v, got, c.want)
		}
	}
	if two == HashedKey(int32(1)) || two == HashedKey(int32(3)) {
		t.Fatalf("keys of 1, 2 and 3 are not distinct")
	}
}

// TestHashedKeyNullAndMissing checks that null's key differs from every
// other scalar's above: a missing field is indexed as null.
func TestHashedKeyNullAndMissing(t *testing.T) {
	t.Parallel()
	null := HashedKey(nil)
	if null != HashedKey(bson.Null{}) {
		t.Fatalf("nil and bson.Null hash apart")
	}
	for _, v := range []any{int32(0), "", false, bson.Undefined{}, bson.MinKey{}} {
		if HashedKey(v) == null {
			t.Errorf("HashedKey(%v) equals null's", v)
		}
	}
}
