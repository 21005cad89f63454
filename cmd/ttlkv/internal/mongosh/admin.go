package mongosh

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/dop251/goja"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/document"
)

// The server administration helpers of mongosh: db.hostInfo(),
// db.listCommands(), db.commandHelp(), db.getLogComponents(),
// db.setLogLevel(), db.serverBits(), db.serverCmdLineOpts(), the
// replication helpers of db, and the rs and sh objects. Each sends the
// command mongosh sends and checks its arguments with mongosh's words,
// so that against ttlkv (a standalone server) they print what mongosh
// prints against a standalone mongod (docs/shell.md).

// adminPrelude defines rs and sh in JavaScript over the db object, and
// CommandResult, mongosh's wrapper for results that print in a form of
// their own (db.listCommands()). B holds the Go parts: invalid and
// runtime throw mongosh's errors, warn prints a warning once.
const adminPrelude = `(function (g, B) {
  function CommandResult(type, value) { this.type = type; this.value = value; }
  CommandResult.prototype.toJSON = function () { return this.value; };
  function admin() { return g.db.getSiblingDB('admin'); }
  // mongosh's assertArgsDefinedType: types[i] is a typeof name or a
  // list of them, undefined in the list meaning optional.
  function check(args, types, fn) {
    args.forEach(function (a, i) {
      var t = types[i], list = Array.isArray(t) ? t : [t];
      if (a === undefined) {
        if (list.indexOf(undefined) >= 0) return;
        B.invalid('Missing required argument at position ' + i + ' (' + fn + ')', 'COMMON-10001');
      }
      if (list.indexOf(typeof a) < 0) {
        var want = list.filter(function (x) { return x !== undefined; }).join(' or ');
        B.invalid('Argument at position ' + i + ' must be of type ' + want + ', got ' + typeof a + ' instead (' + fn + ')', 'COMMON-10001');
      }
    });
  }
  function getConfig() {
    var r = admin().runCommand({ replSetGetConfig: 1 });
    if (r.config === undefined) B.runtime("Documented returned from command replSetGetConfig does not contain 'config'");
    return r.config;
  }
  var rs = {
    initiate: function (config) { return admin().runCommand({ replSetInitiate: config === undefined ? {} : config }); },
    config: function () { return getConfig(); },
    conf: function () { return getConfig(); },
    reconfig: function (config, options) {
      check([config, options], ['object', [undefined, 'object']], 'ReplicaSet.reconfig');
      return admin().runCommand(Object.assign({ replSetReconfig: config }, options || {}));
    },
    status: function () { return admin().runCommand({ replSetGetStatus: 1 }); },
    isMaster: function () { return g.db.isMaster(); },
    hello: function () { return g.db.hello(); },
    printReplicationInfo: function () { return g.db.printReplicationInfo(); },
    printSecondaryReplicationInfo: function () { return g.db.printSecondaryReplicationInfo(); },
    add: function (hostport, arb) {
      check([hostport, arb], [['string', 'object'], [undefined, 'boolean']], 'ReplicaSet.add');
      getConfig();
    },
    addArb: function (host) { return rs.add(host, true); },
    remove: function (host) {
      check([host], ['string'], 'ReplicaSet.remove');
      getConfig();
    },
    freeze: function (secs) {
      check([secs], ['number'], 'ReplicaSet.freeze');
      return admin().runCommand({ replSetFreeze: secs });
    },
    stepDown: function (secs, catchUp) {
      check([secs, catchUp], [[undefined, 'number'], [undefined, 'number']], 'ReplicaSet.stepDown');
      var cmd = { replSetStepDown: secs === undefined ? 60 : secs };
      if (catchUp !== undefined) cmd.secondaryCatchUpPeriodSecs = catchUp;
      return admin().runCommand(cmd);
    },
    syncFrom: function (host) {
      check([host], ['string'], 'ReplicaSet.syncFrom');
      return admin().runCommand({ replSetSyncFrom: host });
    },
  };
  var sh = {
    // sh.status() on a server that is not a mongos: mongosh's warning,
    // then no config.version, so "no sharding" (ttlkv has no config
    // database).
    status: function () {
      if (g.db.hello().msg !== 'isdbgrid') B.warn('MongoshWarning: [SHAPI-10003] You are not connected to a mongos. This command may not work as expected.');
      if (g.db.getSiblingDB('config').getCollection('version').findOne() === null) {
        B.invalid('This db does not have sharding enabled. Be sure you are connecting to a mongos from the shell and not to a mongod.', 'SHAPI-10003');
      }
      B.runtime('sh.status() of a sharded cluster is not supported by ttlkv');
    },
  };
  g.rs = rs;
  g.sh = sh;
  return CommandResult;
})`

// installAdmin defines rs, sh and the CommandResult constructor.
func (s *Shell) installAdmin() error {
	rt := s.rt
	fn, err := rt.RunString(adminPrelude)
	if err != nil {
		return err
	}
	call, _ := goja.AssertFunction(fn)
	b := rt.NewObject()
	_ = b.Set("invalid", func(c goja.FunctionCall) goja.Value {
		panic(s.mongoshError("MongoshInvalidInputError", c.Argument(1).String(), c.Argument(0).String()))
	})
	_ = b.Set("runtime", func(c goja.FunctionCall) goja.Value {
		panic(s.mongoshError("MongoshRuntimeError", "COMMON-10004", c.Argument(0).String()))
	})
	_ = b.Set("warn", func(c goja.FunctionCall) goja.Value {
		s.warnOnce(c.Argument(0).String())
		return goja.Undefined()
	})
	ctor, err := call(goja.Undefined(), rt.GlobalObject(), b)
	if err != nil {
		return err
	}
	s.cmdResult = ctor.(*goja.Object)
	return nil
}

// mongoshError is one of mongosh's own errors: name (such as
// MongoshInvalidInputError), code (such as COMMON-10001) and a message
// that starts with the code in brackets, as mongosh's errors do.
func (s *Shell) mongoshError(name, code, msg string) *goja.Object {
	e, err := s.rt.New(s.rt.Get("Error").(*goja.Object), s.rt.ToValue("["+code+"] "+msg))
	if err != nil {
		panic(err)
	}
	s.mongoshKeys(e, name, code)
	return e
}

// mongoshKeys gives e the own keys mongosh's own errors have: name,
// code, scope (the code's prefix, "COMMON" for "COMMON-10001") and
// metadata (undefined).
func (s *Shell) mongoshKeys(e *goja.Object, name, code string) {
	scope, _, _ := strings.Cut(code, "-")
	_ = e.Set("name", name)
	_ = e.Set("code", code)
	_ = e.Set("scope", scope)
	_ = e.Set("metadata", goja.Undefined())
}

// warnOnce prints mongosh's "Warning: msg" line, once a shell.
func (s *Shell) warnOnce(msg string) {
	if s.warned["warning:"+msg] {
		return
	}
	s.warned["warning:"+msg] = true
	fmt.Fprintln(s.out, "Warning: "+msg)
}

// commandResult wraps value as mongosh's CommandResult of the given type,
// which print, printjson and the shell's echo show in the type's own
// form (formatCommandResult).
func (s *Shell) commandResult(typ string, value goja.Value) goja.Value {
	o, err := s.rt.New(s.cmdResult, s.rt.ToValue(typ), value)
	if err != nil {
		panic(err)
	}
	return o
}

// formatCommandResult renders o when it is a CommandResult: a
// ListCommandsResult as mongosh's list (each command's name, its true
// flags, its help, its API versions), any other type as its value.
func (s *Shell) formatCommandResult(o *goja.Object, opts inspectOpts) (string, bool) {
	if s.cmdResult == nil {
		return "", false
	}
	// An object without a prototype has no constructor at all.
	if ctor := o.Get("constructor"); ctor == nil || !ctor.SameAs(s.cmdResult) {
		return "", false
	}
	value := o.Get("value")
	switch o.Get("type").String() {
	case "ListCommandsResult":
	case "StatsResult":
		// mongosh's formatStats: each key, then its value inspected,
		// "---" between.
		vo, ok := value.(*goja.Object)
		if !ok {
			return s.inspectTopWith(value, opts), true
		}
		var parts []string
		for _, k := range vo.Keys() {
			parts = append(parts, k+"\n"+s.inspectWith(vo.Get(k), opts))
		}
		return strings.Join(parts, "\n---\n"), true
	default:
		return s.inspectTopWith(value, opts), true
	}
	vo, ok := value.(*goja.Object)
	if !ok {
		return s.inspectTopWith(value, opts), true
	}
	var entries []string
	for _, name := range vo.Keys() {
		cmd, _ := vo.Get(name).(*goja.Object)
		if cmd == nil {
			continue
		}
		var b strings.Builder
		b.WriteString(name + ": ")
		for _, k := range cmd.Keys() {
			if v := cmd.Get(k); v != nil && v.StrictEquals(s.rt.ToValue(true)) {
				b.WriteString(" " + k)
			}
		}
		if h := cmd.Get("help"); h != nil && h.ToBoolean() {
			b.WriteString("\n" + s.inspectTopWith(h, opts))
		}
		for _, f := range []struct{ key, label string }{{"apiVersions", "API Versions"}, {"deprecatedApiVersions", "Deprecated API Versions"}} {
			if arr, ok := cmd.Get(f.key).(*goja.Object); ok && arr.ClassName() == "Array" {
				if n := arr.Get("length").ToInteger(); n > 0 {
					parts := make([]string, n)
					for i := range parts {
						parts[i] = arr.Get(fmt.Sprint(i)).String()
					}
					b.WriteString("\n" + f.label + " " + strings.Join(parts, ", "))
				}
			}
		}
		entries = append(entries, b.String())
	}
	return strings.Join(entries, "\n\n"), true
}

// adminMethods adds mongosh's server administration helpers to the db
// object of database name.
func (s *Shell) adminMethods(m func(string, func(goja.FunctionCall) goja.Value), name string) {
	adminRead := func(cmd bson.D) bson.D { return s.command("admin", cmd) }
	m("hostInfo", func(goja.FunctionCall) goja.Value {
		return s.toJS(adminRead(bson.D{{Key: "hostInfo", Value: 1}}))
	})
	m("serverCmdLineOpts", func(goja.FunctionCall) goja.Value {
		return s.toJS(adminRead(bson.D{{Key: "getCmdLineOpts", Value: 1}}))
	})
	m("serverBits", func(goja.FunctionCall) goja.Value {
		r := adminRead(bson.D{{Key: "buildInfo", Value: 1}})
		bits, ok := document.Get(r, "bits")
		if !ok {
			panic(s.mongoshError("MongoshRuntimeError", "COMMON-10004", "Error running command serverBuildInfo "))
		}
		return s.toJS(bits)
	})
	m("listCommands", func(goja.FunctionCall) goja.Value {
		r := s.command(name, bson.D{{Key: "listCommands", Value: 1}})
		cmds, ok := document.Get(r, "commands")
		if !ok {
			panic(s.mongoshError("MongoshRuntimeError", "COMMON-10004", "Error running command listCommands "))
		}
		return s.commandResult("ListCommandsResult", s.toJS(cmds))
	})
	m("commandHelp", func(c goja.FunctionCall) goja.Value {
		a := c.Argument(0)
		s.checkArg(a, "string", 0, "Database.commandHelp")
		r := s.command(name, bson.D{{Key: a.String(), Value: 1}, {Key: "help", Value: true}})
		h, ok := document.Get(r, "help")
		if !ok {
			panic(s.mongoshError("MongoshRuntimeError", "COMMON-10004", "Error running command commandHelp "))
		}
		return s.toJS(h)
	})
	m("getLogComponents", func(goja.FunctionCall) goja.Value {
		r := adminRead(bson.D{{Key: "getParameter", Value: 1}, {Key: "logComponentVerbosity", Value: 1}})
		v, ok := document.Get(r, "logComponentVerbosity")
		if !ok {
			panic(s.mongoshError("MongoshRuntimeError", "COMMON-10004", "Error running command  "))
		}
		return s.toJS(v)
	})
	m("setLogLevel", func(c goja.FunctionCall) goja.Value {
		level, comp := c.Argument(0), c.Argument(1)
		s.checkArg(level, "number", 0, "Database.setLogLevel")
		var names []string
		switch {
		case goja.IsString(comp):
			names = strings.Split(comp.String(), ".")
		case !goja.IsUndefined(comp):
			panic(s.mongoshError("MongoshInvalidInputError", "COMMON-10001", "setLogLevel component must be a string: got "+jsTypeof(comp)))
		}
		v := bson.D{{Key: "verbosity", Value: numberToBSON(level.ToFloat())}}
		for i := len(names) - 1; i >= 0; i-- {
			v = bson.D{{Key: names[i], Value: v}}
		}
		return s.toJS(s.command("admin", bson.D{{Key: "setParameter", Value: 1}, {Key: "logComponentVerbosity", Value: v}}))
	})
	// Roles, locks, certificates, operations, sessions: mongosh's
	// helpers send these commands; ttlkv answers those it has and refuses
	// the others with 59 CommandNotFound, as mongosh shows it.
	withOptions := func(cmd bson.D, opts goja.Value) bson.D {
		return s.appendOptions(cmd, opts, "options")
	}
	m("getRoles", func(c goja.FunctionCall) goja.Value {
		return s.toJS(s.command(name, withOptions(bson.D{{Key: "rolesInfo", Value: 1}}, c.Argument(0))))
	})
	// infoOne sends rolesInfo or usersInfo for one name in this database
	// and returns the entry of that name, null when the reply has none,
	// as mongosh's getRole and getUser do.
	infoOne := func(c goja.FunctionCall, helper, cmdName, field, list, missing string) goja.Value {
		v := c.Argument(0)
		s.checkArg(v, "string", 0, helper)
		cmd := bson.D{{Key: cmdName, Value: bson.D{{Key: field, Value: v.String()}, {Key: "db", Value: name}}}}
		r := s.command(name, withOptions(cmd, c.Argument(1)))
		entries, ok := document.Get(r, list)
		if !ok {
			panic(s.mongoshError("MongoshInternalError", "COMMON-90001", missing))
		}
		arr, _ := entries.(bson.A)
		for _, x := range arr {
			if d, isDoc := x.(bson.D); isDoc {
				if got, _ := document.Get(d, field); got == v.String() {
					return s.toJS(d)
				}
			}
		}
		return goja.Null()
	}
	m("getRole", func(c goja.FunctionCall) goja.Value {
		return infoOne(c, "Database.getRole", "rolesInfo", "role", "roles", "No roles returned from rolesInfo command")
	})
	m("getUser", func(c goja.FunctionCall) goja.Value {
		return infoOne(c, "Database.getUser", "usersInfo", "user", "users", "No users were returned from the userInfo command")
	})
	// User administration: mongosh's helpers and the commands they send
	// (ttlkv serve --auth keeps the users; an embedded store has none
	// and answers 59).
	m("getUsers", func(c goja.FunctionCall) goja.Value {
		return s.toJS(s.command(name, withOptions(bson.D{{Key: "usersInfo", Value: 1}}, c.Argument(0))))
	})
	withWriteConcern := func(cmd bson.D, wc goja.Value) bson.D {
		if wc != nil && !goja.IsUndefined(wc) && !goja.IsNull(wc) {
			d, err := s.toBSONDoc(wc, "writeConcern")
			s.check(err)
			cmd = append(cmd, bson.E{Key: "writeConcern", Value: d})
		}
		return cmd
	}
	// userCommand is createUser or updateUser from a user document: its
	// fields as they are but user (the command's value) and
	// passwordDigestor, which says who digests the password.
	userCommand := func(cmdName, user string, doc bson.D, wc goja.Value) bson.D {
		cmd := bson.D{{Key: cmdName, Value: user}}
		digestor, pwd := "", ""
		for _, e := range doc {
			switch e.Key {
			case "user":
			case "passwordDigestor":
				digestor, _ = e.Value.(string)
				if digestor != "server" && digestor != "client" {
					panic(s.invalidInput(fmt.Sprintf("Invalid field: passwordDigestor must be 'client' or 'server', got %v", e.Value)))
				}
			default:
				if e.Key == "pwd" {
					pwd, _ = e.Value.(string)
				}
				cmd = append(cmd, e)
			}
		}
		cmd = withWriteConcern(cmd, wc)
		switch digestor {
		case "server":
			cmd = append(cmd, bson.E{Key: "digestPassword", Value: true})
		case "client":
			// The legacy SCRAM-SHA-1 digest, made by the shell.
			sum := md5.Sum([]byte(user + ":mongo:" + pwd))
			for i, e := range cmd {
				if e.Key == "pwd" {
					cmd[i].Value = hex.EncodeToString(sum[:])
				}
			}
			cmd = append(cmd, bson.E{Key: "digestPassword", Value: false})
		}
		return cmd
	}
	m("createUser", func(c goja.FunctionCall) goja.Value {
		s.checkArg(c.Argument(0), "object", 0, "Database.createUser")
		doc := s.docArg(c.Argument(0), "user")
		for _, k := range []string{"user", "roles", "pwd"} {
			if _, ok := document.Get(doc, k); !ok {
				panic(s.invalidInput(fmt.Sprintf("Missing required property: %q", k)))
			}
		}
		if _, ok := document.Get(doc, "createUser"); ok {
			panic(s.invalidInput("Cannot set createUser field in helper method"))
		}
		u, _ := document.Get(doc, "user")
		us, _ := u.(string)
		return s.toJS(s.command(name, userCommand("createUser", us, doc, c.Argument(1))))
	})
	m("updateUser", func(c goja.FunctionCall) goja.Value {
		s.checkArg(c.Argument(0), "string", 0, "Database.updateUser")
		s.checkArg(c.Argument(1), "object", 1, "Database.updateUser")
		doc := s.docArg(c.Argument(1), "update")
		return s.toJS(s.command(name, userCommand("updateUser", c.Argument(0).String(), doc, c.Argument(2))))
	})
	m("changeUserPassword", func(c goja.FunctionCall) goja.Value {
		s.checkArg(c.Argument(0), "string", 0, "Database.changeUserPassword")
		s.checkArg(c.Argument(1), "string", 1, "Database.changeUserPassword")
		cmd := bson.D{{Key: "updateUser", Value: c.Argument(0).String()}, {Key: "pwd", Value: c.Argument(1).String()}}
		return s.toJS(s.command(name, withWriteConcern(cmd, c.Argument(2))))
	})
	m("dropUser", func(c goja.FunctionCall) goja.Value {
		s.checkArg(c.Argument(0), "string", 0, "Database.dropUser")
		return s.toJS(s.command(name, withWriteConcern(bson.D{{Key: "dropUser", Value: c.Argument(0).String()}}, c.Argument(1))))
	})
	m("dropAllUsers", func(c goja.FunctionCall) goja.Value {
		return s.toJS(s.command(name, withWriteConcern(bson.D{{Key: "dropAllUsersFromDatabase", Value: 1}}, c.Argument(0))))
	})
	rolesCommand := func(cmdName, helper string) func(c goja.FunctionCall) goja.Value {
		return func(c goja.FunctionCall) goja.Value {
			s.checkArg(c.Argument(0), "string", 0, helper)
			if goja.IsUndefined(c.Argument(1)) {
				panic(s.mongoshError("MongoshInvalidInputError", "COMMON-10001", fmt.Sprintf("Missing required argument at position 1 (%s)", helper)))
			}
			roles, err := s.toBSON(c.Argument(1), 0)
			s.check(err)
			cmd := bson.D{{Key: cmdName, Value: c.Argument(0).String()}, {Key: "roles", Value: roles}}
			return s.toJS(s.command(name, withWriteConcern(cmd, c.Argument(2))))
		}
	}
	m("grantRolesToUser", rolesCommand("grantRolesToUser", "Database.grantRolesToUser"))
	m("revokeRolesFromUser", rolesCommand("revokeRolesFromUser", "Database.revokeRolesFromUser"))
	// User-defined roles (ttlkv serve keeps them; an embedded store
	// answers 59): mongosh's helpers and the commands they send.
	m("createRole", func(c goja.FunctionCall) goja.Value {
		s.checkArg(c.Argument(0), "object", 0, "Database.createRole")
		doc := s.docArg(c.Argument(0), "role")
		for _, k := range []string{"role", "privileges", "roles"} {
			if _, ok := document.Get(doc, k); !ok {
				panic(s.invalidInput(fmt.Sprintf("Missing required property: %q", k)))
			}
		}
		if v, ok := document.Get(doc, "createRole"); ok && truthy(v) {
			panic(s.invalidInput("Cannot set createRole field in helper method"))
		}
		role, _ := document.Get(doc, "role")
		cmd := bson.D{{Key: "createRole", Value: role}}
		for _, e := range doc {
			if e.Key != "role" && e.Key != "createRole" {
				cmd = append(cmd, e)
			}
		}
		return s.toJS(s.command(name, withWriteConcern(cmd, c.Argument(1))))
	})
	m("updateRole", func(c goja.FunctionCall) goja.Value {
		s.checkArg(c.Argument(0), "string", 0, "Database.updateRole")
		s.checkArg(c.Argument(1), "object", 1, "Database.updateRole")
		cmd := bson.D{{Key: "updateRole", Value: c.Argument(0).String()}}
		for _, e := range s.docArg(c.Argument(1), "roleDoc") {
			if e.Key != "updateRole" {
				cmd = append(cmd, e)
			}
		}
		return s.toJS(s.command(name, withWriteConcern(cmd, c.Argument(2))))
	})
	m("dropRole", func(c goja.FunctionCall) goja.Value {
		s.checkArg(c.Argument(0), "string", 0, "Database.dropRole")
		return s.toJS(s.command(name, withWriteConcern(bson.D{{Key: "dropRole", Value: c.Argument(0).String()}}, c.Argument(1))))
	})
	m("dropAllRoles", func(c goja.FunctionCall) goja.Value {
		return s.toJS(s.command(name, withWriteConcern(bson.D{{Key: "dropAllRolesFromDatabase", Value: 1}}, c.Argument(0))))
	})
	listCommand := func(cmdName, field, helper string) func(c goja.FunctionCall) goja.Value {
		return func(c goja.FunctionCall) goja.Value {
			s.checkArg(c.Argument(0), "string", 0, helper)
			if goja.IsUndefined(c.Argument(1)) {
				panic(s.mongoshError("MongoshInvalidInputError", "COMMON-10001", fmt.Sprintf("Missing required argument at position 1 (%s)", helper)))
			}
			list, err := s.toBSON(c.Argument(1), 0)
			s.check(err)
			cmd := bson.D{{Key: cmdName, Value: c.Argument(0).String()}, {Key: field, Value: list}}
			return s.toJS(s.command(name, withWriteConcern(cmd, c.Argument(2))))
		}
	}
	m("grantRolesToRole", listCommand("grantRolesToRole", "roles", "Database.grantRolesToRole"))
	m("revokeRolesFromRole", listCommand("revokeRolesFromRole", "roles", "Database.revokeRolesFromRole"))
	m("grantPrivilegesToRole", listCommand("grantPrivilegesToRole", "privileges", "Database.grantPrivilegesToRole"))
	m("revokePrivilegesFromRole", listCommand("revokePrivilegesFromRole", "privileges", "Database.revokePrivilegesFromRole"))
	m("fsyncLock", func(goja.FunctionCall) goja.Value {
		return s.toJS(s.command("admin", bson.D{{Key: "fsync", Value: 1}, {Key: "lock", Value: true}}))
	})
	m("fsyncUnlock", func(goja.FunctionCall) goja.Value {
		return s.toJS(s.command("admin", bson.D{{Key: "fsyncUnlock", Value: 1}}))
	})
	m("rotateCertificates", func(c goja.FunctionCall) goja.Value {
		cmd := bson.D{{Key: "rotateCertificates", Value: 1}}
		if msg := c.Argument(0); !goja.IsUndefined(msg) {
			cmd = append(cmd, bson.E{Key: "message", Value: msg.String()})
		}
		return s.toJS(s.command("admin", cmd))
	})
	m("killOp", func(c goja.FunctionCall) goja.Value {
		op, err := s.toBSON(c.Argument(0), 0)
		s.check(err)
		return s.toJS(s.command("admin", bson.D{{Key: "killOp", Value: 1}, {Key: "op", Value: op}}))
	})
	m("logout", func(goja.FunctionCall) goja.Value {
		return s.toJS(s.command(name, bson.D{{Key: "logout", Value: 1}}))
	})
	// getLastErrorObj and getLastError: deprecated; the getlasterror
	// command's reply, or the error it failed with, returned.
	lastError := func(c goja.FunctionCall) goja.Value {
		cmd := bson.D{{Key: "getlasterror", Value: 1}}
		if w := c.Argument(0); w.ToBoolean() {
			v, err := s.toBSON(w, 0)
			s.check(err)
			cmd = append(cmd, bson.E{Key: "w", Value: v})
		}
		if wt := c.Argument(1); wt.ToBoolean() {
			v, err := s.toBSON(wt, 0)
			s.check(err)
			cmd = append(cmd, bson.E{Key: "wtimeout", Value: v})
		}
		if j := c.Argument(2); !goja.IsUndefined(j) {
			v, err := s.toBSON(j, 0)
			s.check(err)
			cmd = append(cmd, bson.E{Key: "j", Value: v})
		}
		var v goja.Value
		func() {
			defer func() {
				if r := recover(); r != nil {
					o, isErr := r.(*goja.Object) // a server error thrown by command
					if !isErr {
						panic(r)
					}
					v = o
				}
			}()
			v = s.toJS(s.command(name, cmd))
		}()
		return v
	}
	m("getLastErrorObj", func(c goja.FunctionCall) goja.Value {
		s.deprecatedDB("getLastErrorObj")
		return lastError(c)
	})
	m("getLastError", func(c goja.FunctionCall) goja.Value {
		s.deprecatedDB("getLastError")
		r := lastError(goja.FunctionCall{Arguments: []goja.Value{c.Argument(0), c.Argument(1)}})
		if o, ok := r.(*goja.Object); ok {
			if e := o.Get("err"); e != nil && e.ToBoolean() {
				return e
			}
		}
		return goja.Null()
	})
	// db.aggregate(pipeline, options): {aggregate: 1}, as for $currentOp
	// on admin; an AggregationCursor like a collection's.
	m("aggregate", func(c goja.FunctionCall) goja.Value {
		p, err := s.toBSON(c.Argument(0), 0)
		s.check(err)
		pipeline, ok := p.(bson.A)
		if !ok {
			pipeline = bson.A{}
		}
		opts := s.optDoc(c.Argument(1), "options")
		cmd := bson.D{{Key: "aggregate", Value: 1}, {Key: "pipeline", Value: pipeline}}
		if _, ok := document.Get(opts, "cursor"); !ok {
			cmd = append(cmd, bson.E{Key: "cursor", Value: bson.D{}})
		}
		o := s.newCursor(name, "$cmd.aggregate", nil, nil)
		cur := s.cursorOf(o)
		cur.cmd = append(cmd, opts...)
		cur.fill()
		return o
	})
	// printCollectionStats: each collection's stats() under its name,
	// printed as mongosh's StatsResult (name, stats, "---" between).
	m("printCollectionStats", func(c goja.FunctionCall) goja.Value {
		scale := c.Argument(0)
		if goja.IsUndefined(scale) {
			scale = s.rt.ToValue(1)
		}
		if !goja.IsNumber(scale) || scale.ToFloat() < 1 {
			panic(s.mongoshError("MongoshInvalidInputError", "COMMON-10001", "scale has to be a number >=1, got "+scale.String()))
		}
		result := s.rt.NewObject()
		for _, cn := range s.collectionNames(name) {
			opts := s.rt.NewObject()
			_ = opts.Set("scale", scale)
			coll := s.collection(name, cn)
			var v goja.Value
			if err := s.guard(func() { v = s.callMethod(coll, "stats", opts) }); err != nil {
				e := s.rt.NewObject()
				_ = e.Set("ok", 0)
				msg := err.Error()
				if se, isScript := err.(*ScriptError); isScript {
					msg = se.Message
				}
				_ = e.Set("errmsg", msg)
				v = e
			}
			_ = result.Set(cn, v)
		}
		return s.commandResult("StatsResult", result)
	})
	// Replication information: ttlkv has no oplog (local.oplog.rs) and
	// no replica-set configuration (local.system.replset), so these
	// throw mongosh's errors for a server that is not in a replica set.
	notReplicated := func(goja.FunctionCall) goja.Value {
		panic(s.mongoshError("MongoshInvalidInputError", "SHAPI-10002", "Replication not detected. Are you connected to a replset?"))
	}
	m("getReplicationInfo", notReplicated)
	m("printReplicationInfo", notReplicated)
	m("printSecondaryReplicationInfo", func(goja.FunctionCall) goja.Value {
		panic(s.mongoshError("MongoshInvalidInputError", "SHAPI-10002", "local.system.replset is empty. Are you connected to a replica set?"))
	})
}

// deprecatedDB prints mongosh's deprecation warning for db.method(),
// once a shell.
func (s *Shell) deprecatedDB(method string) {
	if s.warned["Database."+method] {
		return
	}
	s.warned["Database."+method] = true
	fmt.Fprintf(s.out, "DeprecationWarning: Database.%s() is deprecated and will be removed in the future.\n", method)
}

// checkArg throws mongosh's error for an argument at position i that is
// missing or not of JavaScript type want (assertArgsDefinedType).
func (s *Shell) checkArg(a goja.Value, want string, i int, fn string) {
	if goja.IsUndefined(a) {
		panic(s.mongoshError("MongoshInvalidInputError", "COMMON-10001", fmt.Sprintf("Missing required argument at position %d (%s)", i, fn)))
	}
	if got := jsTypeof(a); !slices.Contains(strings.Split(want, " or "), got) {
		panic(s.mongoshError("MongoshInvalidInputError", "COMMON-10001", fmt.Sprintf("Argument at position %d must be of type %s, got %s instead (%s)", i, want, got, fn)))
	}
}
