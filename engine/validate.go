package engine

import (
	"context"
	"fmt"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/indexkey"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// ValidateResult is validate's report on one collection.
type ValidateResult struct {
	Namespace    string
	Records      int64
	KeysPerIndex map[string]int64
	// NonCompliant counts the documents that fail the collection's
	// validator (none is checked when it has no validator or its
	// validationLevel is off). They are reported in Warnings, not
	// Errors, as mongod 7.0 does: they leave the collection valid.
	NonCompliant int64
	// InvalidDocuments counts the records whose stored bytes do not
	// decode as a document (mongod's nInvalidDocuments: BSON that fails
	// validation); CorruptRecords lists their record ids, at most
	// maxValidateErrors of them. Each makes the collection invalid.
	InvalidDocuments int64
	CorruptRecords   []int64
	// InvalidIndexes names the indexes found inconsistent with the
	// documents: an entry missing or extra, or not the one its document
	// produces. The other indexes are valid (indexDetails).
	InvalidIndexes map[string]bool
	// MissingIndexEntries lists entries a document produces that its
	// index lacks, ExtraIndexEntries entries no document produces, as
	// mongod 7.0 lists them: smallest first, each list cut once its
	// entries add up past 1 MiB (an error says so). NumMissing and
	// NumExtra count them all; Warnings give the counts and Errors
	// name each index found inconsistent.
	MissingIndexEntries []IndexEntry
	ExtraIndexEntries   []IndexEntry
	NumMissing          int64
	NumExtra            int64
	Warnings            []string
	Errors              []string // every inconsistency found; empty when valid
}

// invalidDocumentsError is mongod 7.0's error, given once, for records
// that fail BSON validation.
const invalidDocumentsError = "Detected one or more invalid documents. See logs."

// corrupt records that record rid does not decode: counted, listed,
// and reported with mongod's error once. detail says why, for the
// errors (ttlkv has no log to send the reader to).
func (r *ValidateResult) corrupt(rid int64, detail string) {
	if r.InvalidDocuments == 0 {
		r.Errors = append(r.Errors, invalidDocumentsError)
	}
	r.InvalidDocuments++
	if len(r.CorruptRecords) < maxValidateErrors {
		r.CorruptRecords = append(r.CorruptRecords, rid)
	}
	if len(r.Errors) < maxValidateErrors {
		r.Errors = append(r.Errors, detail)
	}
}

// badIndex marks index name inconsistent.
func (r *ValidateResult) badIndex(name string) {
	if r.InvalidIndexes == nil {
		r.InvalidIndexes = map[string]bool{}
	}
	r.InvalidIndexes[name] = true
}

// nonCompliantWarning is mongod 7.0's warning for documents that fail
// the collection's validator (its log id 5363500).
const nonCompliantWarning = "Detected one or more documents not compliant with the collection's schema. Check logs for log id 5363500."

// Valid reports whether no inconsistency was found.
func (r *ValidateResult) Valid() bool { return len(r.Errors) == 0 }

// maxValidateErrors bounds the errors one validate reports.
const maxValidateErrors = 1000

// Validate checks one collection: every document decodes and has
// exactly its index entries, and every index entry points at a
// document that produces that key. It reads only: nothing it finds is
// repaired.
func (db *DB) Validate(ctx context.Context, dbName, name string) (*ValidateResult, error) {
	if err := db.checkOpen(); err != nil {
		return nil, err
	}
	c := db.lookup(dbName, name)
	if n, _, _, ok := db.catalogStats(dbName, name); c == nil && ok {
		// A collection the engine shows from what it keeps
		// (catalogDocs): its documents and _id index are made whole.
		return &ValidateResult{Namespace: dbName + "." + name, Records: n, KeysPerIndex: map[string]int64{"_id_": n}}, nil
	}
	if c == nil {
		return nil, document.Errorf(document.CodeNamespaceNotFound, "Collection '%s.%s' does not exist to validate.", dbName, name)
	}
	if c.m().Kind == catalog.KindView {
		return nil, errView(c.m())
	}
	// Hold the writers off so documents and entries are compared at one
	// point in time.
	c.wmu.Lock()
	defer c.wmu.Unlock()
	m := c.m()
	res := &ValidateResult{Namespace: m.NS(), KeysPerIndex: map[string]int64{}}
	fail := func(format string, args ...any) {
		if len(res.Errors) < maxValidateErrors {
			res.Errors = append(res.Errors, fmt.Sprintf(format, args...))
		}
	}
	if !kindOf(m).validate(ctx, db, c, res, fail) {
		return res, nil
	}
	// Every record's expected entries, then every index's entries
	// against them (both directions): what is left over on either side
	// is a missing or an extra entry, reported as mongod 7.0 does
	// (reportEntries). expected[index][key] is the entry's value, which
	// is empty except in a clustered collection's secondary indexes, an
	// ordinary collection's TTL indexes and the entries of an index that
	// keeps type bits whose keys lose something (entryValue; the _id
	// entries of a clustered collection are the records themselves), and
	// its record.
	expected := make([]map[string]expectedEntry, len(m.Indexes))
	for i := range expected {
		expected[i] = map[string]expectedEntry{}
	}
	dv, err := db.validatorFor(context.Background(), m) // bypassDocumentValidation does not apply
	if err != nil {
		dv = nil // a validator that no longer parses checks nothing here
	}
	// An index's own errors (not its missing or extra entries) follow
	// the entries' errors, as mongod appends each index's results last.
	var idxErrs []string
	idxFail := func(format string, args ...any) {
		idxErrs = append(idxErrs, fmt.Sprintf(format, args...))
	}
	var missing, extra []entryDiff
	err = db.store.View(func(txn *lsm.Txn) error {
		it := txn.NewIter(lsm.IterOptions{Prefix: recPrefix(m)})
		defer it.Close()
		for it.Next() {
			rid, _ := splitRecKey(m, it.Key())
			raw, err := it.Value()
			if err != nil {
				return err
			}
			res.Records++
			d, err := document.Unmarshal(raw)
			if err != nil {
				res.corrupt(int64(rid), fmt.Sprintf("record %d does not decode: %v", rid, err))
				continue
			}
			if dv != nil {
				if ok, err := dv.f.MatchErr(d); err != nil || !ok {
					res.NonCompliant++
				}
			}
			recKey := string(it.Key())
			for i, ix := range m.Indexes {
				keys, mk, err := indexkey.Of(ix, d)
				if err != nil {
					res.badIndex(ix.Name)
					idxFail("record %d: index %s: %v", rid, ix.Name, err)
					continue
				}
				if mk && !ix.Multikey {
					res.badIndex(ix.Name)
					idxFail("record %d makes index %s multikey but the catalog says it is not", rid, ix.Name)
				}
				for _, k := range keys {
					full := lsm.IndexKey(m.ID, ix.ID, k, rid)
					e := expectedEntry{rid: rid, recKey: recKey}
					if keepsTypeBits(m, ix) {
						e.val = string(entryValue(m, ix, d, raw))
					} else if carriesTTLValue(m, ix) {
						e.val = string(ttlEntryValue(m, d, raw))
					} else if m.Clustered && ix.ID != idIndexID {
						e.val = string(idKeyOf(m, d))
					}
					expected[i][string(full)] = e
				}
			}
		}
		for i, ix := range m.Indexes {
			withValue := (m.Clustered && ix.ID != idIndexID) || carriesTTLValue(m, ix) || keepsTypeBits(m, ix)
			prefixLen := len(lsm.IndexPrefix(m.ID, ix.ID))
			it := txn.NewIter(lsm.IterOptions{Prefix: lsm.IndexPrefix(m.ID, ix.ID), KeysOnly: !withValue})
			for it.Next() {
				res.KeysPerIndex[ix.Name]++
				exp, ok := expected[i][string(it.Key())]
				ks, rid, _ := lsm.SplitIndexKey(it.Key())
				if !ok {
					x := entryDiff{ix: ix, ks: append([]byte(nil), ks...), size: len(it.Key()) - prefixLen, rid: rid}
					switch {
					case !m.Clustered:
						x.recKey = lsm.RecordKey(m.ID, rid)
					case ix.ID == idIndexID:
						x.recKey = append([]byte(nil), it.Key()...) // the record itself
					default:
						// Where its record would be: the clustered
						// record keyed by the _id the entry names.
						v, err := it.Value()
						if err != nil {
							it.Close()
							return err
						}
						if _, id, ok := parseTTLEntry(v); ok && carriesTTLValue(m, ix) {
							x.recKey = lsm.IndexKey(m.ID, idIndexID, id, rid)
						} else {
							x.recKey = lsm.IndexKey(m.ID, idIndexID, v, rid)
						}
					}
					extra = append(extra, x)
					continue
				}
				delete(expected[i], string(it.Key()))
				want := exp.val
				if withValue {
					v, err := it.Value()
					if err != nil {
						it.Close()
						return err
					}
					switch {
					case keepsTypeBits(m, ix):
						// Its type bits (or TTL value) are its document's;
						// an entry of an index made TTL since it was
						// written carries no TTL value.
						switch ttl := isTTLEntry([]byte(want)); {
						case string(v) == want || len(v) == 0 && ttl:
						case ttl:
							res.badIndex(ix.Name)
							idxFail("index %s: the entry for record %d carries another size or _id than its document's", ix.Name, rid)
						default:
							res.badIndex(ix.Name)
							idxFail("index %s: the entry for record %d carries other type bits than its document's values", ix.Name, rid)
						}
					case m.Clustered && carriesTTLValue(m, ix) && !isTTLEntry(v):
						// Written before the carried value: the bare
						// _id keystring, read the old way.
						if _, id, _ := parseTTLEntry([]byte(want)); string(v) != string(id) {
							res.badIndex(ix.Name)
							idxFail("index %s: the entry for record %d names another _id than its document's", ix.Name, rid)
						}
					case m.Clustered && !carriesTTLValue(m, ix):
						if string(v) != want {
							res.badIndex(ix.Name)
							idxFail("index %s: the entry for record %d names another _id than its document's", ix.Name, rid)
						}
					case (m.Clustered || len(v) > 0) && string(v) != want:
						// A TTL entry's carried value (none: written before
						// the format, read the old way) must be its
						// document's (docs/ttl-indexes.md §3).
						res.badIndex(ix.Name)
						idxFail("index %s: the entry for record %d carries another size or _id than its document's", ix.Name, rid)
					}
				}
			}
			it.Close()
			prefix := lsm.IndexPrefix(m.ID, ix.ID)
			for k, e := range expected[i] {
				ks, _, _ := lsm.SplitIndexKey([]byte(k))
				missing = append(missing, entryDiff{ix: ix, ks: ks, size: len(k) - len(prefix), rid: e.rid, recKey: []byte(e.recKey)})
			}
			expected[i] = nil
		}
		if res.NonCompliant > 0 {
			res.Warnings = append(res.Warnings, nonCompliantWarning)
		}
		res.reportEntries(missing, extra, func(x entryDiff) bson.D {
			if x.recKey == nil {
				return nil
			}
			return readRecordDoc(txn, x.recKey)
		})
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, e := range idxErrs {
		fail("%s", e)
	}
	return res, nil
}

func idOf(d bson.D) any { v, _ := get(d, "_id"); return v }
