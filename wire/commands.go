package wire

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math"
	"net"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// The version ttlkv claims to drivers (docs/wire.md, "Claimed version").
const (
	claimedVersion    = "7.0.0"
	minWireVersion    = 0
	maxWireVersion    = 21 // MongoDB 7.0
	sessionTimeoutMin = 30 // logicalSessionTimeoutMinutes
)

// genericFields are the fields any command may carry that ttlkv answers
// in the server (sessions, read preference, API version, cluster time,
// write concern) and that are taken out before the engine sees the
// command.
var genericFields = map[string]bool{
	"$db": true, "lsid": true, "$clusterTime": true, "$readPreference": true, "apiVersion": true,
	"apiStrict": true, "apiDeprecationErrors": true, "writeConcern": true, "readConcern": true,
	"$audit": true, "$client": true, "mayBypassWriteBlocking": true, "$configServerState": true,
	"maxTimeMSOpOnly": true, "$gleStats": true, "$replData": true, "$oplogQueryData": true,
}

// writeCommands are the commands whose write concern is honoured.
var writeCommands = map[string]bool{
	"insert": true, "update": true, "delete": true, "findAndModify": true, "findandmodify": true,
	"create": true, "drop": true, "dropDatabase": true, "createIndexes": true, "dropIndexes": true,
	"deleteIndexes": true, "collMod": true, "convertToCapped": true, "renameCollection": true,
	"createUser": true, "updateUser": true, "dropUser": true, "grantRolesToUser": true, "revokeRolesFromUser": true,
	"_mergeAuthzCollections": true, "createRole": true, "updateRole": true, "dropRole": true,
	"dropAllRolesFromDatabase": true, "grantRolesToRole": true, "revokeRolesFromRole": true,
	"grantPrivilegesToRole": true, "revokePrivilegesFromRole": true,
}

// run answers one command. noReply is true for {w: 0} (moreToCome).
func (c *conn) run(dbName string, cmd bson.D, noReply bool) bson.D {
	name := cmd[0].Key
	s := c.srv
	s.countOp(name, cmd)

	if err := c.authorize(dbName, name, cmd); err != nil {
		return err.reply()
	}
	if err := checkSessionFields(name, cmd); err != nil {
		return err.reply()
	}
	for _, k := range []string{"txnNumber", "startTransaction", "autocommit"} {
		if lookup(cmd, k) != nil {
			return errorDoc(20, "IllegalOperation", "Transaction numbers are only allowed on a replica set member or mongos", false)
		}
	}
	if err := checkReadConcern(cmd); err != nil {
		return err.reply()
	}
	switch name {
	case "getMore":
		if err := s.cursors.checkSession(cmd); err != nil {
			return err.reply()
		}
		if err := s.cursors.checkGetMore(dbName, cmd, c.userName()); err != nil {
			return err.reply()
		}
	case "killCursors":
		if err := s.cursors.checkKill(cmd, c.userName()); err != nil {
			return err.reply()
		}
	case "listDatabases":
		if v, ok := lookup(cmd, "authorizedDatabases").(bool); ok && !v && !c.allDatabasesAllowed() {
			return errorDoc(13, "Unauthorized", "Insufficient permissions to list all databases", false)
		}
	}
	switch name {
	case "commitTransaction", "abortTransaction":
		return errorDoc(20, "IllegalOperation", "Transaction numbers are only allowed on a replica set member or mongos", false)
	}
	wc, werr := parseWriteConcern(cmd)
	if werr != nil {
		return werr.reply()
	}

	o := s.ops.start(c, dbName, cmd)
	defer s.ops.finish(o)
	defer c.watchDisconnect()()
	s.stats.active.Add(1)
	defer s.stats.active.Add(-1)

	if h, ok := c.local(o.ctx, dbName, name, cmd); ok {
		return h
	}
	ctx := o.ctx
	if keep := c.ownOpsFilter(dbName, name, cmd); keep != nil {
		ctx = engine.WithOperationsFilter(ctx, keep)
	}
	if name == "listCollections" {
		if keep := c.collectionsFilter(); keep != nil {
			ctx = engine.WithCollectionsFilter(ctx, keep)
		}
	}
	if a, isTCP := c.nc.LocalAddr().(*net.TCPAddr); isTCP {
		// The answers that name the server ($collStats, $indexStats,
		// dbHash) give the port the client connected to, as mongod's.
		ctx = engine.WithListenPort(ctx, a.Port)
	}
	// explain's serverInfo gives the version buildInfo claims.
	ctx = engine.WithServerVersion(ctx, claimedVersion)
	clean := make(bson.D, 0, len(cmd))
	for _, e := range cmd {
		if genericFields[e.Key] {
			continue
		}
		if e.Key == "maxTimeMS" && name != "getMore" {
			// Every command takes maxTimeMS; the server applies it, so
			// commands whose engine parser lists no maxTimeMS accept it.
			if ms := document.Int64(e.Value); ms > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, time.Duration(ms)*time.Millisecond)
				defer cancel()
			}
			if name != "find" && name != "aggregate" {
				continue
			}
		}
		clean = append(clean, e)
	}
	if name == "getMore" && lookup(clean, "batchSize") == nil {
		// The engine returns everything left to a getMore without
		// batchSize; keep the reply near 16 MiB as mongod does.
		if id, ok := cmd[0].Value.(int64); ok {
			if n := s.cursors.batchSizeFor(id, s.replyTarget); n > 0 {
				clean = append(clean, bson.E{Key: "batchSize", Value: n})
			}
		}
	}
	var reply bson.D
	var err error
	fast := false
	if name == "find" {
		reply, fast = s.fastFind(ctx, dbName, clean)
	}
	if !fast {
		// Batches of stored documents come as bson.Raw, copied into
		// the reply without decoding (docs/wire.md, "Where the time goes").
		reply, err = s.db.RunCommandRaw(ctx, dbName, clean)
	}
	if err != nil && o.killed.Load() {
		return errorDoc(11601, "Interrupted", "operation was interrupted", false)
	}
	if err != nil && ctx.Err() == context.DeadlineExceeded && o.ctx.Err() == nil {
		return errorDoc(50, "MaxTimeMSExpired", "operation exceeded time limit", false)
	}
	if err != nil && errors.Is(err, context.Canceled) {
		return errorDoc(11600, "InterruptedAtShutdown", "interrupted at shutdown", false)
	}
	if err == nil {
		s.cursors.track(c.id, cmd, reply, c.userName())
		if wc.j && writeCommands[name] {
			if serr := s.db.Sync(); serr != nil {
				return errorDoc(1, "InternalError", "syncing for {j: true}: "+serr.Error(), false)
			}
		}
		switch name {
		case "serverStatus":
			reply = s.mergeServerStatus(reply, c.prettyHostName)
		case "buildInfo", "buildinfo":
			reply = mergeBuildInfo(reply)
		case "listCommands":
			reply = mergeListCommands(reply)
		case "hostInfo":
			reply = c.mergeHostInfo(reply)
		case "listDatabases":
			reply = c.authorizedDatabases(reply)
		}
	}
	if noReply && err != nil {
		s.opts.Logf("conn%d: unacknowledged %s failed: %v", c.id, name, err)
	}
	return reply
}

// writeConcern is the part of a command's writeConcern ttlkv acts on.
type writeConcern struct{ j bool }

func parseWriteConcern(cmd bson.D) (writeConcern, *cmdError) {
	var wc writeConcern
	v := lookup(cmd, "writeConcern")
	if v == nil {
		return wc, nil
	}
	d, _ := v.(bson.D)
	if err := errors.Join(engine.CheckWriteConcern(v), engine.WriteConcernSupported(cmd)); err != nil {
		var de *document.Error
		if errors.As(err, &de) {
			return wc, &cmdError{int32(de.Code), de.Name(), de.Message}
		}
		return wc, &cmdError{2, "BadValue", err.Error()}
	}
	for _, e := range d {
		switch e.Key {
		case "j", "fsync":
			// A bool or a number (engine.CheckWriteConcern typed it).
			wc.j = wc.j || trueValue(e.Value)
		case "w":
			switch w := e.Value.(type) {
			case string:
				if w != "majority" {
					return wc, &cmdError{79, "UnknownReplWriteConcern", fmt.Sprintf("No write concern mode named '%s' found in replica set configuration", w)}
				}
			case int32, int64, float64:
				n := document.Int64(w)
				if n < 0 {
					return wc, &cmdError{9, "FailedToParse", "w has to be a non-negative number and not greater than 50; found: " + fmt.Sprint(n)}
				}
				if n > 1 {
					return wc, &cmdError{2, "BadValue", "cannot use 'w' > 1 on a standalone"}
				}
			}
		}
	}
	return wc, nil
}

// cmdError is an error reply made in the server.
type cmdError struct {
	code     int32
	codeName string
	msg      string
}

func (e *cmdError) reply() bson.D { return errorDoc(e.code, e.codeName, e.msg, false) }

// local answers the commands the server owns (handshake, sessions,
// killOp, auth, users); ok is false for the engine's commands.
func (c *conn) local(ctx context.Context, dbName, name string, cmd bson.D) (bson.D, bool) {
	switch name {
	case "hello", "isMaster", "ismaster":
		return c.hello(cmd, name != "hello"), true
	case "startSession":
		id := make([]byte, 16)
		rand.Read(id)
		id[6] = id[6]&0x0f | 0x40
		id[8] = id[8]&0x3f | 0x80
		return bson.D{{Key: "id", Value: bson.D{{Key: "id", Value: bson.Binary{Subtype: 4, Data: id}}}},
			{Key: "timeoutMinutes", Value: int32(sessionTimeoutMin)}, {Key: "ok", Value: 1.0}}, true
	case "endSessions", "refreshSessions", "killSessions", "killAllSessions", "killAllSessionsByPattern":
		return bson.D{{Key: "ok", Value: 1.0}}, true
	case "whatsmyuri":
		return bson.D{{Key: "you", Value: c.remote}, {Key: "ok", Value: 1.0}}, true
	case "killOp":
		return c.srv.killOp(dbName, cmd), true
	case "getMore":
		if id, ok := cmd[0].Value.(int64); ok {
			c.srv.cursors.adopt(id, c.id)
		}
	case "killCursors":
		if arr, ok := lookup(cmd, "cursors").(bson.A); ok {
			for _, v := range arr {
				if id, ok := v.(int64); ok {
					c.srv.cursors.forget(id)
				}
			}
		}
	case "saslStart", "saslContinue", "authenticate", "logout", "connectionStatus",
		"createUser", "updateUser", "dropUser", "usersInfo", "dropAllUsersFromDatabase",
		"grantRolesToUser", "revokeRolesFromUser", "_mergeAuthzCollections":
		return c.authCommand(ctx, dbName, name, cmd), true
	case "createRole", "updateRole", "dropRole", "dropAllRolesFromDatabase", "rolesInfo",
		"grantRolesToRole", "revokeRolesFromRole", "grantPrivilegesToRole", "revokePrivilegesFromRole":
		return c.roleCommand(ctx, dbName, name, cmd), true
	}
	return nil, false
}

// localCommands describes the commands local answers that the engine
// does not know, for listCommands (docs/commands.md, "listCommands");
// TestLocalCommandsListed checks that each is answered here.
var localCommands = []struct {
	name, help string
	noAuth     bool // requiresAuth: false
	apiV1      bool // in the Stable API, version 1
	adminOnly  bool // runs against admin only (13 elsewhere)
}{
	{"startSession", "starts a logical session", false, false, false},
	{"refreshSessions", "keeps sessions alive (ttlkv keeps no server sessions)", false, true, false},
	{"killSessions", "ends sessions and their operations (ttlkv keeps no server sessions)", false, false, false},
	{"killAllSessions", "ends every session (ttlkv keeps no server sessions)", false, false, false},
	{"killAllSessionsByPattern", "ends the sessions that match (ttlkv keeps no server sessions)", false, false, false},
	{"whatsmyuri", "the client's address as the server sees it", false, false, false},
	{"killOp", "interrupts a running operation by its opid", false, false, true},
	{"saslStart", "starts a SCRAM-SHA-256 conversation", true, false, false},
	{"saslContinue", "continues a SCRAM-SHA-256 conversation", true, false, false},
	{"authenticate", "authenticates with a mechanism other than SASL (refused: only SCRAM-SHA-256)", true, true, false},
	{"logout", "forgets the connection's authentication", true, false, false},
	{"connectionStatus", "the users and roles the connection is authenticated as", true, false, false},
	{"createUser", "adds a user", false, false, false},
	{"updateUser", "changes a user's password or roles", false, false, false},
	{"dropUser", "removes a user", false, false, false},
	{"usersInfo", "describes users", false, false, false},
	{"dropAllUsersFromDatabase", "removes every user of a database", false, false, false},
	{"grantRolesToUser", "gives a user more roles", false, false, false},
	{"revokeRolesFromUser", "takes roles from a user", false, false, false},
	{"_mergeAuthzCollections", "merges users and roles restored into temporary collections (mongorestore)", false, false, true},
	{"createRole", "adds a user-defined role", false, false, false},
	{"updateRole", "replaces a user-defined role's privileges or roles", false, false, false},
	{"dropRole", "removes a user-defined role from users, roles and the database", false, false, false},
	{"dropAllRolesFromDatabase", "removes every user-defined role of a database", false, false, false},
	{"rolesInfo", "describes roles, built-in and user-defined", false, false, false},
	{"grantRolesToRole", "makes a user-defined role inherit more roles", false, false, false},
	{"revokeRolesFromRole", "takes inherited roles from a user-defined role", false, false, false},
	{"grantPrivilegesToRole", "gives a user-defined role more privileges", false, false, false},
	{"revokePrivilegesFromRole", "takes privileges from a user-defined role", false, false, false},
}

// mergeListCommands adds the commands the server answers itself to the
// engine's listCommands reply, in the engine's shape, keeping the names
// in byte order.
func mergeListCommands(reply bson.D) bson.D {
	cmds, ok := lookup(reply, "commands").(bson.D)
	if !ok {
		return reply
	}
	merged := append(bson.D(nil), cmds...)
	for _, lc := range localCommands {
		if lookup(cmds, lc.name) != nil {
			continue
		}
		versions := bson.A{}
		if lc.apiV1 {
			versions = append(versions, "1")
		}
		merged = append(merged, bson.E{Key: lc.name, Value: bson.D{
			{Key: "help", Value: lc.help}, {Key: "requiresAuth", Value: !lc.noAuth},
			{Key: "secondaryOk", Value: true}, {Key: "adminOnly", Value: lc.adminOnly},
			{Key: "apiVersions", Value: versions}, {Key: "deprecatedApiVersions", Value: bson.A{}},
		}})
	}
	sort.SliceStable(merged, func(i, j int) bool { return merged[i].Key < merged[j].Key })
	out := make(bson.D, 0, len(reply))
	for _, e := range reply {
		if e.Key == "commands" {
			e.Value = merged
		}
		out = append(out, e)
	}
	return out
}

// mergeHostInfo gives hostInfo's system.hostname the port the client
// connected to, as mongod names itself "host:port" when the port is not
// 27017 (docs/commands.md, "hostInfo").
func (c *conn) mergeHostInfo(reply bson.D) bson.D {
	out := make(bson.D, len(reply))
	for i, e := range reply {
		if sys, isDoc := e.Value.(bson.D); isDoc && e.Key == "system" {
			sys = append(bson.D(nil), sys...)
			for j, f := range sys {
				if h, isStr := f.Value.(string); isStr && f.Key == "hostname" {
					sys[j].Value = c.prettyHostName(h)
				}
			}
			e.Value = sys
		}
		out[i] = e
	}
	return out
}

// prettyHostName is host as mongod names itself to a client (its
// prettyHostName, which hostInfo and serverStatus give): "host:port"
// when the client connected to a port other than 27017.
func (c *conn) prettyHostName(host string) string {
	a, ok := c.nc.LocalAddr().(*net.TCPAddr)
	if !ok || a.Port == 27017 {
		return host
	}
	return host + ":" + strconv.Itoa(a.Port)
}

// hello answers hello and isMaster in mongod's shape for a standalone.
func (c *conn) hello(cmd bson.D, legacy bool) bson.D {
	s := c.srv
	base, err := s.db.RunCommand(c.ctx, "admin", bson.D{{Key: "hello", Value: 1}})
	if err != nil {
		return base
	}
	if v := lookup(cmd, "client"); v != nil {
		// As mongod: only the first hello of a connection may carry
		// the client's metadata, and it must be well formed.
		if c.helloSeen {
			return (&cmdError{186, "ClientMetadataCannotBeMutated", "The client metadata document may only be sent in the first hello"}).reply()
		}
		if err := checkClientMetadata(v); err != nil {
			return err.reply()
		}
		c.client, _ = v.(bson.D)
	}
	c.helloSeen = true
	var reply bson.D
	if legacy {
		if v, ok := lookup(cmd, "helloOk").(bool); ok && v {
			reply = append(reply, bson.E{Key: "helloOk", Value: true})
		}
	}
	for _, e := range base {
		switch e.Key {
		case "ok", "maxWireVersion", "minWireVersion":
			continue
		case "isWritablePrimary":
			if legacy {
				continue
			}
		case "ismaster":
			if !legacy {
				continue
			}
		}
		reply = append(reply, e)
	}
	reply = append(reply,
		bson.E{Key: "logicalSessionTimeoutMinutes", Value: int32(sessionTimeoutMin)},
		bson.E{Key: "connectionId", Value: int32(c.id)},
		bson.E{Key: "minWireVersion", Value: int32(minWireVersion)},
		bson.E{Key: "maxWireVersion", Value: int32(maxWireVersion)},
	)
	if arr, ok := lookup(cmd, "compression").(bson.A); ok {
		var names bson.A
		for _, v := range arr {
			n, _ := v.(string)
			if _, known := compressorNames[n]; known && contains(s.opts.Compressors, n) {
				names = append(names, n)
			}
		}
		if len(names) > 0 {
			reply = append(reply, bson.E{Key: "compression", Value: names})
		}
	}
	// As mongod, with access control off too: a client that gives
	// credentials logs in (a user restored by mongorestore, say), and
	// its driver picks SCRAM-SHA-256 from saslSupportedMechs instead of
	// SCRAM-SHA-1, which ttlkv does not keep.
	if spec, ok := lookup(cmd, "speculativeAuthenticate").(bson.D); ok {
		// The driver's first SCRAM step rides on the handshake; a
		// failure here is silent and the driver starts over.
		if mech, _ := lookup(spec, "mechanism").(string); mech == mechanism {
			db, _ := lookup(spec, "db").(string)
			if r := c.saslStart(c.ctx, db, spec); lookup(r, "ok") == 1.0 {
				reply = append(reply, bson.E{Key: "speculativeAuthenticate", Value: r[:len(r)-1]})
			}
		}
	}
	if mech, ok := lookup(cmd, "saslSupportedMechs").(string); ok {
		if s.users.exists(c.ctx, mech) {
			reply = append(reply, bson.E{Key: "saslSupportedMechs", Value: bson.A{"SCRAM-SHA-256"}})
		}
	}
	return append(reply, bson.E{Key: "ok", Value: 1.0})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// mergeBuildInfo reports the claimed MongoDB version, keeping ttlkv's
// own as ttlkvVersion.
// The other fields keep the engine's order, which is mongod's.
func mergeBuildInfo(reply bson.D) bson.D {
	out := make(bson.D, 0, len(reply)+1)
	for _, e := range reply {
		switch e.Key {
		case "version":
			out = append(out, bson.E{Key: "version", Value: claimedVersion}, bson.E{Key: "ttlkvVersion", Value: engine.Version})
		case "versionArray":
			out = append(out, bson.E{Key: "versionArray", Value: bson.A{int32(7), int32(0), int32(0), int32(0)}})
		default:
			out = append(out, e)
		}
	}
	return out
}

func (s *Server) countOp(name string, cmd bson.D) {
	switch name {
	case "insert":
		if arr, ok := lookup(cmd, "documents").(bson.A); ok {
			s.stats.insert.Add(int64(len(arr)))
		}
	case "find":
		s.stats.query.Add(1)
	case "update":
		if arr, ok := lookup(cmd, "updates").(bson.A); ok {
			s.stats.update.Add(int64(len(arr)))
		}
	case "delete":
		if arr, ok := lookup(cmd, "deletes").(bson.A); ok {
			s.stats.delete.Add(int64(len(arr)))
		}
	case "getMore":
		s.stats.getmore.Add(1)
	default:
		s.stats.cmd.Add(1)
	}
}

// Stats is a snapshot of the server's counters, as serverStatus shows
// them in its connections, opcounters and network sections.
type Stats struct {
	Current, Available, TotalCreated, Active, Refused int64
	BytesIn, BytesOut, NumRequests                    int64
	Insert, Query, Update, Delete, GetMore, Command   int64
	OpenCursors                                       int // cursors the server tracks for its connections
}

// Stats returns the server's counters.
func (s *Server) Stats() Stats {
	st := &s.stats
	cur := st.current.Load()
	return Stats{
		Current: cur, Available: int64(s.opts.MaxConns) - cur, TotalCreated: st.totalCreated.Load(),
		Active: st.active.Load(), Refused: st.refused.Load(),
		BytesIn: st.bytesIn.Load(), BytesOut: st.bytesOut.Load(), NumRequests: st.numRequests.Load(),
		Insert: st.insert.Load(), Query: st.query.Load(), Update: st.update.Load(), Delete: st.delete.Load(),
		GetMore: st.getmore.Load(), Command: st.cmd.Load(), OpenCursors: s.cursors.len(),
	}
}

func (s *Server) mergeServerStatus(reply bson.D, hostName func(string) string) bson.D {
	st := s.Stats()
	out := make(bson.D, 0, len(reply)+3)
	for _, e := range reply {
		switch e.Key {
		case "opcounters", "ok":
			continue
		case "host":
			if h, ok := e.Value.(string); ok {
				e.Value = hostName(h)
			}
		case "version":
			// The version buildInfo claims (mongostat shows this one),
			// ttlkv's own beside it, as buildInfo gives both.
			out = append(out, bson.E{Key: "version", Value: claimedVersion}, bson.E{Key: "ttlkvVersion", Value: e.Value})
			continue
		}
		out = append(out, e)
	}
	return append(out,
		bson.E{Key: "connections", Value: bson.D{{Key: "current", Value: int32(st.Current)},
			{Key: "available", Value: int32(st.Available)}, {Key: "totalCreated", Value: int32(st.TotalCreated)},
			{Key: "rejected", Value: int32(st.Refused)}, {Key: "active", Value: int32(st.Active)}}},
		bson.E{Key: "opcounters", Value: bson.D{{Key: "insert", Value: st.Insert}, {Key: "query", Value: st.Query},
			{Key: "update", Value: st.Update}, {Key: "delete", Value: st.Delete}, {Key: "getmore", Value: st.GetMore},
			{Key: "command", Value: st.Command}}},
		bson.E{Key: "network", Value: bson.D{{Key: "bytesIn", Value: st.BytesIn}, {Key: "bytesOut", Value: st.BytesOut},
			{Key: "numRequests", Value: st.NumRequests}}},
		bson.E{Key: "ok", Value: 1.0})
}

// op is one client operation in progress, shown by currentOp and
// stopped by killOp.
type op struct {
	id      int32
	conn    *conn
	db      string
	cmd     bson.D
	started time.Time
	ctx     context.Context
	cancel  context.CancelFunc
	killed  atomic.Bool
	// user and userDB name the user the connection was logged in as
	// when the op started (empty without one or without access
	// control); currentOp shows them as effectiveUsers.
	user, userDB string
}

// ns is the namespace currentOp shows for o: its collection's, or the
// database's $cmd. Built when shown, not for every request.
func (o *op) ns() string {
	if coll, ok := o.cmd[0].Value.(string); ok {
		return o.db + "." + coll
	}
	if coll, ok := lookup(o.cmd, "collection").(string); ok && o.cmd[0].Key == "getMore" {
		return o.db + "." + coll // the cursor's collection
	}
	return o.db + ".$cmd"
}

// kind is the op currentOp shows for o: the logical operation mongod's
// command reports (getLogicalOp, named by logicalOpToString), "command"
// for the commands that report none of their own.
func (o *op) kind() string {
	switch o.cmd[0].Key {
	case "find":
		return "query"
	case "getMore":
		return "getmore"
	case "insert", "update":
		return o.cmd[0].Key
	case "delete":
		return "remove"
	}
	return "command"
}

type opRegistry struct {
	mu sync.Mutex
	m  map[int32]*op
}

func (r *opRegistry) start(c *conn, dbName string, cmd bson.D) *op {
	o := &op{id: c.srv.nextOpID.Add(1), conn: c, db: dbName, cmd: cmd, started: time.Now()}
	if u := c.auth.user; u != nil && c.srv.opts.Auth {
		o.user, o.userDB = u.User, u.DB
	}
	// A connection runs one request at a time, and nothing keeps an
	// op's context once its request is answered, so the operations of
	// a connection share one cancelable context until killOp cancels
	// it: a context per request cost an allocation and two updates of
	// the connection context's children. killOp cancels under r.mu
	// while the op is registered, so it never reaches a later op.
	if c.opCtx == nil || c.opCtx.Err() != nil {
		c.opCtx, c.opCancel = context.WithCancel(c.ctx)
	}
	o.ctx, o.cancel = c.opCtx, c.opCancel
	r.mu.Lock()
	r.m[o.id] = o
	r.mu.Unlock()
	return o
}

func (r *opRegistry) finish(o *op) {
	r.mu.Lock()
	delete(r.m, o.id)
	r.mu.Unlock()
}

func (s *Server) killOp(dbName string, cmd bson.D) bson.D {
	if dbName != "admin" {
		return errorDoc(13, "Unauthorized", "killOp may only be run against the admin database.", false)
	}
	v := lookup(cmd, "op")
	if v == nil {
		return errorDoc(4, "NoSuchKey", "Missing expected field \"op\"", false)
	}
	if !document.IsNumber(v) {
		return errorDoc(14, "TypeMismatch", fmt.Sprintf("Expected field \"op\" to have numeric type, but found %s", document.TypeName(v)), false)
	}
	n := document.Int64(v)
	if n < math.MinInt32 || n > math.MaxInt32 {
		// An id that does not fit is no op's, rather than the op of
		// its low 32 bits.
		return errorDoc(26823, "Location26823", fmt.Sprintf("invalid op : %d. Op ID cannot be represented with 32 bits", n), false)
	}
	id := int32(n)
	s.ops.mu.Lock()
	if o := s.ops.m[id]; o != nil {
		// Under the lock: once finish has run, the context may be the
		// next op's.
		o.killed.Store(true)
		o.cancel()
	}
	s.ops.mu.Unlock()
	return bson.D{{Key: "info", Value: "attempting to kill op"}, {Key: "ok", Value: 1.0}}
}

// clientOps returns the client operations in progress, as currentOp
// shows them; the engine lists them beside its own (the currentOp
// command and the $currentOp stage; engine.DB.SetOperationsSource).
func (s *Server) clientOps() []bson.D {
	s.ops.mu.Lock()
	ops := make([]*op, 0, len(s.ops.m))
	for _, o := range s.ops.m {
		ops = append(ops, o)
	}
	s.ops.mu.Unlock()
	now := time.Now()
	out := make([]bson.D, 0, len(ops))
	for _, o := range ops {
		d := bson.D{{Key: "type", Value: "op"}, {Key: "opid", Value: o.id}, {Key: "active", Value: true},
			{Key: "connectionId", Value: int32(o.conn.id)}, {Key: "client", Value: o.conn.remote},
			{Key: "desc", Value: fmt.Sprintf("conn%d", o.conn.id)}, {Key: "op", Value: o.kind()},
			{Key: "ns", Value: o.ns()}, {Key: "command", Value: shownCommand(o.cmd)},
			{Key: "secs_running", Value: int64(now.Sub(o.started) / time.Second)},
			{Key: "microsecs_running", Value: int64(now.Sub(o.started) / time.Microsecond)}}
		if o.conn.client != nil {
			d = append(d, bson.E{Key: "clientMetadata", Value: o.conn.client})
		}
		if o.user != "" {
			d = append(d, bson.E{Key: "effectiveUsers", Value: bson.A{bson.D{{Key: "user", Value: o.user}, {Key: "db", Value: o.userDB}}}})
		}
		out = append(out, d)
	}
	return out
}

// noAuthCommands are the commands mongod runs without authentication;
// they take no transaction number.
var noAuthCommands = map[string]bool{
	"hello": true, "isMaster": true, "ismaster": true, "ping": true, "buildInfo": true, "buildinfo": true,
	"saslStart": true, "saslContinue": true, "authenticate": true, "logout": true, "getnonce": true,
}

// sessionID is the id of a command's lsid (nil without one, or when it
// has none).
func sessionID(v any) []byte {
	switch l := v.(type) {
	case bson.Raw:
		if _, d, ok := l.Lookup("id").BinaryOK(); ok {
			return d
		}
	case bson.D:
		if b, ok := lookup(l, "id").(bson.Binary); ok {
			return b.Data
		}
	}
	return nil
}

// checkSessionFields checks lsid, txnNumber, autocommit and
// startTransaction as mongod parses them before a command runs: types
// (14), an lsid without id (40414), a txnNumber on a command that needs
// no authentication (50889), and the fields each needs beside it (72).
func checkSessionFields(name string, cmd bson.D) *cmdError {
	lsid := lookup(cmd, "lsid")
	switch l := lsid.(type) {
	case nil:
	case bson.Raw:
		if _, err := l.LookupErr("id"); err != nil {
			return &cmdError{40414, "Location40414", "BSON field 'OperationSessionInfo.lsid.id' is missing but a required field"}
		}
	case bson.D:
		if lookup(l, "id") == nil {
			return &cmdError{40414, "Location40414", "BSON field 'OperationSessionInfo.lsid.id' is missing but a required field"}
		}
	default:
		return &cmdError{14, "TypeMismatch", fmt.Sprintf("BSON field 'OperationSessionInfo.lsid' is the wrong type '%s', expected type 'object'", document.TypeName(lsid))}
	}
	txn := lookup(cmd, "txnNumber")
	if txn != nil {
		switch txn.(type) {
		case int64, int32:
		default:
			return &cmdError{14, "TypeMismatch", fmt.Sprintf("BSON field 'OperationSessionInfo.txnNumber' is the wrong type '%s', expected type 'long'", document.TypeName(txn))}
		}
	}
	for _, k := range []string{"autocommit", "startTransaction"} {
		if v := lookup(cmd, k); v != nil {
			if _, ok := v.(bool); !ok {
				return &cmdError{14, "TypeMismatch", fmt.Sprintf("BSON field 'OperationSessionInfo.%s' is the wrong type '%s', expected type 'bool'", k, document.TypeName(v))}
			}
		}
	}
	switch {
	case noAuthCommands[name] && txn != nil:
		return &cmdError{50889, "Location50889", "It is illegal to provide a txnNumber for this command"}
	case lsid == nil && txn != nil:
		return &cmdError{72, "InvalidOptions", "Transaction number requires a session ID to also be specified"}
	case lookup(cmd, "autocommit") != nil && txn == nil:
		return &cmdError{72, "InvalidOptions", "'autocommit' field requires a transaction number to also be specified"}
	case lookup(cmd, "startTransaction") != nil && lookup(cmd, "autocommit") == nil:
		return &cmdError{72, "InvalidOptions", "'startTransaction' field requires 'autocommit' field to also be specified"}
	}
	return nil
}

// readConcernLevels are the levels mongod knows.
var readConcernLevels = map[string]bool{"local": true, "majority": true, "linearizable": true, "available": true, "snapshot": true}

// checkReadConcern checks a command's readConcern as mongod parses it:
// a known level (9), known fields (72), and none a standalone cannot
// give, linearizable and snapshot (123 NotAReplicaSet).
func checkReadConcern(cmd bson.D) *cmdError {
	rc, ok := lookup(cmd, "readConcern").(bson.D)
	if !ok {
		return nil
	}
	for _, e := range rc {
		switch e.Key {
		case "level", "afterClusterTime", "afterOpTime", "atClusterTime", "provenance", "allowTransactionTableSnapshot":
		default:
			return &cmdError{72, "InvalidOptions", "Unrecognized option in readConcern: " + e.Key}
		}
	}
	lv := lookup(rc, "level")
	if lv == nil {
		return nil
	}
	level, _ := lv.(string)
	if !readConcernLevels[level] {
		return &cmdError{9, "FailedToParse", "readConcern.level must be either 'local', 'majority', 'linearizable', 'available', or 'snapshot'"}
	}
	if level == "linearizable" || level == "snapshot" {
		return &cmdError{123, "NotAReplicaSet", "node needs to be a replica set member to use read concern"}
	}
	return nil
}

// checkClientMetadata checks a hello's client document as mongod does:
// a document (14) of at most 1024 bytes (185), with driver.name,
// driver.version and os.type strings (183 when missing, 14 when not
// strings), an application.name of at most 128 bytes (184).
func checkClientMetadata(v any) *cmdError {
	doc, ok := v.(bson.D)
	if !ok {
		return &cmdError{14, "TypeMismatch", "The client metadata document must be a document"}
	}
	if n := document.Size(doc); n > 1024 {
		return &cmdError{185, "ClientMetadataDocumentTooLarge", "The client metadata document must be less then or equal to 1024 bytes"}
	}
	need := func(sub string, fields ...string) *cmdError {
		d, ok := lookup(doc, sub).(bson.D)
		if !ok {
			if lookup(doc, sub) == nil {
				return &cmdError{183, "ClientMetadataMissingField", fmt.Sprintf("Missing required sub-document '%s' in the client metadata document", sub)}
			}
			return &cmdError{14, "TypeMismatch", fmt.Sprintf("The '%s' field is required to be a BSON document in the client metadata document", sub)}
		}
		for _, f := range fields {
			switch lookup(d, f).(type) {
			case string:
			case nil:
				return &cmdError{183, "ClientMetadataMissingField", fmt.Sprintf("Missing required field '%s.%s' in the client metadata document", sub, f)}
			default:
				return &cmdError{14, "TypeMismatch", fmt.Sprintf("The '%s.%s' field must be a string in the client metadata document", sub, f)}
			}
		}
		return nil
	}
	if app := lookup(doc, "application"); app != nil {
		a, ok := app.(bson.D)
		if !ok {
			return &cmdError{14, "TypeMismatch", "The 'application' field is required to be a BSON document in the client metadata document"}
		}
		switch name := lookup(a, "name").(type) {
		case nil:
		case string:
			if len(name) > 128 {
				return &cmdError{184, "ClientMetadataAppNameTooLarge", "The 'application.name' field must be less then or equal to 128 bytes in the client metadata document"}
			}
		default:
			return &cmdError{14, "TypeMismatch", "The 'application.name' field must be a string in the client metadata document"}
		}
	}
	if err := need("driver", "name", "version"); err != nil {
		return err
	}
	return need("os", "type")
}
