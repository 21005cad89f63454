package mongosh

import (
	"regexp"
	"testing"
)

// TestStartSession checks Mongo.startSession: the session's database is
// the shell's, it prints as its id, it ends, its options are kept as
// mongosh keeps them, a command in a transaction is refused as mongosh
// reports a standalone server's refusal, the transaction methods keep
// the driver's states, and commands outside the session are not
// touched (wire/testdata/mongosh/shell.js runs such lines through the
// real mongosh against ttlkv serve).
func TestStartSession(t *testing.T) {
	t.Parallel()
	s, out, _ := testShell(t, Options{})
	errLine := `catch (e) { print(e.name, e.code, e.codeName, e.message) }`
	retry := "MongoServerError   This MongoDB deployment does not support retryable writes. Please add retryWrites=false to your connection string."
	refused := "MongoServerError 20 IllegalOperation Transaction numbers are only allowed on a replica set member or mongos"
	cases := []struct{ src, want string }{
		{`const sess = db.getMongo().startSession(); const sdb = sess.getDatabase("test"); sdb.sess.insertOne({_id: 1}); print(db.sess.countDocuments({}), sdb.getName(), sdb.sess, sdb.sess.findOne())`, "1 test test.sess { _id: 1 }"},
		{`print(sess.hasEnded(), typeof sess.getClusterTime(), typeof sess.getOperationTime(), sess.getOptions())`, "false undefined undefined {}"},
		// A write in a transaction: the driver's words for the
		// refusal; a read: the server's; the states after them.
		{`try { sess.startTransaction(); sdb.sess.insertOne({_id: 2}) } ` + errLine, retry},
		{`try { sess.startTransaction() } ` + errLine, "MongoTransactionError   Transaction already in progress"},
		{`sess.abortTransaction(); try { sess.commitTransaction() } ` + errLine, "MongoTransactionError   Cannot call commitTransaction after calling abortTransaction"},
		{`try { sess.abortTransaction() } ` + errLine, "MongoTransactionError   Cannot call abortTransaction twice"},
		{`try { sess.startTransaction(); sdb.getCollection("sess").find().toArray() } ` + errLine, refused},
		{`try { sess.commitTransaction() } ` + errLine, refused},
		{`try { sess.abortTransaction() } ` + errLine, "MongoTransactionError   Cannot call abortTransaction after calling commitTransaction"},
		{`sess.startTransaction(); sess.commitTransaction(); try { sess.abortTransaction() } ` + errLine, "MongoTransactionError   Cannot call abortTransaction after calling commitTransaction"},
		{`try { sess.withTransaction(() => sdb.sess.deleteOne({_id: 1})) } ` + errLine, retry},
		{`print(sess.withTransaction(() => 7))`, "7"},
		// A cursor made through the session runs its commands in it.
		{`const cur = sdb.sess.find(); sess.startTransaction(); try { cur.toArray() } ` + errLine, refused},
		{`sess.abortTransaction(); print(db.sess.countDocuments({}), sdb.sess.find().toArray())`, "1 [ { _id: 1 } ]"},
		{`const cur2 = sdb.sess.find(); sess.endSession(); print(sess.hasEnded()); try { cur2.toArray() } catch (e) { print(e.name, e.message) }`, "true\nMongoExpiredSessionError Use of expired sessions is not permitted"},
		{`try { sdb.sess.countDocuments({}) } catch (e) { print(e.name, e.message) }`, "MongoExpiredSessionError Use of expired sessions is not permitted"},
		{`print(db.sess.countDocuments({}))`, "1"},
		{`try { sess.getDatabase("a.b") } ` + errLine, "MongoshInvalidInputError COMMON-10001  [COMMON-10001] Invalid database name: a.b"},
		{`try { sess.getDatabase(5) } ` + errLine, "MongoshInvalidInputError COMMON-10001  [COMMON-10001] Argument at position 0 must be of type string, got number instead (Session.getDatabase)"},
		{`db.getMongo().startSession({causalConsistency: false, readConcern: {level: "local"}, writeConcern: {w: 1}}).getOptions()`, "{\n  defaultTransactionOptions: { readConcern: { level: 'local' }, writeConcern: { w: 1 } },\n  causalConsistency: false\n}"},
		{`const other = db.getMongo().startSession(); other.startTransaction(); db.sess.insertOne({_id: 3}); print(db.sess.countDocuments({})); other.abortTransaction()`, "2"},
	}
	for _, tc := range cases {
		got, err := eval(t, s, out, tc.src)
		if err != nil || got != tc.want+"\n" {
			t.Errorf("%s:\n got %q (%v)\nwant %q", tc.src, got, err, tc.want)
		}
	}
	// A session prints as its id, a version 4 UUID; two sessions differ.
	id := regexp.MustCompile(`^\{ id: UUID\('[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}'\) \}\n$`)
	a, err := eval(t, s, out, `db.getMongo().startSession()`)
	if err != nil || !id.MatchString(a) {
		t.Errorf("a session printed %q (%v), want its id", a, err)
	}
	b, _ := eval(t, s, out, `db.getMongo().startSession()`)
	if a == b {
		t.Errorf("two sessions printed the same id %q", a)
	}
}
