package engine

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/document"
)

// The $currentOp aggregation stage (docs/commands.md, "$currentOp"):
// {aggregate: 1, pipeline: [{$currentOp: {...}}, ...]} on admin yields
// the operations running now, as the currentOp command lists them, and
// the rest of the pipeline filters and shapes them. mongosh 2's
// db.currentOp() is built on it.

// SetOperationsSource makes currentOp (the command and the $currentOp
// stage) list, beside the engine's own operations, those f returns: a
// front end's (the wire server's client commands). f must be safe to
// call from any goroutine; nil removes it.
func (db *DB) SetOperationsSource(f func() []bson.D) {
	db.opsSource.Store(&f)
}

// WithOperationsFilter returns a context under which currentOp (the
// command and the $currentOp stage) lists only the operations keep
// accepts: a front end's way to show a user its own operations only
// ($ownOps, $currentOp's allUsers: false). keep must not retain op.
func WithOperationsFilter(ctx context.Context, keep func(op bson.D) bool) context.Context {
	return context.WithValue(ctx, opsFilterKey{}, keep)
}

// opsFilterKey marks the filter of WithOperationsFilter in a context.
type opsFilterKey struct{}

// operations returns the operations running now: the engine's, then
// those of the source SetOperationsSource gave, less those the
// context's filter (WithOperationsFilter) refuses. Each names the
// server in host, as mongod's (getHostNameCachedAndPort: host:port when
// the port is known, WithListenPort), after its type when it has one.
func (db *DB) operations(ctx context.Context) []bson.D {
	out := db.CurrentOp()
	if f := db.opsSource.Load(); f != nil && *f != nil {
		out = append(out, (*f)()...)
	}
	host := bson.E{Key: "host", Value: hostAndPort(ctx)}
	for i, op := range out {
		if _, has := get(op, "host"); has {
			continue
		}
		at := 0
		if len(op) > 0 && op[0].Key == "type" {
			at = 1
		}
		withHost := make(bson.D, 0, len(op)+1)
		withHost = append(append(append(withHost, op[:at]...), host), op[at:]...)
		out[i] = withHost
	}
	if keep, ok := ctx.Value(opsFilterKey{}).(func(bson.D) bool); ok && keep != nil {
		kept := out[:0]
		for _, op := range out {
			if keep(op) {
				kept = append(kept, op)
			}
		}
		out = kept
	}
	return out
}

// currentOpAggregate runs aggregate when its pipeline holds a $currentOp
// stage; ok is false (and the reply nil) otherwise. With a verbosity
// ("" runs it) it answers explain instead (sourceStageExplain), the
// stage shown as mongod serializes it: only the options that differ
// from their defaults.
func (db *DB) currentOpAggregate(ctx context.Context, dbName string, cmd bson.D, verbosity string) (reply bson.D, ok bool, err error) {
	pipe, found, err := leadingStage(cmd, "$currentOp")
	if !found || err != nil {
		return nil, found, err
	}
	if v, isNum := asInt64(cmd[0].Value); !isNum || v != 1 || dbName != "admin" {
		return nil, true, document.Errorf(document.CodeInvalidNamespace, "$currentOp must be run against the 'admin' database with {aggregate: 1}")
	}
	spec, isDoc := pipe[0].(bson.D)[0].Value.(bson.D)
	if !isDoc {
		return nil, true, document.Errorf(document.CodeFailedToParse, "$currentOp options must be specified in an object, but found: %s", typeName(pipe[0].(bson.D)[0].Value))
	}
	for _, e := range spec {
		switch e.Key {
		case "allUsers", "idleConnections", "idleCursors", "idleSessions", "localOps", "truncateOps", "backtrace":
			if _, isBool := e.Value.(bool); !isBool {
				return nil, true, document.Errorf(document.CodeFailedToParse, "The '%s' parameter of the $currentOp stage must be a boolean value, but found: %s", e.Key, typeName(e.Value))
			}
		default:
			return nil, true, document.Errorf(document.CodeFailedToParse, "Unrecognized option '%s' in $currentOp stage.", e.Key)
		}
	}
	if verbosity != "" {
		docs := func() ([]bson.D, error) { return db.operations(ctx), nil }
		first := bson.D{{Key: "$currentOp", Value: currentOpSerialized(spec)}}
		r, err := db.sourceStageExplain(ctx, dbName, cmd[0].Value, cmd, first, pipe[1:], docs, verbosity)
		return r, true, err
	}
	r, err := db.sourceStageReply(ctx, "admin.$cmd.aggregate", nil, cmd, pipe[1:], db.operations(ctx))
	return r, true, err
}

// currentOpSerialized is a $currentOp's options as mongod 7.0's explain
// shows them: in its order, each only where it differs from its
// default (idleSessions when false, the others when true).
func currentOpSerialized(spec bson.D) bson.D {
	out := bson.D{}
	for _, k := range []string{"idleConnections", "idleSessions", "allUsers", "localOps", "truncateOps", "idleCursors", "backtrace"} {
		v, _ := get(spec, k)
		on, _ := v.(bool)
		if k == "idleSessions" {
			if v == false {
				out = append(out, bson.E{Key: k, Value: false})
			}
			continue
		}
		if on {
			out = append(out, bson.E{Key: k, Value: true})
		}
	}
	return out
}
