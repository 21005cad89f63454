package mongosh

import (
	"crypto/rand"
	"strings"

	"github.com/dop251/goja"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// txnRefused is what a standalone mongod answers the first command of a
// transaction; ttlkv has no transactions (docs/shell.md, "Sessions").
const txnRefused = "Transaction numbers are only allowed on a replica set member or mongos"

// retryableRefused is the Node driver's message for that answer to a
// write, which mongosh prints in its place.
const retryableRefused = "This MongoDB deployment does not support retryable writes. Please add retryWrites=false to your connection string."

// txnState is where a session's transaction stands, the Node driver's
// states.
type txnState int

const (
	txnNone txnState = iota
	txnStarting
	txnInProgress
	txnCommittedEmpty
	txnCommitted
	txnAborted
)

// session is the state of one Session: whether it ended, and its
// transaction's state.
type session struct {
	ended bool
	txn   txnState
}

// open reports whether the session's transaction has started and not
// ended.
func (sess *session) open() bool { return sess.txn == txnStarting || sess.txn == txnInProgress }

// sessionProxy is a database or collection seen through a session: its
// properties are the shell's own object's, and its methods run with the
// session current, so the commands they send are the session's.
type sessionProxy struct {
	s    *Shell
	sess *session
	base *goja.Object
}

func (p *sessionProxy) Get(key string) goja.Value {
	v := p.base.Get(key)
	if fn, ok := goja.AssertFunction(v); ok {
		return p.s.rt.ToValue(func(c goja.FunctionCall) goja.Value {
			prev := p.s.curSess
			p.s.curSess = p.sess
			defer func() { p.s.curSess = prev }()
			r, err := fn(p.base, c.Arguments...)
			if err != nil {
				panic(err)
			}
			return p.s.sessionWrap(p.sess, r)
		})
	}
	return p.s.sessionWrap(p.sess, v)
}
func (p *sessionProxy) Set(string, goja.Value) bool { return false }
func (p *sessionProxy) Has(key string) bool         { return p.base.Get(key) != nil }
func (p *sessionProxy) Delete(string) bool          { return false }
func (p *sessionProxy) Keys() []string              { return nil }

// sessionWrap returns v seen through sess when it is a database or a
// collection, v itself otherwise.
func (s *Shell) sessionWrap(sess *session, v goja.Value) goja.Value {
	o, ok := v.(*goja.Object)
	if !ok {
		return v
	}
	switch o.Export().(type) {
	case *dbObject, *collObject:
		return s.rt.NewDynamicObject(&sessionProxy{s: s, sess: sess, base: o})
	}
	return v
}

// writeCommands are the commands the Node driver runs as writes: the
// ones whose refusal in a transaction it reports as retryableRefused.
var writeCommands = map[string]bool{"insert": true, "update": true, "delete": true, "findAndModify": true}

// sessionCommand is what the current session makes of cmd before it
// is sent: a command in a transaction is refused as a standalone
// server and the driver refuse it, and the transaction is then in
// progress.
func (s *Shell) sessionCommand(cmd bson.D) {
	sess := s.curSess
	if sess == nil {
		return
	}
	if sess.ended {
		s.throwNamed("MongoExpiredSessionError", "Use of expired sessions is not permitted")
	}
	if !sess.open() {
		return
	}
	sess.txn = txnInProgress
	if len(cmd) > 0 && writeCommands[cmd[0].Key] {
		s.throwCoded("MongoServerError", retryableRefused, 0, "", bson.D{{Key: "ok", Value: 0.0}, {Key: "errmsg", Value: retryableRefused}})
	}
	s.throwCoded("MongoServerError", txnRefused, 20, "IllegalOperation", nil)
}

// throwNamed throws an Error named name with message msg, as the
// driver's own errors (MongoTransactionError and the others).
func (s *Shell) throwNamed(name, msg string) {
	panic(s.driverError(name, msg))
}

// driverError is an error the Node driver under mongosh makes (a
// MongoInvalidArgumentError, ...): its name is its class's, not an own
// key, and its own keys are the driver's errorLabelSet, an empty Set.
func (s *Shell) driverError(name, msg string) *goja.Object {
	e, err := s.rt.New(s.rt.Get("Error").(*goja.Object), s.rt.ToValue(msg))
	if err != nil {
		panic(err)
	}
	_ = e.DefineDataProperty("name", s.rt.ToValue(name), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	set, err := s.rt.New(s.rt.Get("Set").(*goja.Object))
	if err != nil {
		panic(err)
	}
	_ = e.Set("errorLabelSet", set)
	return e
}

// startSession is Mongo.startSession(options): mongosh's Session, which
// prints as its id. ttlkv keeps no state for a session, so the commands
// sent through session.getDatabase(name) are the ones the shell's own
// database sends, and they do the same. ttlkv has no transactions: the
// transaction methods keep the Node driver's states, and a command in
// a transaction is refused as mongosh reports a standalone server's
// refusal.
func (s *Shell) startSession(c goja.FunctionCall) goja.Value {
	rt := s.rt
	id := make([]byte, 16)
	_, _ = rand.Read(id)
	id[6] = id[6]&0x0f | 0x40 // a version 4 UUID, as a driver makes a session id
	id[8] = id[8]&0x3f | 0x80
	idDoc := s.toJS(bson.D{{Key: "id", Value: bson.Binary{Subtype: bson.TypeBinaryUUID, Data: id}}})
	options := s.sessionOptions(c.Argument(0))
	sess := &session{}

	o := rt.NewObject()
	_ = o.Set("id", idDoc)
	method := func(name string, fn func(goja.FunctionCall) goja.Value) { _ = o.Set(name, s.named(name, fn)) }
	_ = o.DefineDataProperty("help", s.helpMethod("session", o), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	defer s.giveMethodHelps("session", objectMethods(o)) // once its methods are there
	undefined := func(goja.FunctionCall) goja.Value { return goja.Undefined() }
	method("getDatabase", func(c goja.FunctionCall) goja.Value {
		s.checkArg(c.Argument(0), "string", 0, "Session.getDatabase")
		name := c.Argument(0).String()
		if !validDatabaseName(name) {
			panic(s.mongoshError("MongoshInvalidInputError", "COMMON-10001", "Invalid database name: "+name))
		}
		return s.sessionWrap(sess, s.database(name))
	})
	method("getOptions", func(goja.FunctionCall) goja.Value { return options })
	method("advanceOperationTime", undefined)
	method("advanceClusterTime", undefined)
	method("getClusterTime", undefined)
	method("getOperationTime", undefined)
	method("endSession", func(goja.FunctionCall) goja.Value {
		if sess.open() {
			sess.txn = txnAborted
		}
		sess.ended = true
		return goja.Undefined()
	})
	method("hasEnded", func(goja.FunctionCall) goja.Value { return rt.ToValue(sess.ended) })
	start := func() {
		if sess.open() {
			s.throwNamed("MongoTransactionError", "Transaction already in progress")
		}
		sess.txn = txnStarting
	}
	abort := func() {
		switch sess.txn {
		case txnNone:
			s.throwNamed("MongoTransactionError", "No transaction started")
		case txnCommitted, txnCommittedEmpty:
			s.throwNamed("MongoTransactionError", "Cannot call abortTransaction after calling commitTransaction")
		case txnAborted:
			s.throwNamed("MongoTransactionError", "Cannot call abortTransaction twice")
		}
		// The driver sends abortTransaction for a transaction in
		// progress and drops its answer; here there is nothing to end.
		sess.txn = txnAborted
	}
	commit := func() {
		switch sess.txn {
		case txnNone:
			s.throwNamed("MongoTransactionError", "No transaction started")
		case txnAborted:
			s.throwNamed("MongoTransactionError", "Cannot call commitTransaction after calling abortTransaction")
		case txnStarting, txnCommittedEmpty:
			sess.txn = txnCommittedEmpty // nothing was sent: nothing to commit
		case txnInProgress, txnCommitted:
			// The server refused the transaction's first command, so
			// it refuses the commit the same way; the driver counts
			// the transaction committed all the same.
			sess.txn = txnCommitted
			s.throwCoded("MongoServerError", txnRefused, 20, "IllegalOperation", nil)
		}
	}
	method("startTransaction", func(goja.FunctionCall) goja.Value { start(); return goja.Undefined() })
	method("commitTransaction", func(goja.FunctionCall) goja.Value { commit(); return goja.Undefined() })
	method("abortTransaction", func(goja.FunctionCall) goja.Value { abort(); return goja.Undefined() })
	method("withTransaction", func(c goja.FunctionCall) goja.Value {
		fn, ok := goja.AssertFunction(c.Argument(0))
		if !ok {
			s.checkArg(c.Argument(0), "function", 0, "Session.withTransaction")
		}
		start()
		r, err := fn(goja.Undefined())
		if err != nil {
			if sess.open() {
				sess.txn = txnAborted
			}
			panic(err)
		}
		commit()
		return r
	})
	s.sessions[o] = idDoc
	return o
}

// sessionOptions is what Session.getOptions returns for the options
// startSession was given: the transaction options under
// defaultTransactionOptions, the session's own beside them, as mongosh
// hands them to the driver.
func (s *Shell) sessionOptions(a goja.Value) *goja.Object {
	out := s.rt.NewObject()
	in, ok := a.(*goja.Object)
	if !ok || goja.IsUndefined(a) || goja.IsNull(a) {
		return out
	}
	txn := s.rt.NewObject()
	n := 0
	for _, k := range []string{"readConcern", "writeConcern", "readPreference", "maxCommitTimeMS"} {
		if v := in.Get(k); v != nil && !goja.IsUndefined(v) {
			_ = txn.Set(k, v)
			n++
		}
	}
	if n > 0 {
		_ = out.Set("defaultTransactionOptions", txn)
	}
	for _, k := range []string{"causalConsistency", "snapshot", "defaultTimeoutMS"} {
		if v := in.Get(k); v != nil && !goja.IsUndefined(v) {
			_ = out.Set(k, v)
		}
	}
	return out
}

// validDatabaseName is mongosh's check of a database name given to
// Session.getDatabase: not empty, under 64 bytes, none of / \ . space " $
// or NUL.
func validDatabaseName(name string) bool {
	return name != "" && len(name) < 64 && !strings.ContainsAny(name, "/\\. \"$\x00")
}
