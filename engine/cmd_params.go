package engine

import (
	"slices"
	"strings"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/agg"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// collName returns the collection a command names in its first field.
func collName(cmd bson.D) (string, error) {
	s, ok := cmd[0].Value.(string)
	if !ok {
		return "", document.Errorf(document.CodeInvalidNamespace, "collection name has invalid type %s", typeName(cmd[0].Value))
	}
	return s, nil
}

// writeCmd is what the insert, update and delete commands share: the
// collection they name, their statements and whether they are ordered.
type writeCmd struct {
	coll    string
	stmts   bson.A
	ordered bool // default true
}

// parseWriteCmd reads a write command whose statements are the array
// under field ("documents", "updates", "deletes").
func parseWriteCmd(cmd bson.D, field string) (writeCmd, error) {
	name, err := collName(cmd)
	if err != nil {
		return writeCmd{}, err
	}
	stmts, err := statements(cmd, field)
	if err != nil {
		return writeCmd{}, err
	}
	if len(stmts) == 0 || len(stmts) > 100000 {
		return writeCmd{}, document.Errorf(document.CodeInvalidLength, "Write batch sizes must be between 1 and 100000. Got %d operations.", len(stmts))
	}
	w := writeCmd{coll: name, stmts: stmts, ordered: true}
	if v, ok := get(cmd, "ordered"); ok {
		b, isBool := v.(bool)
		if !isBool {
			return writeCmd{}, document.Errorf(document.CodeTypeMismatch, "BSON field '%s.ordered' is the wrong type '%s', expected type 'bool'", cmd[0].Key, typeName(v))
		}
		w.ordered = b
	}
	return w, nil
}

// parseStmtWriteCmd reads what the update and delete commands check
// before any statement runs, failing in mongod's order: a top-level
// field other than field, ordered, let and those in extra; the
// collection and the statements under field (parseWriteCmd); a
// statement that shape refuses; the let option (writeLet); a view
// named as the collection. It returns the command and its let document.
func (db *DB) parseStmtWriteCmd(dbName string, cmd bson.D, field string, shape func(any) error, extra ...string) (writeCmd, bson.D, error) {
	if err := strictFields(cmd, append([]string{field, "ordered", "let"}, extra...)...); err != nil {
		return writeCmd{}, nil, err
	}
	w, err := parseWriteCmd(cmd, field)
	if err != nil {
		return writeCmd{}, nil, err
	}
	for _, st := range w.stmts {
		if err := shape(st); err != nil {
			return writeCmd{}, nil, err
		}
	}
	let, _, err := db.writeLet(cmd)
	if err != nil {
		return writeCmd{}, nil, err
	}
	if err := db.refuseView(dbName, w.coll); err != nil {
		return writeCmd{}, nil, err
	}
	return w, let, nil
}

// letOpt reads a command's let option: a document of variables, or
// none.
func letOpt(cmd bson.D) (bson.D, error) {
	v, ok := get(cmd, "let")
	if !ok {
		return nil, nil
	}
	return letValue(cmd[0].Key, v)
}

// checkLet evaluates a write command's let once before any statement
// runs, so that a bad one fails the command, as in mongod, not each
// statement.
func (db *DB) checkLet(let bson.D) error {
	_, err := agg.ParseLet(let, bson.NewDateTimeFromTime(db.opts.Clock()))
	return err
}

// writeLet reads and checks a write command's let (letOpt, checkLet):
// the document, and its variables evaluated (nil when there is none).
func (db *DB) writeLet(cmd bson.D) (bson.D, *agg.Let, error) {
	let, err := letOpt(cmd)
	if err != nil {
		return nil, nil, err
	}
	l, err := agg.ParseLet(let, bson.NewDateTimeFromTime(db.opts.Clock()))
	return let, l, err
}

// letValue is the value of command's let option: a document.
func letValue(command string, v any) (bson.D, error) {
	d, ok := v.(bson.D)
	if !ok {
		return nil, document.Errorf(document.CodeTypeMismatch, "BSON field '%s.let' is the wrong type '%s', expected type 'object'", command, typeName(v))
	}
	return d, nil
}

func intOpt(field string, v any) (int64, error) {
	n, ok := asInt64(v)
	if !ok {
		return 0, document.Errorf(document.CodeTypeMismatch, "BSON field '%s' is the wrong type '%s', expected types '[long, int, decimal, double]'", field, typeName(v))
	}
	return n, nil
}

func statements(cmd bson.D, field string) (bson.A, error) {
	v, ok := get(cmd, field)
	if !ok {
		return nil, document.Errorf(document.CodeFailedToParse, "BSON field '%s.%s' is missing but a required field", cmd[0].Key, field)
	}
	arr, ok := v.(bson.A)
	if !ok {
		return nil, document.Errorf(document.CodeTypeMismatch, "BSON field '%s.%s' is the wrong type '%s', expected type 'array'", cmd[0].Key, field, typeName(v))
	}
	return arr, nil
}

func isGenericField(k string) bool {
	switch k {
	case "comment", "lsid", "$db", "writeConcern", "apiVersion", "apiStrict", "$readPreference":
		return true
	}
	return false
}

func hasPrefixDollar(s string) bool { return strings.HasPrefix(s, "$") }

// truthy is the server's boolean reading of an option value: the
// aggregation reading (false, null, undefined, numeric zero are false).
func truthy(v any) bool { return agg.Truthy(v) }

// runStatements runs a write command's n statements in order, each by
// run, and gathers their failures as write errors: an ordered command
// stops at its first, an unordered one runs every statement. A failure
// that is not the statement's own (writeFailed) ends the command.
func runStatements(n int, ordered bool, run func(i int) error) ([]WriteError, error) {
	var werrs []WriteError
	for i := 0; i < n; i++ {
		err := run(i)
		if err == nil {
			continue
		}
		stop, fault := writeFailed(&werrs, i, err, ordered)
		if fault != nil {
			return nil, fault
		}
		if stop {
			break
		}
	}
	return werrs, nil
}

// commandField reports whether k is a field any command may carry
// beside its own: mongod's generic arguments (sessions, transactions,
// read and write concern, read preference, API version, time limits,
// comments) and the $-prefixed fields of its internal protocol.
func commandField(k string) bool {
	if isGenericField(k) || strings.HasPrefix(k, "$") {
		return true
	}
	switch k {
	case "maxTimeMS", "readConcern", "apiDeprecationErrors", "txnNumber", "autocommit", "startTransaction",
		"stmtId", "stmtIds", "mayBypassWriteBlocking", "maxTimeMSOpOnly", "clientOperationKey",
		"databaseVersion", "shardVersion", "encryptionInformation", "collectionUUID", "sampleId":
		return true
	}
	return false
}

// strictFields refuses, as mongod's strict IDL parsers do, a field of
// cmd (after its first) that is neither one of the command's own
// (known) nor a generic one (commandField): 40415 "BSON field
// 'update.multi' is an unknown field." A misplaced option (multi beside
// updates rather than inside a statement) is refused rather than
// ignored.
func strictFields(cmd bson.D, known ...string) error {
	for _, e := range cmd[1:] {
		if commandField(e.Key) || slices.Contains(known, e.Key) {
			continue
		}
		return document.Errorf(document.CodeIDLUnknownField, "BSON field '%s.%s' is an unknown field.", cmd[0].Key, e.Key)
	}
	return nil
}

// cursorOption checks a command's cursor option as mongod's strict
// SimpleCursorOptions does: a document (14) of batchSize alone (40415),
// a number of at least 0 (51024). It returns the batch size, -1 when
// none is given.
func cursorOption(cmd string, v any) (int64, error) {
	d, ok := v.(bson.D)
	if !ok {
		return 0, document.Errorf(document.CodeTypeMismatch, "BSON field '%s.cursor' is the wrong type '%s', expected type 'object'", cmd, typeName(v))
	}
	n := int64(-1)
	for _, e := range d {
		if e.Key != "batchSize" {
			return 0, document.Errorf(document.CodeIDLUnknownField, "BSON field '%s.cursor.%s' is an unknown field.", cmd, e.Key)
		}
		b, err := intOpt(cmd+".cursor.batchSize", e.Value)
		if err != nil {
			return 0, err
		}
		if b < 0 {
			return 0, negativeBatchSize(b)
		}
		n = b
	}
	return n, nil
}

// boolField is a command field that mongod's IDL types bool: a boolean,
// else 14.
func boolField(cmd, field string, v any) (bool, error) {
	b, ok := v.(bool)
	if !ok {
		return false, document.Errorf(document.CodeTypeMismatch, "BSON field '%s.%s' is the wrong type '%s', expected type 'bool'", cmd, field, typeName(v))
	}
	return b, nil
}
