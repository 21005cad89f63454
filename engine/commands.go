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

// cmdFlags are what listCommands tells about a command besides its
// help (docs/commands.md, "listCommands").
type cmdFlags uint8

const (
	// adminOnly: the command runs against the admin database only;
	// elsewhere it is 13 Unauthorized, before it reads its arguments.
	adminOnly cmdFlags = 1 << iota
	// noAuth: the command runs before a client has authenticated
	// (requiresAuth: false).
	noAuth
	// onSecondary: a secondary always runs it (secondaryOk: true).
	onSecondary
	// optInSecondary: a secondary runs it when the read preference
	// allows (secondaryOverrideOk: true).
	optInSecondary
	// apiV1: the command is part of the Stable API, version 1.
	apiV1
)

// command is one entry of the command table: its name, what runs it,
// its flags and help for listCommands and {<name>: 1, help: true}, and
// the other names it answers to (which listCommands leaves out, as
// mongod does, isMaster aside).
type command struct {
	name    string
	run     cmdFunc
	flags   cmdFlags
	help    string
	aliases []string
}

// commandTable is every command RunCommand answers, a line a command.
// listCommands is made from it (cmd_listcommands.go).
var commandTable []command

// commands maps each name and alias of commandTable to its entry.
var commands map[string]*command

func init() {
	const read, opt = onSecondary, optInSecondary
	commandTable = []command{
		{"ping", cmdPing, noAuth | read | apiV1, "checks that the server answers; replies at once", nil},
		{"hello", cmdHello, noAuth | read | apiV1, "describes this server: its role, limits and wire versions", []string{"isMaster", "ismaster"}},
		{"buildInfo", cmdBuildInfo, noAuth | read, "the version and build of the server", []string{"buildinfo"}},
		{"listCommands", cmdListCommands, noAuth | read, "lists the commands this server answers, with their help", nil},
		{"hostInfo", cmdHostInfo, read, "describes the machine the server runs on: host name, cores, memory, operating system", nil},
		{"create", cmdCreate, apiV1, "creates a collection: ordinary, capped, time-series or clustered", nil},
		{"drop", cmdDrop, apiV1, "drops a collection and its indexes", nil},
		{"dropDatabase", cmdDropDatabase, apiV1, "drops a database and all its collections", nil},
		{"listCollections", cmdListCollections, opt | apiV1, "lists the collections of a database", nil},
		{"listDatabases", cmdListDatabases, adminOnly | opt | apiV1, "lists the databases and their sizes", nil},
		{"insert", cmdInsert, apiV1, "inserts documents", nil},
		{"find", cmdFind, opt | apiV1, "queries a collection and returns a cursor", nil},
		{"getMore", cmdGetMore, read | apiV1, "returns the next batch of a cursor", nil},
		{"killCursors", cmdKillCursors, read | apiV1, "closes cursors", nil},
		{"count", cmdCount, opt | apiV1, "counts the documents that match a query", nil},
		{"distinct", cmdDistinct, opt, "lists the distinct values of a field", nil},
		{"aggregate", cmdAggregate, opt | apiV1, "runs an aggregation pipeline and returns a cursor", nil},
		{"mapReduce", cmdMapReduce, opt, "runs JavaScript map, reduce and finalize functions over a collection (deprecated in MongoDB 5.0: use an aggregation)", []string{"mapreduce"}},
		{"update", cmdUpdate, apiV1, "updates or replaces documents", nil},
		{"delete", cmdDelete, apiV1, "deletes documents", nil},
		{"findAndModify", cmdFindAndModify, apiV1, "updates, replaces or deletes one document and returns it", []string{"findandmodify"}},
		{"bulkWrite", cmdBulkWrite, adminOnly | apiV1, "inserts, updates and deletes across collections in one command (MongoDB 8.0's client bulk write)", nil},
		{"createIndexes", cmdCreateIndexes, apiV1, "creates indexes, TTL indexes among them", nil},
		{"listIndexes", cmdListIndexes, opt | apiV1, "lists the indexes of a collection", nil},
		{"dropIndexes", cmdDropIndexes, apiV1, "drops indexes", []string{"deleteIndexes"}},
		{"collMod", cmdCollMod, apiV1, "changes a collection's options or an index's expireAfterSeconds, hidden or unique", nil},
		{"convertToCapped", cmdConvertToCapped, 0, "turns a collection into a capped collection of the given size", nil},
		{"cloneCollectionAsCapped", cmdCloneCollectionAsCapped, 0, "copies a collection into a new capped collection", nil},
		{"dataSize", cmdDataSize, opt, "the size of a collection's documents, or of a range of them", []string{"datasize"}},
		{"renameCollection", cmdRenameCollection, adminOnly, "renames a collection, within a database or to another", nil},
		{"explain", cmdExplain, opt | apiV1, "describes how a find, count, distinct, aggregate, update, delete or findAndModify runs", nil},
		{"serverStatus", cmdServerStatus, read, "the server's counters: operations, TTL passes, batched deletes, storage", nil},
		{"currentOp", cmdCurrentOp, adminOnly | read, "lists the operations running now", nil},
		{"setParameter", cmdSetParameter, adminOnly | read, "sets server parameters, such as ttlMonitorSleepSecs", nil},
		{"getParameter", cmdGetParameter, adminOnly | read, "reads server parameters; {getParameter: '*'} reads them all", nil},
		{"validate", cmdValidate, read, "checks a collection's documents against its indexes", nil},
		{"dbStats", cmdDBStats, read, "the sizes and counts of a database", nil},
		{"collStats", cmdCollStats, read, "the sizes and counts of a collection", nil},
		{"top", cmdTop, adminOnly | read, "each collection's operations and the time they took, in microseconds (mongotop)", nil},
		{"dbHash", cmdDBHash, read, "an MD5 of each collection's documents in _id order, and of those hashes, to compare two servers' data", []string{"dbhash"}},
		{"compact", cmdCompact, 0, "gives the disk space of deleted documents back to the file system (ttlkv compacts the whole store)", nil},
		{"runTTLPass", cmdRunTTLPass, adminOnly, "ttlkv's own: runs one TTL pass now and reports what it deleted", nil},
		{"getCmdLineOpts", cmdGetCmdLineOpts, adminOnly | read, "the server's command line", nil},
		{"endSessions", cmdPing, noAuth | read | apiV1, "ends sessions (ttlkv keeps no server sessions)", nil},
		{"getLog", cmdGetLog, adminOnly | read, "the server's recent log lines (ttlkv keeps none)", nil},
		{"profile", cmdProfile, read, "reads or sets the profiling level, slowms and sampleRate (ttlkv keeps no profiler: level 0)", nil},
		{"replSetGetStatus", cmdNoReplication, adminOnly | read, "a replica set's members and their state (ttlkv is a standalone)", nil},
		{"replSetGetConfig", cmdNoReplication, adminOnly | read, "a replica set's configuration (ttlkv is a standalone)", nil},
		{"replSetInitiate", cmdReplSetInitiate, adminOnly | read, "makes a replica set of a server started with --replSet (ttlkv is a standalone)", nil},
		{"replSetReconfig", cmdNoReplication, adminOnly | read, "changes a replica set's configuration (ttlkv is a standalone)", nil},
		{"replSetFreeze", cmdNoReplication, adminOnly | read, "keeps a member from seeking election (ttlkv is a standalone)", nil},
		{"replSetStepDown", cmdNoReplication, adminOnly | read, "makes a primary step down (ttlkv is a standalone)", nil},
		{"replSetSyncFrom", cmdNoReplication, adminOnly | read, "chooses the member a secondary copies from (ttlkv is a standalone)", nil},
		{"replSetMaintenance", cmdNoReplication, adminOnly | read, "puts a secondary in or out of maintenance (ttlkv is a standalone)", nil},
		{"replSetGetRBID", cmdNoReplication, adminOnly | read, "a replica set member's rollback id (ttlkv is a standalone)", nil},
	}
	commands = make(map[string]*command, 2*len(commandTable))
	for i := range commandTable {
		c := &commandTable[i]
		commands[c.name] = c
		for _, a := range c.aliases {
			commands[a] = c
		}
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

// HasCommand reports whether RunCommand answers the command name (one
// of its aliases included); another name is 59 CommandNotFound.
func HasCommand(name string) bool {
	_, ok := commands[name]
	return ok
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
	ctx = db.scriptContext(ctx, dbName)
	c, ok := commands[cmd[0].Key]
	if !ok {
		return nil, document.Errorf(document.CodeCommandNotFound, "no such command: '%s'", cmd[0].Key)
	}
	if c.flags&adminOnly != 0 && dbName != "admin" {
		return nil, document.Errorf(document.CodeUnauthorized, "%s may only be run against the admin database.", cmd[0].Key)
	}
	if h, _ := get(cmd, "help"); h == true {
		return commandHelp(c), nil
	}
	if v, ok := get(cmd, "writeConcern"); ok {
		if err := CheckWriteConcern(v); err != nil {
			return nil, err
		}
		if err := WriteConcernSupported(cmd); err != nil {
			return nil, err
		}
	}
	if v, ok := get(cmd, "maxTimeMS"); ok {
		ms, err := parseMaxTimeMS(v)
		if err != nil {
			return nil, err
		}
		if ms > 0 && cmd[0].Key != "getMore" {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, time.Duration(ms)*time.Millisecond)
			defer cancel()
		}
	}
	ctx, err := validationCtx(ctx, cmd)
	if err != nil {
		return nil, err
	}
	if ns := topNamespace(dbName, cmd); ns != "" {
		start := time.Now()
		defer func() { db.top.record(ns, cmd[0].Key, time.Since(start)) }()
	}
	return c.run(ctx, db, dbName, cmd)
}

// errorReply renders err as {ok: 0, errmsg, code, codeName}, or
// {ok: 0, errmsg} when its code is 0.
func errorReply(err error) bson.D {
	var e *Error
	if !errors.As(err, &e) {
		e = &Error{Code: document.CodeInternalError, Message: err.Error()}
	}
	d := bson.D{{Key: "ok", Value: 0.0}, {Key: "errmsg", Value: e.Message}}
	if e.Code != 0 {
		// An error without a code is one mongod reports with errmsg
		// alone (getLog's "no RamLog named").
		d = append(d, bson.E{Key: "code", Value: int32(e.Code)}, bson.E{Key: "codeName", Value: e.Name()})
	}
	for _, k := range []string{"keyPattern", "keyValue", "errInfo", "violations"} {
		if v, ok := e.Info[k]; ok {
			d = append(d, bson.E{Key: k, Value: v})
		}
	}
	switch e.Code {
	case document.CodeChangeStreamFatalError, document.CodeChangeStreamHistoryLost:
		// A driver does not resume a change stream after these, as
		// mongod's label tells it.
		d = append(d, bson.E{Key: "errorLabels", Value: bson.A{"NonResumableChangeStreamError"}})
	}
	return d
}
