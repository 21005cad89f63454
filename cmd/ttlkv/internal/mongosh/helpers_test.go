package mongosh

import "testing"

// TestHelpersAsMongosh checks helpers mongosh has and ttlkv's shell
// lacked, against what mongosh 2.12.0 printed with ttlkv serve: the
// sharding and search helpers send their commands (the engine refuses
// them as the server does), setSecondaryOk warns and moves the read
// preference, and ObjectId, Decimal128 and Long have their static and
// arithmetic methods.
func TestHelpersAsMongosh(t *testing.T) {
	t.Parallel()
	s, out, _ := testShell(t, Options{})
	const catch = `; } catch (e) { print(e.name, e.code, e.message) }`
	cases := []struct{ src, want string }{
		{`try { db.c.getShardVersion()` + catch, "MongoServerError 59 no such command: 'getShardVersion'"},
		{`try { db.c.analyzeShardKey({a: 1})` + catch, "MongoServerError 59 no such command: 'analyzeShardKey'"},
		{`try { db.c.createSearchIndex("n", {mappings: {dynamic: true}})` + catch, "MongoServerError 59 no such command: 'createSearchIndexes'"},
		{`try { db.c.dropSearchIndex("n")` + catch, "MongoServerError 59 no such command: 'dropSearchIndex'"},
		{`try { db.checkMetadataConsistency()` + catch, "MongoServerError 59 no such command: 'checkMetadataConsistency'"},
		{`db.getMongo().setSecondaryOk(); db.setSecondaryOk(); print(db.getMongo().getReadPrefMode())`,
			"DeprecationWarning: .setSecondaryOk() is deprecated. Use .setReadPref(\"primaryPreferred\") instead\n" +
				"Setting read preference from \"primary\" to \"primaryPreferred\"\n" +
				"Leaving read preference unchanged (is already \"primaryPreferred\")\nprimaryPreferred"},
		{`print(ObjectId.createFromTime(5), Decimal128.fromString("1.5"))`, "ObjectId('000000050000000000000000') Decimal128('1.5')"},
		{`const a = Long.fromString("-7"), b = Long.fromString("3"); print(a.add(b), a.div(b), a.modulo(b), a.shiftRightUnsigned(60), a.compare(b), a.lessThan(2), a.negate(), a.not(), a.isOdd(), Long.fromBits(1, 2), b.shiftLeft(62), b.eq("3"), Long.fromInt(3).multiply(2))`,
			"Long('-4') Long('-2') Long('-1') Long('15') -1 true Long('7') Long('6') true Long('8589934593') Long('-4611686018427387904') true Long('6')"},
	}
	for _, tc := range cases {
		got, err := eval(t, s, out, tc.src)
		if err != nil || got != tc.want+"\n" {
			t.Errorf("%s: got %q (%v), want %q", tc.src, got, err, tc.want)
		}
	}
}
