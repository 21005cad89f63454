package engine

import (
	"context"
	"runtime"
	"strconv"

	"github.com/ttlkv/ttlkv/document"
	script "github.com/ttlkv/ttlkv/engine/internal/js"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// cmdPing runs the ping command (also endSessions).
func cmdPing(context.Context, *DB, string, bson.D) (bson.D, error) { return bson.D{}, nil }

// cmdHello runs the hello command (also isMaster, ismaster).
func cmdHello(_ context.Context, db *DB, _ string, _ bson.D) (bson.D, error) {
	return bson.D{
		{Key: "isWritablePrimary", Value: db.opts.Role == RolePrimary},
		{Key: "ismaster", Value: db.opts.Role == RolePrimary},
		{Key: "secondary", Value: db.opts.Role == RoleSecondary},
		{Key: "maxBsonObjectSize", Value: int32(document.MaxDocumentSize)},
		{Key: "maxMessageSizeBytes", Value: int32(48000000)},
		{Key: "maxWriteBatchSize", Value: int32(100000)},
		{Key: "localTime", Value: db.now()},
		{Key: "minWireVersion", Value: int32(0)}, {Key: "maxWireVersion", Value: int32(21)},
		{Key: "readOnly", Value: db.opts.Role == RoleReadOnly},
	}, nil
}

// Version is ttlkv's version, reported by buildInfo and `ttlkv version`.
const Version = "0.1.0"

// cmdBuildInfo runs the buildInfo command (also buildinfo), with
// mongod 7.0's fields in its order (VersionInfoInterface::appendBuildInfo):
// modules is empty, as for a community build (mongosh and the tools look
// there for "enterprise"); allocator and javascriptEngine name what ttlkv
// runs on, Go's own allocator and goja (docs/commands.md, "buildInfo").
// bits is the word size mongosh's db.serverBits() reads. There is no
// openssl: TLS is Go's.
func cmdBuildInfo(context.Context, *DB, string, bson.D) (bson.D, error) {
	return buildInfoDoc(), nil
}

// Scripts' version() and buildInfo() answer what the command does.
func init() { script.SetBuildInfo(buildInfoDoc()) }

// buildInfoDoc is the buildInfo command's reply, without ok.
func buildInfoDoc() bson.D {
	return bson.D{{Key: "version", Value: Version}, {Key: "gitVersion", Value: "ttlkv"},
		{Key: "modules", Value: bson.A{}}, {Key: "allocator", Value: "system"},
		{Key: "javascriptEngine", Value: "goja"}, {Key: "sysInfo", Value: "deprecated"},
		{Key: "versionArray", Value: bson.A{int32(0), int32(1), int32(0), int32(0)}},
		{Key: "buildEnvironment", Value: bson.D{{Key: "distmod", Value: ""}, {Key: "distarch", Value: machineArch()},
			{Key: "cc", Value: runtime.Version()}, {Key: "target_arch", Value: machineArch()}, {Key: "target_os", Value: runtime.GOOS}}},
		{Key: "bits", Value: int32(strconv.IntSize)}, {Key: "debug", Value: false},
		{Key: "maxBsonObjectSize", Value: int32(document.MaxDocumentSize)}, {Key: "storageEngines", Value: bson.A{"badger"}}}
}

// machineArch names the processor architecture as mongod's build
// environment does (x86_64, aarch64), where Go says amd64 and arm64.
func machineArch() string {
	switch runtime.GOARCH {
	case "amd64":
		return "x86_64"
	case "arm64":
		return "aarch64"
	case "386":
		return "i386"
	}
	return runtime.GOARCH
}

// cmdGetCmdLineOpts runs the getCmdLineOpts command.
func cmdGetCmdLineOpts(_ context.Context, db *DB, _ string, _ bson.D) (bson.D, error) {
	return bson.D{{Key: "argv", Value: bson.A{"ttlkv"}}, {Key: "parsed", Value: bson.D{{Key: "storage", Value: bson.D{{Key: "dbPath", Value: db.dir}}}}}}, nil
}

// cmdGetLog runs the getLog command. A standalone mongod 7.0 keeps two
// in-memory logs, global and startupWarnings; ttlkv keeps no log lines
// in either (docs/commands.md, "getLog").
func cmdGetLog(_ context.Context, _ *DB, _ string, cmd bson.D) (bson.D, error) {
	name, ok := cmd[0].Value.(string)
	if !ok {
		return nil, document.Errorf(document.CodeTypeMismatch, "Argument to getLog must be of type String; found %s of type %s",
			document.Format(cmd[0].Value), typeName(cmd[0].Value))
	}
	switch name {
	case "*":
		return bson.D{{Key: "names", Value: bson.A{"global", "startupWarnings"}}}, nil
	case "global", "startupWarnings":
		return bson.D{{Key: "totalLinesWritten", Value: int32(0)}, {Key: "log", Value: bson.A{}}}, nil
	}
	// mongod answers with errmsg alone: the command predates codes.
	return nil, &Error{Message: "no RamLog named: " + name}
}
