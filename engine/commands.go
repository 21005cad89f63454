package engine

import (
	"context"
	"errors"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// cmdFunc runs one command. cmd[0] is the command name and its value.
type cmdFunc func(ctx context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error)

var commands map[string]cmdFunc

func init() {
	commands = map[string]cmdFunc{
		"ping":                    cmdPing,
		"hello":                   cmdHello,
		"isMaster":                cmdHello,
		"ismaster":                cmdHello,
		"buildInfo":               cmdBuildInfo,
		"buildinfo":               cmdBuildInfo,
		"create":                  cmdCreate,
		"drop":                    cmdDrop,
		"dropDatabase":            cmdDropDatabase,
		"listCollections":         cmdListCollections,
		"listDatabases":           cmdListDatabases,
		"insert":                  cmdInsert,
		"find":                    cmdFind,
		"getMore":                 cmdGetMore,
		"killCursors":             cmdKillCursors,
		"count":                   cmdCount,
		"distinct":                cmdDistinct,
		"aggregate":               cmdAggregate,
		"update":                  cmdUpdate,
		"delete":                  cmdDelete,
		"findAndModify":           cmdFindAndModify,
		"findandmodify":           cmdFindAndModify,
		"createIndexes":           cmdCreateIndexes,
		"listIndexes":             cmdListIndexes,
		"dropIndexes":             cmdDropIndexes,
		"deleteIndexes":           cmdDropIndexes,
		"collMod":                 cmdCollMod,
		"convertToCapped":         cmdConvertToCapped,
		"cloneCollectionAsCapped": cmdCloneCollectionAsCapped,
		"dataSize":                cmdDataSize,
		"datasize":                cmdDataSize,
		"renameCollection":        cmdRenameCollection,
		"explain":                 cmdExplain,
		"serverStatus":            cmdServerStatus,
		"currentOp":               cmdCurrentOp,
		"setParameter":            cmdSetParameter,
		"getParameter":            cmdGetParameter,
		"validate":                cmdValidate,
		"dbStats":                 cmdDBStats,
		"collStats":               cmdCollStats,
		"runTTLPass":              cmdRunTTLPass,
		"getCmdLineOpts":          cmdGetCmdLineOpts,
		"endSessions":             cmdPing,
		"getLog":                  cmdGetLog,
		"profile":                 cmdProfile,
	}
}

// RunCommand runs a MongoDB database command against database dbName
// and returns its reply. The reply always has "ok"; when the command
// fails it also has errmsg, code and codeName, and the error is
// returned too (an *Error for user mistakes).
func (db *DB) RunCommand(ctx context.Context, dbName string, cmd bson.D) (bson.D, error) {
	reply, err := db.runCommand(ctx, dbName, cmd)
	if err != nil {
		return errorReply(err), err
	}
	return append(reply, bson.E{Key: "ok", Value: 1.0}), nil
}

// RunCommandRaw runs a command as RunCommand does, with one difference:
// the documents of a find or getMore reply's batch (cursor.firstBatch,
// cursor.nextBatch) may be bson.Raw, each the BSON encoding of one
// document, where RunCommand gives bson.D. A query on an ordinary
// collection with no $expr, no sort in memory and no projection (or one
// of whole top-level fields) hands out its stored documents transcoded
// straight to BSON, decoding only the fields its filter reads; the wire
// server copies them into its reply as they are. Other batches are
// bson.D, as from RunCommand.
//
// The documents of an insert command may also be bson.Raw, each one
// BSON document as a client sent it (RunCommand refuses them): they are
// checked and stored by document.AppendInsertBSON without being decoded,
// with the same rules, codes and stored bytes as bson.D documents, and
// one that is not valid BSON fails the whole insert with InvalidBSON
// before anything is written (docs/wire.md, "Where the time goes").
func (db *DB) RunCommandRaw(ctx context.Context, dbName string, cmd bson.D) (bson.D, error) {
	return db.RunCommand(context.WithValue(ctx, rawBatchesKey{}, true), dbName, cmd)
}

// rawBatchesKey marks the context of a RunCommandRaw call.
type rawBatchesKey struct{}

// rawBatches reports whether the command runs for RunCommandRaw.
func rawBatches(ctx context.Context) bool {
	v, _ := ctx.Value(rawBatchesKey{}).(bool)
	return v
}

func (db *DB) runCommand(ctx context.Context, dbName string, cmd bson.D) (bson.D, error) {
	if len(cmd) == 0 {
		return nil, document.Errorf(document.CodeFailedToParse, "empty command document")
	}
	if err := db.checkOpen(); err != nil {
		return nil, err
	}
	if err := validateDBName(dbName); err != nil {
		return nil, err
	}
	f, ok := commands[cmd[0].Key]
	if !ok {
		return nil, document.Errorf(document.CodeCommandNotFound, "no such command: '%s'", cmd[0].Key)
	}
	if v, ok := get(cmd, "maxTimeMS"); ok {
		if ms, isInt := asInt64(v); isInt && ms > 0 && cmd[0].Key != "getMore" {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, time.Duration(ms)*time.Millisecond)
			defer cancel()
		}
	}
	return f(ctx, db, dbName, cmd)
}

// errorReply renders err as {ok: 0, errmsg, code, codeName}.
func errorReply(err error) bson.D {
	var e *Error
	if !errors.As(err, &e) {
		e = &Error{Code: document.CodeInternalError, Message: err.Error()}
	}
	d := bson.D{{Key: "ok", Value: 0.0}, {Key: "errmsg", Value: e.Message},
		{Key: "code", Value: int32(e.Code)}, {Key: "codeName", Value: e.Name()}}
	for _, k := range []string{"keyPattern", "keyValue"} {
		if v, ok := e.Info[k]; ok {
			d = append(d, bson.E{Key: k, Value: v})
		}
	}
	return d
}
