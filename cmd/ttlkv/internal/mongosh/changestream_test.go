package mongosh

import (
	"bytes"
	"testing"

	"github.com/ttlkv/ttlkv/engine"
	"github.com/ttlkv/ttlkv/lsm"
)

func TestWatch(t *testing.T) {
	t.Parallel()
	db, err := engine.Open(t.TempDir(), engine.Options{DisableTTLMonitor: true, ChangeStreams: true, MemoryBudget: lsm.MinMemoryBudget})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var out bytes.Buffer
	s, err := New(db, Options{Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatal(err)
	}
	got, err := eval(t, s, &out, `
		const cs = db.s.watch([{$match: {operationType: {$in: ["insert", "delete"]}}}], {fullDocumentBeforeChange: "whenAvailable"});
		const all = db.watch();
		print(cs.tryNext());
		db.s.insertOne({_id: 1, a: 1});
		db.s.updateOne({_id: 1}, {$set: {a: 2}});
		db.s.deleteOne({_id: 1});
		const ev = cs.next();
		print(ev.operationType, ev.fullDocument.a, ev.documentKey._id);
		print(cs.hasNext(), cs.next().operationType);
		print(cs.tryNext(), typeof cs.getResumeToken()._data);
		let n = 0; while (all.tryNext() !== null) n++;
		print(n);
		cs.close();
		print(cs.isClosed(), cs.isExhausted());
		try { db.s.watch([{$group: {_id: 1}}]) } catch (e) { print(e.code) }
		try { db.s.watch([], {resumeAfter: {_data: "00ff"}}) } catch (e) { print(e.codeName) }
		try { db.s.watch([], {resumeAfter: {_data: "x"}}) } catch (e) { print(e.codeName) }
	`)
	if err != nil {
		t.Fatalf("%v\n%s", err, got)
	}
	want := "null\ninsert 1 1\ntrue delete\nnull string\n3\ntrue true\n20\nInvalidResumeToken\nFailedToParse\n"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}
