package wire

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/xdg-go/scram"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine"
	"github.com/ttlkv/ttlkv/engine/agg"
)

// Access control (docs/wire.md, "Access control"): users live in
// admin.system.users, each with a SCRAM-SHA-256 salted and hashed
// credential and built-in roles; the password itself is never stored.

const (
	mechanism      = "SCRAM-SHA-256"
	scramIters     = 15000 // MongoDB's scramSHA256IterationCount default
	usersColl      = "system.users"
	authFailedMsg  = "Authentication failed."
	unauthFmt      = "Command %s requires authentication"
	notAuthorizeMs = "not authorized on %s to execute command { %s: %v }"
)

// authState is a connection's authentication: the user it logged in
// as, and a SASL conversation in progress.
type authState struct {
	user   *userDoc
	gen    int64 // the users' generation user was read at (userStore.gen)
	conv   *scram.ServerConversation
	convDB string
	convID int32
}

// userDoc is a stored user, its fields in the order mongod 7.0's
// createUser writes them.
type userDoc struct {
	ID string `bson:"_id"`
	// UserID is the UUID createUser gives the user (mongod's userId),
	// which a user dropped and created again under the same name does
	// not share; nil for a user read from a document without one.
	UserID      *bson.Binary `bson:"userId,omitempty"`
	User        string       `bson:"user"`
	DB          string       `bson:"db"`
	Credentials creds        `bson:"credentials"`
	CustomData  bson.D       `bson:"customData,omitempty"` // what the administrator keeps about the user
	Roles       []roleName   `bson:"roles"`
	// eff is what the user's roles give, user-defined roles resolved
	// (userStore.load); nil when every role is a built-in one.
	eff *grants
}

// newUserID returns a random (version 4) UUID for a new user's userId.
func newUserID() (*bson.Binary, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return &bson.Binary{Subtype: bson.TypeBinaryUUID, Data: b}, nil
}

type creds struct {
	SHA256 scramCred `bson:"SCRAM-SHA-256"`
}

type scramCred struct {
	IterationCount int    `bson:"iterationCount"`
	Salt           string `bson:"salt"`
	StoredKey      string `bson:"storedKey"`
	ServerKey      string `bson:"serverKey"`
}

type roleName struct {
	Role string `bson:"role"`
	DB   string `bson:"db"`
}

// userStore reads and writes users through the engine.
type userStore struct {
	db    *engine.DB
	mu    sync.Mutex // serializes user changes
	known atomic.Int32
	// known: 0 not yet counted, 1 no users, 2 some users
	everHad atomic.Bool // a user has existed since the server started
	// gen counts the changes to users, so that a connection reads its
	// user again after one, as mongod does: a role granted or revoked,
	// or the user dropped, applies to connections already logged in.
	gen atomic.Int64
}

func (u *userStore) coll() *engine.Collection { return u.db.Database("admin").Collection(usersColl) }

// load reads a user as get does and resolves its user-defined roles,
// so that the connection logged in as it is granted what they give.
func (u *userStore) load(ctx context.Context, db, user string) (*userDoc, error) {
	ud, err := u.get(ctx, db, user)
	if err != nil {
		return nil, err
	}
	for _, r := range ud.Roles {
		if !grantableBuiltin(r) {
			g := u.resolve(ctx, ud.Roles)
			ud.eff = &g
			break
		}
	}
	return ud, nil
}

func (u *userStore) get(ctx context.Context, db, user string) (*userDoc, error) {
	d, err := u.coll().FindOne(ctx, bson.D{{Key: "_id", Value: db + "." + user}})
	if err != nil {
		return nil, err
	}
	var ud userDoc
	b, err := bson.Marshal(d)
	if err == nil {
		err = bson.Unmarshal(b, &ud)
	}
	return &ud, err
}

// any reports whether at least one user exists, or has existed since
// the server started: as mongod, once users have existed the localhost
// exception stays closed even after the last is dropped.
func (u *userStore) any(ctx context.Context) bool {
	if u.everHad.Load() {
		return true
	}
	switch u.known.Load() {
	case 1:
		return false
	case 2:
		return true
	}
	n, err := u.coll().CountDocuments(ctx, bson.D{})
	if err != nil {
		return true // fail closed
	}
	if n > 0 {
		u.known.Store(2)
		u.everHad.Store(true)
		return true
	}
	u.known.Store(1)
	return false
}

// exists answers hello's saslSupportedMechs: "db.user".
func (u *userStore) exists(ctx context.Context, dbUser string) bool {
	db, user, ok := strings.Cut(dbUser, ".")
	if !ok {
		return false
	}
	_, err := u.get(ctx, db, user)
	return err == nil
}

func newCredential(password string) (scramCred, error) {
	client, err := scram.SHA256.NewClient("", password, "")
	if err != nil {
		return scramCred{}, err
	}
	salt := make([]byte, 28)
	rand.Read(salt)
	sc := client.GetStoredCredentials(scram.KeyFactors{Salt: string(salt), Iters: scramIters})
	return scramCred{IterationCount: scramIters, Salt: base64.StdEncoding.EncodeToString(salt),
		StoredKey: base64.StdEncoding.EncodeToString(sc.StoredKey), ServerKey: base64.StdEncoding.EncodeToString(sc.ServerKey)}, nil
}

// Role privileges, by command.
var (
	openCommands = map[string]bool{"hello": true, "isMaster": true, "ismaster": true, "ping": true,
		"saslStart": true, "saslContinue": true, "authenticate": true, "logout": true, "buildInfo": true,
		"buildinfo": true, "connectionStatus": true, "endSessions": true, "listCommands": true}
	sessionCommands = map[string]bool{"startSession": true, "refreshSessions": true, "killSessions": true,
		"killAllSessions": true, "killAllSessionsByPattern": true, "whatsmyuri": true, "listDatabases": true}
	readCommands = map[string]bool{"find": true, "aggregate": true, "mapReduce": true, "mapreduce": true, "count": true, "distinct": true,
		"listCollections": true, "listIndexes": true, "dbStats": true, "collStats": true, "explain": true,
		"getMore": true, "killCursors": true, "dbHash": true, "dbhash": true}
	writeCommandsAuth = map[string]bool{"insert": true, "update": true, "delete": true, "findAndModify": true,
		"findandmodify": true, "create": true, "drop": true, "createIndexes": true, "dropIndexes": true,
		"deleteIndexes": true, "convertToCapped": true, "renameCollection": true}
	dbAdminCommands = map[string]bool{"collMod": true, "validate": true, "create": true, "drop": true,
		"createIndexes": true, "dropIndexes": true, "deleteIndexes": true, "listCollections": true,
		"listIndexes": true, "dbStats": true, "collStats": true, "convertToCapped": true,
		"renameCollection": true, "dropDatabase": true, "compact": true}
	userAdminCommands = map[string]bool{"createUser": true, "updateUser": true, "dropUser": true,
		"usersInfo": true, "dropAllUsersFromDatabase": true, "grantRolesToUser": true, "revokeRolesFromUser": true}
	knownRoles = map[string]bool{"read": true, "readWrite": true, "dbAdmin": true, "userAdmin": true,
		"dbOwner": true, "root": true, "readAnyDatabase": true, "readWriteAnyDatabase": true,
		"dbAdminAnyDatabase": true, "userAdminAnyDatabase": true, "restore": true, "backup": true}
	// restoreCommands are what the restore role (of admin) allows on
	// every database: what mongorestore sends to write a dump back,
	// users included, without reading the data.
	restoreCommands = map[string]bool{"insert": true, "create": true, "createIndexes": true, "collMod": true,
		"convertToCapped": true, "drop": true, "listCollections": true, "getParameter": true,
		"createUser": true, "updateUser": true, "dropUser": true, "usersInfo": true, "dropAllUsersFromDatabase": true,
		"grantRolesToUser": true, "revokeRolesFromUser": true, "_mergeAuthzCollections": true}
	// backupCommands are what the backup role (of admin) allows on
	// every database, local, config and admin's system.users included:
	// what mongodump sends to read a dump, and no writes (mongod's
	// __queryableBackup: find, collStats, listCollections, listIndexes,
	// getParameter, listDatabases, and serverStatus of backup's own).
	backupCommands = map[string]bool{"find": true, "getMore": true, "killCursors": true, "aggregate": true,
		"count": true, "distinct": true, "explain": true, "listCollections": true, "listIndexes": true,
		"collStats": true, "getParameter": true, "serverStatus": true}
)

// allows reports whether role r grants command name on database db.
func (r roleName) allows(db, name string) bool {
	anyDB := r.DB == "admin" && (strings.HasSuffix(r.Role, "AnyDatabase") || r.Role == "restore" || r.Role == "backup")
	if !anyDB && r.Role != "root" && r.DB != db {
		return false
	}
	if anyDB && r.Role != "userAdminAnyDatabase" && r.Role != "restore" && r.Role != "backup" && localOrConfig(db) {
		// The any-database roles reach the ordinary collections of
		// every database but local and config (mongod's
		// anyNormalResource); userAdminAnyDatabase, restore and backup
		// name those two as well (builtinRoles).
		return false
	}
	switch r.Role {
	case "root":
		return true
	case "read", "readAnyDatabase":
		return readCommands[name]
	case "readWrite", "readWriteAnyDatabase":
		return readCommands[name] || writeCommandsAuth[name]
	case "dbAdmin", "dbAdminAnyDatabase":
		return dbAdminCommands[name]
	case "userAdmin", "userAdminAnyDatabase":
		return userAdminCommands[name]
	case "dbOwner":
		return readCommands[name] || writeCommandsAuth[name] || dbAdminCommands[name] || userAdminCommands[name]
	case "restore":
		return restoreCommands[name]
	case "backup":
		return backupCommands[name]
	}
	return false
}

// authorize refuses, with 13 Unauthorized, what the connection may not
// run.
func (c *conn) authorize(dbName, name string, cmd bson.D) *cmdError {
	if !c.srv.opts.Auth {
		return nil
	}
	c.refreshUser()
	if openCommands[name] || !knownCommand(name) {
		// mongod looks a command up before it checks its
		// authorization: an unknown one is 59 CommandNotFound.
		return nil
	}
	u := c.auth.user
	if u == nil {
		if name == "createUser" && dbName == "admin" && c.isLocal() && !c.srv.users.any(c.ctx) {
			return nil // the localhost exception: the first user
		}
		return &cmdError{13, "Unauthorized", fmt.Sprintf(unauthFmt, name)}
	}
	if sessionCommands[name] {
		return nil
	}
	refused := &cmdError{13, "Unauthorized", fmt.Sprintf(notAuthorizeMs, dbName, cmd[0].Key, cmd[0].Value)}
	if name == "listCollections" {
		// mongod's checkAuthorizedToListCollections says it its way.
		refused.msg = "Not authorized to list collections on db: " + dbName
	}
	if name == "explain" {
		// An explain needs what the command it explains needs.
		if inner, ok := cmd[0].Value.(bson.D); ok && len(inner) > 0 {
			if err := c.authorize(dbName, inner[0].Key, inner); err != nil {
				return err
			}
		}
	}
	check := name
	if coll, ok := cmd[0].Value.(string); ok && (namespace{dbName, coll}).isAuthz() && !(backupCommands[name] && u.mayDump()) {
		check = "usersInfo" // the users and roles collections are for user administrators (and backup's reads)
	}
	customOK := u.customMay(dbName, name, cmd)
	var agg aggNeeds
	if name == "aggregate" {
		agg = aggregateNeeds(u, dbName, cmd)
	}
	switch {
	case name == "usersInfo" && forAllDBs(cmd[0].Value):
		// viewUser on the cluster.
		if !u.isRoot() && !hasAnyDBRole(u, "userAdminAnyDatabase") && !u.hasAction(need{resCluster, "", "", "viewUser"}) {
			return &cmdError{13, "Unauthorized", "Not authorized to view users from all databases"}
		}
	case name == "_mergeAuthzCollections":
		// mongod checks the database first (an admin-only command),
		// then createUser, grantRole and the rest on every database:
		// root's and restore's.
		if dbName != "admin" {
			return &cmdError{13, "Unauthorized", "_mergeAuthzCollections may only be run against the admin database."}
		}
		if !u.may("admin", name) {
			return &cmdError{13, "Unauthorized", "Not authorized to update user/role data using _mergeAuthzCollections command"}
		}
	case name == "renameCollection":
		// Judged by its namespaces below.
	case name == "grantRolesToUser" || name == "revokeRolesFromUser":
		// Judged by the databases of the roles it gives or takes.
		return c.authorizeRoleChange(dbName, name, cmd)
	case roleCommands[name]:
		// Judged as mongod's checkAuthForTypedCommand judges them.
		return c.authorizeRoleCommand(dbName, name, cmd)
	case ownOpsOnly(dbName, name, cmd):
		// Any user may list its own operations (the rest of a
		// pipeline is judged below).
	case name == "aggregate" && dbName == "admin" && hasLeadingCurrentOp(cmd) && !u.isRoot() && !customOK:
		// Listing every user's operations needs inprog on the
		// cluster, root's alone of ttlkv's built-in roles (a reader
		// of admin or readAnyDatabase may not).
		return refused
	case name == "aggregate" && len(agg.own) == 0:
		// A pipeline that needs nothing of its own ($documents, one's
		// own sessions) is any user's, as mongod's empty privilege
		// list is (its foreign namespaces are judged below).
	case name == "listCollections" && trueValue(lookup(cmd, "authorizedCollections")) && trueValue(lookup(cmd, "nameOnly")) &&
		(anyPrivilegeInDB(u.builtinRoles(), dbName) || u.customInDB(dbName)):
		// As mongod: a user with some privilege in the database may
		// list, by name, the collections it has privileges on
		// (collectionsFilter).
	case !u.may(dbName, check) && !(name == "usersInfo" && onlySelf(u, dbName, cmd[0].Value)) && !customOK:
		// A user may always look itself up; a user-defined role's
		// privileges count as mongod counts them (customMay).
		return refused
	}
	// The namespaces a command reads or writes beyond its own: a
	// pipeline's foreign collections and output, a view's source, a
	// rename's two namespaces. Each needs the privilege of its own
	// database; admin.system.users needs user administration on admin.
	for _, n := range agg.foreign {
		// Each action an aggregate's stages need beyond its own
		// namespace, from either kind of role.
		if !u.privHas(n) && !u.builtinCovers(n) {
			return refused
		}
	}
	reads, writes := touchedNamespaces(dbName, name, cmd)
	for _, ns := range reads {
		if !u.mayRead(ns) {
			return refused
		}
	}
	action := "insert" // a pipeline's output
	if name == "renameCollection" {
		action = "renameCollection"
	}
	for _, ns := range writes {
		if !(name == "renameCollection" && customOK) && !u.mayWrite(ns, action) {
			return refused
		}
	}
	switch name {
	case "createUser", "updateUser":
		return c.authorizeGrants(dbName, name, cmd)
	case "usersInfo":
		return c.authorizeUsersInfo(dbName, cmd)
	}
	return nil
}

// collectionsFilter is what listCollections with authorizedCollections
// lists to the connection's user: the collections it has some privilege
// on, as mongod filters them (nil: all, without access control or for
// root).
func (c *conn) collectionsFilter() func(dbName, coll string) bool {
	u := c.auth.user
	if !c.srv.opts.Auth || u == nil || u.isRoot() {
		return nil
	}
	roles := u.builtinRoles()
	return func(dbName, coll string) bool { return anyPrivilegeOn(roles, dbName, coll) || u.customOn(dbName, coll) }
}

// customOn reports whether u's user-defined roles give some action on
// the collection db.coll.
func (u *userDoc) customOn(db, coll string) bool {
	if u.eff == nil {
		return false
	}
	return slices.ContainsFunc(u.eff.privs, func(p privilege) bool { return p.res.matches(db, coll) })
}

// customInDB reports whether u's user-defined roles give some action on
// some resource of database db.
func (u *userDoc) customInDB(db string) bool {
	if u.eff == nil {
		return false
	}
	return slices.ContainsFunc(u.eff.privs, func(p privilege) bool { return p.res.inDB(db) })
}

// refreshUser reads the connection's user again when users have
// changed since it was read, as mongod refreshes a session's user: a
// role granted or revoked applies to the next command, and a dropped
// user's connection is no longer authenticated.
func (c *conn) refreshUser() {
	u := c.auth.user
	users := c.srv.users
	if u == nil || c.auth.gen == users.gen.Load() {
		return
	}
	gen := users.gen.Load()
	fresh, err := users.load(c.ctx, u.DB, u.User)
	if err != nil {
		c.srv.opts.Logf("conn%d: user %s@%s no longer exists; the connection is no longer authenticated", c.id, u.User, u.DB)
		c.auth.user = nil
		return
	}
	c.auth.user, c.auth.gen = fresh, gen
}

// knownCommand reports whether the server answers the command name,
// itself or through the engine.
func knownCommand(name string) bool {
	return engine.HasCommand(name) || serverCommands[name]
}

// serverCommands are the commands the server answers without the
// engine (localCommands and the transaction commands).
var serverCommands = func() map[string]bool {
	m := map[string]bool{"commitTransaction": true, "abortTransaction": true}
	for _, lc := range localCommands {
		m[lc.name] = true
	}
	return m
}()

// forAllDBs reports whether a usersInfo argument is {forAllDBs: <true>}.
func forAllDBs(v any) bool {
	d, ok := v.(bson.D)
	return ok && trueValue(lookup(d, "forAllDBs"))
}

// trueValue is mongod's boolean reading of an option: false, null,
// a missing field and numeric zero are false, anything else true (the
// aggregation reading of a value).
func trueValue(v any) bool { return agg.Truthy(v) }

// ownOpsOnly reports whether a command lists the caller's own
// operations only: currentOp with $ownOps, or an aggregate on admin
// whose leading $currentOp stage does not ask for allUsers.
func ownOpsOnly(dbName, name string, cmd bson.D) bool {
	if dbName != "admin" {
		return false
	}
	switch name {
	case "currentOp":
		return trueValue(lookup(cmd, "$ownOps"))
	case "aggregate":
		spec, ok := leadingCurrentOp(cmd)
		return ok && !trueValue(lookup(spec, "allUsers"))
	}
	return false
}

// hasLeadingCurrentOp reports whether an aggregate's first stage is
// $currentOp.
func hasLeadingCurrentOp(cmd bson.D) bool {
	_, ok := leadingCurrentOp(cmd)
	return ok
}

// leadingCurrentOp returns the options of an aggregate's first stage
// when it is $currentOp.
func leadingCurrentOp(cmd bson.D) (bson.D, bool) {
	pipe, _ := lookup(cmd, "pipeline").(bson.A)
	if len(pipe) == 0 {
		return nil, false
	}
	st, _ := pipe[0].(bson.D)
	if len(st) == 0 || st[0].Key != "$currentOp" {
		return nil, false
	}
	spec, _ := st[0].Value.(bson.D)
	return spec, true
}

// ownOpsFilter is, for a command that lists the caller's own
// operations only (ownOpsOnly) on a server with access control, the
// operations it may see: those of connections logged in as the same
// user (mongod's "coauthorized" clients). The server's own operations
// have no user and are left out. Nil when the command lists all.
func (c *conn) ownOpsFilter(dbName, name string, cmd bson.D) func(bson.D) bool {
	if !c.srv.opts.Auth || !ownOpsOnly(dbName, name, cmd) {
		return nil
	}
	var user, db string
	if u := c.auth.user; u != nil {
		user, db = u.User, u.DB
	}
	return func(op bson.D) bool {
		users, _ := lookup(op, "effectiveUsers").(bson.A)
		if len(users) != 1 {
			return false
		}
		d, _ := users[0].(bson.D)
		return user != "" && lookup(d, "user") == user && lookup(d, "db") == db
	}
}

// authorizeRoleChange checks grantRolesToUser and revokeRolesFromUser as
// mongod does: each role given needs grantRole, each role taken
// revokeRole, on the role's database (user administration there); the
// user's own database needs nothing.
func (c *conn) authorizeRoleChange(dbName, name string, cmd bson.D) *cmdError {
	roles, err := parseRoleNames(dbName, lookup(cmd, "roles"))
	if err != nil {
		return nil // the command reports its own argument error
	}
	verb := "grant"
	if name == "revokeRolesFromUser" {
		verb = "revoke"
	}
	for _, r := range roles {
		if !c.auth.user.mayGrant(r) {
			return &cmdError{13, "Unauthorized", fmt.Sprintf("Not authorized to %s role: %s@%s", verb, r.Role, r.DB)}
		}
	}
	return nil
}

// userName is the connection's user as "user@db", "" when it has none
// or access control is off.
func (c *conn) userName() string {
	if !c.srv.opts.Auth || c.auth.user == nil {
		return ""
	}
	return c.auth.user.User + "@" + c.auth.user.DB
}

// mayRead reports whether u may read ns, a namespace a command reads
// beyond its own (a $lookup's, a view's source).
func (u *userDoc) mayRead(ns namespace) bool {
	return u.privHas(need{resNS, ns.db, ns.coll, "find"}) || u.builtinRead(ns)
}

// builtinRead reports whether u's built-in roles let a command read ns
// beyond its own namespace.
func (u *userDoc) builtinRead(ns namespace) bool {
	return u.may(ns.db, "find") && (!ns.isAuthz() || u.may("admin", "usersInfo") || u.mayDump())
}

// builtinWrite reports whether u's built-in roles let a command write
// ns beyond its own namespace (a pipeline's or mapReduce's output).
func (u *userDoc) builtinWrite(ns namespace) bool {
	return u.may(ns.db, "insert") && (!ns.isAuthz() || u.isRoot())
}

// builtinCovers reports whether u's built-in roles give n, an action a
// pipeline stage needs on a collection beyond the command's own: a
// writing action where they let it write there (bypassDocumentValidation
// included, as before user-defined roles), any other where they let it
// read.
func (u *userDoc) builtinCovers(n need) bool {
	ns := namespace{n.db, n.coll}
	switch n.action {
	case "insert", "remove", "update", "bypassDocumentValidation":
		return u.builtinWrite(ns)
	}
	return u.builtinRead(ns)
}

// mayWrite reports whether u may write ns, a namespace a command
// writes beyond its own (a pipeline's output, a rename's ends): action
// is insert, or renameCollection for a rename.
func (u *userDoc) mayWrite(ns namespace, action string) bool {
	if action == "insert" && u.privHas(need{resNS, ns.db, ns.coll, "insert"}) {
		return true
	}
	if action == "insert" {
		return u.builtinWrite(ns)
	}
	return u.may(ns.db, action) && (!ns.isAuthz() || u.isRoot())
}

// builtinRoles are the built-in roles u holds, directly or through its
// user-defined roles.
func (u *userDoc) builtinRoles() []roleName {
	if u.eff != nil {
		return u.eff.builtins
	}
	return u.Roles
}

// may reports whether one of u's built-in roles grants command name on
// db (customMay judges the privileges of user-defined roles).
func (u *userDoc) may(db, name string) bool {
	for _, r := range u.builtinRoles() {
		if r.allows(db, name) {
			return true
		}
	}
	return false
}

// mayDump reports whether u holds backup (of admin), which reads
// admin.system.users, credentials included, as mongodump does.
func (u *userDoc) mayDump() bool { return hasAnyDBRole(u, "backup") }

func (u *userDoc) isRoot() bool {
	for _, r := range u.builtinRoles() {
		if r.Role == "root" && r.DB == "admin" {
			return true
		}
	}
	return false
}

// mayGrant reports whether u may give role r: it administers users of
// r's database (userAdmin or dbOwner there, userAdminAnyDatabase, root),
// or a user-defined role gives it grantRole there.
func (u *userDoc) mayGrant(r roleName) bool {
	return u.may(r.DB, "createUser") || u.hasAction(need{resDB, r.DB, "", "grantRole"})
}

// authorizeGrants checks the roles a createUser or updateUser gives, as
// mongod does: each must be one the user may grant (13 "Not authorized
// to grant role"); updateUser's roles replace all the old ones, which
// needs user administration of every database.
func (c *conn) authorizeGrants(dbName, name string, cmd bson.D) *cmdError {
	v := lookup(cmd, "roles")
	if v == nil {
		return nil
	}
	u := c.auth.user
	if name == "updateUser" && !(u.isRoot() || u.may("admin", "createUser") && hasAnyDBRole(u, "userAdminAnyDatabase") ||
		u.hasAction(need{resAnyNormal, "", "", "revokeRole"})) {
		return &cmdError{13, "Unauthorized", "In order to use updateUser to set roles array, must be authorized to revoke any role in the system"}
	}
	roles, err := parseRoleNames(dbName, v)
	if err != nil {
		return nil // the command reports its own argument error
	}
	for _, r := range roles {
		if !u.mayGrant(r) {
			return &cmdError{13, "Unauthorized", fmt.Sprintf("Not authorized to grant role: %s@%s", r.Role, r.DB)}
		}
	}
	return nil
}

func hasAnyDBRole(u *userDoc, role string) bool {
	for _, r := range u.builtinRoles() {
		if r.Role == role && r.DB == "admin" {
			return true
		}
	}
	return false
}

// authorizeUsersInfo lets a user look itself up, and others only where it
// administers users.
func (c *conn) authorizeUsersInfo(dbName string, cmd bson.D) *cmdError {
	u := c.auth.user
	var names []bson.D
	switch x := cmd[0].Value.(type) {
	case bson.D:
		if forAllDBs(x) {
			return nil // judged in authorize
		}
		names = append(names, x)
	case bson.A:
		for _, e := range x {
			if d, ok := e.(bson.D); ok {
				names = append(names, d)
			}
		}
	}
	for _, n := range names {
		db, _ := lookup(n, "db").(string)
		user, _ := lookup(n, "user").(string)
		if db == "" || db == dbName || (user == u.User && db == u.DB) {
			continue
		}
		if !u.may(db, "usersInfo") && !u.hasAction(need{resDB, db, "", "viewUser"}) {
			// mongod names the command's database, whichever user's
			// database was refused.
			return &cmdError{13, "Unauthorized", fmt.Sprintf("Not authorized to view users from the %s database", dbName)}
		}
	}
	return nil
}

// onlySelf reports whether a usersInfo argument names u alone.
func onlySelf(u *userDoc, dbName string, v any) bool {
	switch x := v.(type) {
	case string:
		return x == u.User && dbName == u.DB
	case bson.D:
		db, _ := lookup(x, "db").(string)
		user, _ := lookup(x, "user").(string)
		return user == u.User && db == u.DB
	case bson.A:
		for _, e := range x {
			if !onlySelf(u, dbName, e) {
				return false
			}
		}
		return len(x) > 0
	}
	return false
}

// namespace is a database and a collection a command touches.
type namespace struct{ db, coll string }

// isAuthz reports whether n is admin.system.users or admin.system.roles,
// which hold the users and the user-defined roles.
func (n namespace) isAuthz() bool {
	return n.db == "admin" && (n.coll == usersColl || n.coll == rolesColl)
}

// touchedNamespaces lists the namespaces a command reads and writes
// besides the one its name gives: an aggregate's (or a view's) foreign
// collections and output, a view's source, a rename's two namespaces.
func touchedNamespaces(dbName, name string, cmd bson.D) (reads, writes []namespace) {
	var walkPipeline func(db string, p any)
	walkPipeline = func(db string, p any) {
		stages, _ := p.(bson.A)
		for _, st := range stages {
			d, ok := st.(bson.D)
			if !ok || len(d) == 0 {
				continue
			}
			arg := d[0].Value
			switch d[0].Key {
			case "$lookup", "$graphLookup":
				a, _ := arg.(bson.D)
				if from := lookup(a, "from"); from != nil {
					reads = append(reads, nsOf(db, from))
				}
				walkPipeline(db, lookup(a, "pipeline"))
			case "$unionWith":
				switch x := arg.(type) {
				case string:
					reads = append(reads, namespace{db, x})
				case bson.D:
					if coll, ok := lookup(x, "coll").(string); ok {
						reads = append(reads, namespace{db, coll})
					}
					walkPipeline(db, lookup(x, "pipeline"))
				}
			case "$facet":
				a, _ := arg.(bson.D)
				for _, e := range a {
					walkPipeline(db, e.Value)
				}
			case "$out":
				writes = append(writes, nsOf(db, arg))
			case "$merge":
				if a, ok := arg.(bson.D); ok {
					writes = append(writes, nsOf(db, lookup(a, "into")))
				} else {
					writes = append(writes, nsOf(db, arg))
				}
			}
		}
	}
	switch name {
	case "mapReduce", "mapreduce":
		if ns, ok := mapReduceOut(dbName, lookup(cmd, "out")); ok {
			writes = append(writes, ns)
		}
	case "create":
		if on, ok := lookup(cmd, "viewOn").(string); ok {
			reads = append(reads, namespace{dbName, on})
			walkPipeline(dbName, lookup(cmd, "pipeline"))
		}
	case "renameCollection":
		for _, v := range []any{cmd[0].Value, lookup(cmd, "to")} {
			s, _ := v.(string)
			if db, coll, ok := strings.Cut(s, "."); ok {
				writes = append(writes, namespace{db, coll})
			}
		}
	}
	return reads, writes
}

// mapReduceOut is the collection a mapReduce's out writes: a name in
// db, or the collection of replace, merge or reduce in out's db (none
// for inline).
func mapReduceOut(db string, out any) (namespace, bool) {
	switch o := out.(type) {
	case string:
		return namespace{db, o}, true
	case bson.D:
		ns := namespace{db, ""}
		if d, ok := lookup(o, "db").(string); ok {
			ns.db = d
		}
		for _, mode := range []string{"replace", "merge", "reduce"} {
			if c, ok := lookup(o, mode).(string); ok {
				ns.coll = c
				return ns, true
			}
		}
	}
	return namespace{}, false
}

// nsOf reads a stage's namespace: a collection name in db, or {db, coll}.
func nsOf(db string, v any) namespace {
	switch x := v.(type) {
	case string:
		return namespace{db, x}
	case bson.D:
		ns := namespace{db, ""}
		if d, ok := lookup(x, "db").(string); ok {
			ns.db = d
		}
		ns.coll, _ = lookup(x, "coll").(string)
		return ns
	}
	return namespace{db, ""}
}

// isLocal reports whether the client is on this machine (loopback, a
// Unix socket or in-process), for the localhost exception.
func (c *conn) isLocal() bool {
	switch a := c.nc.RemoteAddr().(type) {
	case *net.TCPAddr:
		return a.IP.IsLoopback()
	case *net.UnixAddr, pipeAddr:
		return true
	}
	return c.remote == "in-process" || strings.HasPrefix(c.remote, "@") || c.remote == ""
}

// authCommand answers SASL authentication and user management.
func (c *conn) authCommand(ctx context.Context, dbName, name string, cmd bson.D) bson.D {
	switch name {
	case "saslStart":
		return c.saslStart(ctx, dbName, cmd)
	case "saslContinue":
		return c.saslContinue(cmd)
	case "authenticate":
		return errorDoc(334, "MechanismUnavailable", "Received authentication for mechanism MONGODB-X509 which is not enabled", false)
	case "logout":
		c.auth = authState{}
		return bson.D{{Key: "ok", Value: 1.0}}
	case "connectionStatus":
		return c.connectionStatus(cmd)
	}
	c.srv.users.mu.Lock()
	defer c.srv.users.mu.Unlock()
	var reply bson.D
	var err *cmdError
	switch name {
	case "createUser", "updateUser":
		err = c.srv.users.put(ctx, dbName, cmd, name == "createUser")
	case "dropUser":
		err = c.srv.users.drop(ctx, dbName, cmd)
	case "dropAllUsersFromDatabase":
		n, e := c.srv.users.coll().DeleteMany(ctx, bson.D{{Key: "db", Value: dbName}})
		if e != nil {
			err = &cmdError{1, "InternalError", e.Error()}
		} else {
			reply = bson.D{{Key: "n", Value: int32(n.DeletedCount)}}
		}
		c.srv.users.known.Store(0)
		c.srv.users.gen.Add(1)
	case "usersInfo":
		reply, err = c.srv.users.info(ctx, dbName, cmd)
	case "grantRolesToUser", "revokeRolesFromUser":
		err = c.srv.users.changeRoles(ctx, dbName, cmd, name == "grantRolesToUser")
	case "_mergeAuthzCollections":
		err = c.srv.users.mergeAuthz(ctx, dbName, cmd)
	}
	if err != nil {
		return err.reply()
	}
	return append(reply, bson.E{Key: "ok", Value: 1.0})
}

// connectionStatus answers the command: the connection's user and its
// roles, and with showPrivileges the privileges those roles grant.
func (c *conn) connectionStatus(cmd bson.D) bson.D {
	show := false
	if v := lookup(cmd, "showPrivileges"); v != nil {
		if _, ok := v.(bool); !ok && !document.IsNumber(v) {
			return errorDoc(14, "TypeMismatch", fmt.Sprintf("BSON field 'connectionStatus.showPrivileges' is the wrong type '%s', expected types '[bool, long, int, decimal, double]'", document.TypeName(v)), false)
		}
		show = trueValue(v)
	}
	users, roles := bson.A{}, bson.A{}
	var names []roleName
	if u := c.auth.user; u != nil {
		users = append(users, bson.D{{Key: "user", Value: u.User}, {Key: "db", Value: u.DB}})
		held := u.Roles
		if u.eff != nil {
			held = append(slices.Clone(held), u.eff.inherited...)
		}
		for _, r := range held {
			roles = append(roles, r.doc())
		}
		names = u.builtinRoles()
	}
	info := bson.D{{Key: "authenticatedUsers", Value: users}, {Key: "authenticatedUserRoles", Value: roles}}
	if show {
		privs := privilegesOf(names)
		if u := c.auth.user; u != nil && u.eff != nil {
			privs = append(privs, privilegeDocs(u.eff.privs)...)
		}
		info = append(info, bson.E{Key: "authenticatedUserPrivileges", Value: privs})
	}
	return bson.D{{Key: "authInfo", Value: info}, {Key: "ok", Value: 1.0}}
}

func (c *conn) saslStart(ctx context.Context, dbName string, cmd bson.D) bson.D {
	mech, _ := lookup(cmd, "mechanism").(string)
	payload, ok := lookup(cmd, "payload").(bson.Binary)
	if mech == "SCRAM-SHA-1" && ok {
		// ttlkv keeps SCRAM-SHA-256 credentials only, as a mongod whose
		// users were created with mechanisms: ["SCRAM-SHA-256"]. Every
		// failure of a step is 18, as mongod answers it, so a known user
		// cannot be told from an unknown one.
		return errorDoc(18, "AuthenticationFailed", authFailedMsg, false)
	}
	switch {
	case lookup(cmd, "mechanism") == nil:
		return errorDoc(40414, "Location40414", "BSON field 'saslStart.mechanism' is missing but a required field", false)
	case mech != mechanism:
		return errorDoc(2, "BadValue", fmt.Sprintf("Unsupported mechanism '%s' on authentication database '%s'", mech, dbName), false)
	}
	if !ok {
		return errorDoc(14, "TypeMismatch", "saslStart.payload must be binary", false)
	}
	users := c.srv.users
	srv, err := scram.SHA256.NewServer(func(name string) (scram.StoredCredentials, error) {
		u, err := users.get(ctx, dbName, name)
		if err != nil {
			return scram.StoredCredentials{}, err
		}
		salt, e1 := base64.StdEncoding.DecodeString(u.Credentials.SHA256.Salt)
		sk, e2 := base64.StdEncoding.DecodeString(u.Credentials.SHA256.StoredKey)
		vk, e3 := base64.StdEncoding.DecodeString(u.Credentials.SHA256.ServerKey)
		if err := errors.Join(e1, e2, e3); err != nil || len(sk) == 0 {
			return scram.StoredCredentials{}, fmt.Errorf("user %s@%s has no SCRAM-SHA-256 credential", name, dbName)
		}
		return scram.StoredCredentials{KeyFactors: scram.KeyFactors{Salt: string(salt), Iters: u.Credentials.SHA256.IterationCount},
			StoredKey: sk, ServerKey: vk}, nil
	})
	if err != nil {
		return errorDoc(1, "InternalError", err.Error(), false)
	}
	c.auth.conv = srv.NewConversation()
	c.auth.convDB = dbName
	c.auth.convID = 1 // mongod numbers a connection's conversation 1, always
	resp, err := c.auth.conv.Step(string(payload.Data))
	if err != nil {
		c.srv.opts.Logf("conn%d: authentication failed on %s: %v", c.id, dbName, err)
		c.auth.conv = nil
		return errorDoc(18, "AuthenticationFailed", authFailedMsg, false)
	}
	return bson.D{{Key: "conversationId", Value: c.auth.convID}, {Key: "done", Value: false},
		{Key: "payload", Value: bson.Binary{Data: []byte(resp)}}, {Key: "ok", Value: 1.0}}
}

func (c *conn) saslContinue(cmd bson.D) bson.D {
	conv := c.auth.conv
	if conv == nil {
		return errorDoc(17, "ProtocolError", "No SASL session state found", false)
	}
	if document.Int64(lookup(cmd, "conversationId")) != int64(c.auth.convID) {
		return errorDoc(17, "ProtocolError", "sasl: Mismatched conversation id", false)
	}
	payload, _ := lookup(cmd, "payload").(bson.Binary)
	if conv.Done() {
		// The empty exchange of clients that skip no step.
		c.auth.conv = nil
		return bson.D{{Key: "conversationId", Value: c.auth.convID}, {Key: "done", Value: true},
			{Key: "payload", Value: bson.Binary{Data: []byte{}}}, {Key: "ok", Value: 1.0}}
	}
	resp, err := conv.Step(string(payload.Data))
	if err != nil || !conv.Valid() {
		c.srv.opts.Logf("conn%d: authentication failed for %s@%s", c.id, conv.Username(), c.auth.convDB)
		c.auth.conv = nil
		return errorDoc(18, "AuthenticationFailed", authFailedMsg, false)
	}
	gen := c.srv.users.gen.Load()
	u, gerr := c.srv.users.load(c.ctx, c.auth.convDB, conv.Username())
	if gerr != nil {
		c.auth.conv = nil
		return errorDoc(18, "AuthenticationFailed", authFailedMsg, false)
	}
	if prev := c.auth.user; prev != nil && (prev.User != u.User || prev.DB != u.DB) {
		// As mongod: a connection authenticates as one user only.
		return errorDoc(5626701, "Location5626701", fmt.Sprintf("Each client connection may only be authenticated once. Previously authenticated as: %s@%s", prev.User, prev.DB), false)
	}
	c.auth.user, c.auth.gen = u, gen
	c.srv.opts.Logf("conn%d: authenticated as %s@%s", c.id, u.User, u.DB)
	return bson.D{{Key: "conversationId", Value: c.auth.convID}, {Key: "done", Value: true},
		{Key: "payload", Value: bson.Binary{Data: []byte(resp)}}, {Key: "ok", Value: 1.0}}
}

// changedRoles returns held with named added (grant) or taken away,
// in order: the roles held first, then those granted that were not held.
func changedRoles(held, named []roleName, grant bool) []roleName {
	roles := []roleName{}
	for _, r := range held {
		if grant || !slices.Contains(named, r) {
			roles = append(roles, r)
		}
	}
	if grant {
		for _, r := range named {
			if !slices.Contains(roles, r) {
				roles = append(roles, r)
			}
		}
	}
	return roles
}

// grantedRoleNames returns the roles named by cmd's required, non-empty
// "roles" array (a grant or revoke of roles to a user or a role); names
// without a database are of db.
func grantedRoleNames(db string, cmd bson.D) ([]roleName, *cmdError) {
	cmdName := cmd[0].Key
	v := lookup(cmd, "roles")
	if v == nil {
		return nil, &cmdError{40414, "Location40414", fmt.Sprintf("BSON field '%s.roles' is missing but a required field", cmdName)}
	}
	named, err := parseRoleNames(db, v)
	if err != nil {
		return nil, err
	}
	if len(named) == 0 {
		return nil, &cmdError{2, "BadValue", fmt.Sprintf("%s command requires a non-empty \"roles\" array", cmdName)}
	}
	return named, nil
}

// parseRoleNames reads a roles argument: names of roles of db, or
// {role, db}. It checks the shape only (parseRoles checks that the
// roles exist).
func parseRoleNames(db string, v any) ([]roleName, *cmdError) {
	arr, ok := v.(bson.A)
	if !ok {
		return nil, &cmdError{14, "TypeMismatch", "\"roles\" field must be an array"}
	}
	out := []roleName{}
	for _, x := range arr {
		var r roleName
		switch x := x.(type) {
		case string:
			r = roleName{Role: x, DB: db}
		case bson.D:
			var ok1, ok2 bool
			r.Role, ok1 = lookup(x, "role").(string)
			r.DB, ok2 = lookup(x, "db").(string)
			if !ok1 || !ok2 {
				return nil, &cmdError{14, "TypeMismatch", "a role must be a name or {role, db}"}
			}
		default:
			return nil, &cmdError{14, "TypeMismatch", "a role must be a name or {role, db}"}
		}
		if !slices.Contains(out, r) {
			out = append(out, r) // mongod drops a role named twice
		}
	}
	return out, nil
}

// parseRoles reads a roles argument as parseRoleNames does, and checks
// that each role exists (31 RoleNotFound, naming every missing one).
func (u *userStore) parseRoles(ctx context.Context, db string, v any) ([]roleName, *cmdError) {
	roles, err := parseRoleNames(db, v)
	if err != nil {
		return nil, err
	}
	if err := u.rolesNotFound(ctx, roles); err != nil {
		return nil, err
	}
	return roles, nil
}

func (u *userStore) put(ctx context.Context, db string, cmd bson.D, create bool) *cmdError {
	name, ok := cmd[0].Value.(string)
	if !ok || name == "" {
		return &cmdError{2, "BadValue", "User name must be a non-empty string"}
	}
	if create && lookup(cmd, "roles") == nil {
		// Its parser's answer, before the command looks at anything.
		return &cmdError{40414, "Location40414", "BSON field 'createUser.roles' is missing but a required field"}
	}
	if create && db == "local" {
		return &cmdError{2, "BadValue", "Cannot create users in the local database"}
	}
	if db == "$external" {
		if lookup(cmd, "pwd") != nil {
			return &cmdError{2, "BadValue", "Cannot set the password for users defined on the '$external' database"}
		}
		// mongod would make an x.509 or LDAP user; ttlkv has none.
		return &cmdError{2, "BadValue", "Cannot create SCRAM users in the $external database"}
	}
	if create && lookup(cmd, "pwd") == nil {
		return &cmdError{2, "BadValue", "Must provide a 'pwd' field for all user documents, except those with '$external' as the user's source db"}
	}
	if m, ok := lookup(cmd, "mechanisms").(bson.A); ok && len(m) == 0 {
		return &cmdError{2, "BadValue", "mechanisms field must not be empty"}
	}
	if !create && lookup(cmd, "pwd") == nil && lookup(cmd, "customData") == nil && lookup(cmd, "roles") == nil && lookup(cmd, "mechanisms") == nil {
		return &cmdError{2, "BadValue", "Must specify at least one field to update in updateUser"}
	}
	if m, ok := lookup(cmd, "mechanisms").(bson.A); ok {
		for _, x := range m {
			if x != mechanism {
				return &cmdError{2, "BadValue", fmt.Sprintf("Unknown auth mechanism '%v'", x)}
			}
		}
	}
	old, err := u.get(ctx, db, name)
	switch {
	case create && err == nil:
		return &cmdError{51003, "Location51003", fmt.Sprintf("User \"%s@%s\" already exists", name, db)}
	case !create && err != nil:
		return &cmdError{11, "UserNotFound", fmt.Sprintf("Could not find user \"%s\" for db \"%s\"", name, db)}
	}
	ud := &userDoc{ID: db + "." + name, User: name, DB: db}
	if old != nil && !create {
		ud = old
	}
	if v := lookup(cmd, "roles"); v != nil {
		roles, e := u.parseRoles(ctx, db, v)
		if e != nil {
			return e
		}
		ud.Roles = roles
	}
	if v := lookup(cmd, "customData"); v != nil {
		d, ok := v.(bson.D)
		if !ok {
			return &cmdError{14, "TypeMismatch", fmt.Sprintf("BSON field '%s.customData' is the wrong type '%s', expected type 'object'", cmd[0].Key, document.TypeName(v))}
		}
		ud.CustomData = d
	}
	if v := lookup(cmd, "pwd"); v != nil {
		pwd, ok := v.(string)
		if !ok || pwd == "" {
			return &cmdError{2, "BadValue", "Password cannot be empty"}
		}
		cred, e := newCredential(pwd)
		if e != nil {
			return &cmdError{2, "BadValue", "Password is not valid: " + e.Error()}
		}
		ud.Credentials.SHA256 = cred
	}
	var werr error
	if create {
		if ud.UserID, werr = newUserID(); werr == nil {
			_, werr = u.coll().InsertOne(ctx, ud)
		}
	} else {
		// Only what changed: a restored user's other fields (mongod's
		// userId, a SCRAM-SHA-1 credential) stay.
		set := bson.D{}
		if lookup(cmd, "roles") != nil {
			set = append(set, bson.E{Key: "roles", Value: ud.Roles})
		}
		if lookup(cmd, "customData") != nil {
			set = append(set, bson.E{Key: "customData", Value: ud.CustomData})
		}
		if lookup(cmd, "pwd") != nil {
			set = append(set, bson.E{Key: "credentials", Value: ud.Credentials})
		}
		if len(set) > 0 {
			_, werr = u.coll().UpdateOne(ctx, bson.D{{Key: "_id", Value: ud.ID}}, bson.D{{Key: "$set", Value: set}}, false)
		}
	}
	if werr != nil {
		return &cmdError{1, "InternalError", werr.Error()}
	}
	u.known.Store(2)
	u.everHad.Store(true)
	u.gen.Add(1)
	return nil
}

// changeRoles answers grantRolesToUser (grant) and revokeRolesFromUser:
// the roles named are added to the user's, or taken from them; a role
// the user has, or lacks, already is no error.
func (u *userStore) changeRoles(ctx context.Context, db string, cmd bson.D, grant bool) *cmdError {
	cmdName := cmd[0].Key
	name, ok := cmd[0].Value.(string)
	if !ok {
		return &cmdError{14, "TypeMismatch", fmt.Sprintf("BSON field '%s.%s' is the wrong type '%s', expected type 'string'", cmdName, cmdName, document.TypeName(cmd[0].Value))}
	}
	named, err := grantedRoleNames(db, cmd)
	if err != nil {
		return err
	}
	ud, gerr := u.get(ctx, db, name)
	if gerr != nil {
		return &cmdError{11, "UserNotFound", fmt.Sprintf("Could not find user \"%s\" for db \"%s\"", name, db)}
	}
	if _, err := u.parseRoles(ctx, db, lookup(cmd, "roles")); err != nil {
		return err
	}
	roles := changedRoles(ud.Roles, named, grant)
	ud.Roles = roles
	// The roles alone: a restored user's other fields stay.
	if _, werr := u.coll().UpdateOne(ctx, bson.D{{Key: "_id", Value: ud.ID}}, bson.D{{Key: "$set", Value: bson.D{{Key: "roles", Value: roles}}}}, false); werr != nil {
		return &cmdError{1, "InternalError", werr.Error()}
	}
	u.gen.Add(1)
	return nil
}

func (u *userStore) drop(ctx context.Context, db string, cmd bson.D) *cmdError {
	name, _ := cmd[0].Value.(string)
	res, err := u.coll().DeleteOne(ctx, bson.D{{Key: "_id", Value: db + "." + name}})
	if err != nil {
		return &cmdError{1, "InternalError", err.Error()}
	}
	if res.DeletedCount == 0 {
		return &cmdError{11, "UserNotFound", fmt.Sprintf("User '%s@%s' not found", name, db)}
	}
	u.known.Store(0)
	u.gen.Add(1)
	return nil
}

// info answers usersInfo: 1 (the database's users), {forAllDBs: true}
// (every user), a name, {user, db}, or an array of those, ordered by
// user then database as mongod orders them. Credentials are never shown.
func (u *userStore) info(ctx context.Context, db string, cmd bson.D) (bson.D, *cmdError) {
	if trueValue(lookup(cmd, "showPrivileges")) || trueValue(lookup(cmd, "showAuthenticationRestrictions")) {
		return u.infoWithPrivileges(ctx, db, cmd)
	}
	var filter bson.D
	switch v := cmd[0].Value.(type) {
	case bson.D:
		if forAllDBs(v) {
			filter = bson.D{}
			break
		}
		un, _ := lookup(v, "user").(string)
		ud, _ := lookup(v, "db").(string)
		filter = bson.D{{Key: "_id", Value: ud + "." + un}}
	case string:
		filter = bson.D{{Key: "_id", Value: db + "." + v}}
	case bson.A:
		ids := bson.A{}
		for _, x := range v {
			switch x := x.(type) {
			case string:
				ids = append(ids, db+"."+x)
			case bson.D:
				un, _ := lookup(x, "user").(string)
				ud, _ := lookup(x, "db").(string)
				ids = append(ids, ud+"."+un)
			}
		}
		filter = bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: ids}}}}
	default:
		filter = bson.D{{Key: "db", Value: db}}
	}
	cur, err := u.coll().Find(ctx, filter)
	if err != nil {
		return nil, &cmdError{1, "InternalError", err.Error()}
	}
	docs, err := cur.All(ctx)
	if err != nil {
		return nil, &cmdError{1, "InternalError", err.Error()}
	}
	key := func(d bson.D) string {
		user, _ := lookup(d, "user").(string)
		db, _ := lookup(d, "db").(string)
		return user + "\x00" + db
	}
	sort.Slice(docs, func(i, j int) bool { return key(docs[i]) < key(docs[j]) })
	users := bson.A{}
	for _, d := range docs {
		out := bson.D{}
		for _, e := range d {
			if e.Key != "credentials" {
				out = append(out, e)
			}
		}
		// The mechanisms the user has credentials for, as mongod lists
		// them (a user restored from mongod may have SCRAM-SHA-1 too).
		mechs := bson.A{}
		if cr, ok := lookup(d, "credentials").(bson.D); ok {
			for _, e := range cr {
				mechs = append(mechs, e.Key)
			}
		}
		if len(mechs) == 0 {
			mechs = bson.A{mechanism}
		}
		users = append(users, append(out, bson.E{Key: "mechanisms", Value: mechs}))
	}
	return bson.D{{Key: "users", Value: users}}, nil
}

// infoWithPrivileges answers usersInfo with showPrivileges (or
// showAuthenticationRestrictions) as mongod's getUserDescription does:
// for users named only (20 IllegalOperation otherwise), in the order
// named, each stored field but the credentials, whose mechanisms take
// their place, then every role held (inheritedRoles, the user's own
// included), the privileges they give and the (empty) inherited
// authentication restrictions.
func (u *userStore) infoWithPrivileges(ctx context.Context, db string, cmd bson.D) (bson.D, *cmdError) {
	var names []bson.D
	switch v := cmd[0].Value.(type) {
	case string:
		names = append(names, bson.D{{Key: "user", Value: v}, {Key: "db", Value: db}})
	case bson.D:
		if !forAllDBs(v) {
			names = append(names, v)
		}
	case bson.A:
		for _, x := range v {
			switch x := x.(type) {
			case string:
				names = append(names, bson.D{{Key: "user", Value: x}, {Key: "db", Value: db}})
			case bson.D:
				names = append(names, x)
			}
		}
	}
	if len(names) == 0 {
		if _, ok := cmd[0].Value.(bson.A); !ok {
			return nil, &cmdError{20, "IllegalOperation", "Privilege or restriction details require exact-match usersInfo queries"}
		}
	}
	showRestr := trueValue(lookup(cmd, "showAuthenticationRestrictions"))
	users := bson.A{}
	for _, n := range names {
		un, _ := lookup(n, "user").(string)
		udb, _ := lookup(n, "db").(string)
		d, err := u.coll().FindOne(ctx, bson.D{{Key: "_id", Value: udb + "." + un}})
		if err != nil {
			continue // a user that does not exist is left out
		}
		ud, gerr := u.load(ctx, udb, un)
		if gerr != nil {
			continue
		}
		out := bson.D{}
		for _, e := range d {
			switch e.Key {
			case "credentials":
				mechs := bson.A{}
				if cr, ok := e.Value.(bson.D); ok {
					for _, m := range cr {
						mechs = append(mechs, m.Key)
					}
				}
				out = append(out, bson.E{Key: "mechanisms", Value: mechs})
			case "authenticationRestrictions":
				if showRestr {
					out = append(out, e)
				}
			default:
				out = append(out, e)
			}
		}
		if showRestr && lookup(out, "authenticationRestrictions") == nil {
			out = append(out, bson.E{Key: "authenticationRestrictions", Value: bson.A{}})
		}
		held := slices.Clone(ud.Roles)
		privs := privilegesOf(ud.builtinRoles())
		if ud.eff != nil {
			held = append(held, ud.eff.inherited...)
			privs = append(privs, privilegeDocs(ud.eff.privs)...)
		}
		out = append(out, bson.E{Key: "inheritedRoles", Value: roleDocs(held)},
			bson.E{Key: "inheritedPrivileges", Value: privs},
			bson.E{Key: "inheritedAuthenticationRestrictions", Value: bson.A{}})
		users = append(users, out)
	}
	return bson.D{{Key: "users", Value: users}}, nil
}

// authorizedDatabases keeps, in a listDatabases reply, the databases the
// connection's user holds a role on (all of them for root and the
// *AnyDatabase roles, or without access control), as mongod's
// authorizedDatabases does.
func (c *conn) authorizedDatabases(reply bson.D) bson.D {
	u := c.auth.user
	if !c.srv.opts.Auth || u == nil {
		return reply
	}
	allowed := map[string]bool{}
	for _, r := range u.builtinRoles() {
		if r.Role == "root" || (r.DB == "admin" && (strings.HasSuffix(r.Role, "AnyDatabase") || r.Role == "backup")) {
			return reply
		}
		allowed[r.DB] = true
	}
	if u.eff != nil {
		// A user-defined role's privileges, as mongod's
		// isAuthorizedForAnyActionOnAnyResourceInDB counts them.
		for _, p := range u.eff.privs {
			switch p.res.kind {
			case resDB, resNS, resBucketsIn, resBucketsNS:
				allowed[p.res.db] = true
			case resCluster:
				if p.has("listDatabases") {
					return reply
				}
			default:
				return reply
			}
		}
	}
	out := make(bson.D, 0, len(reply))
	var total int64
	for _, e := range reply {
		if dbs, ok := e.Value.(bson.A); ok && e.Key == "databases" {
			kept := bson.A{}
			for _, v := range dbs {
				if d, ok := v.(bson.D); ok {
					if name, _ := lookup(d, "name").(string); allowed[name] {
						kept = append(kept, d)
						total += document.Int64(lookup(d, "sizeOnDisk"))
					}
				}
			}
			e.Value = kept
		}
		out = append(out, e)
	}
	// The total counts the databases shown only, as mongod's does.
	for i, e := range out {
		switch e.Key {
		case "totalSize":
			out[i].Value = total
		case "totalSizeMb":
			out[i].Value = total / (1 << 20)
		}
	}
	return out
}

// allDatabasesAllowed reports whether the connection may list every
// database (listDatabases with authorizedDatabases: false).
func (c *conn) allDatabasesAllowed() bool {
	u := c.auth.user
	if !c.srv.opts.Auth {
		return true
	}
	if u == nil {
		return false
	}
	for _, r := range u.builtinRoles() {
		if r.Role == "root" || (r.DB == "admin" && (strings.HasSuffix(r.Role, "AnyDatabase") || r.Role == "backup")) {
			return true
		}
	}
	return u.privHas(need{resCluster, "", "", "listDatabases"})
}

// scramUser is the user name of a SCRAM client-first message
// ("n,,n=name,r=nonce"), its "=2C" and "=3D" escapes undone; "" if the
// message names none.
func scramUser(msg []byte) string {
	for _, part := range strings.Split(string(msg), ",") {
		if name, ok := strings.CutPrefix(part, "n="); ok {
			return strings.NewReplacer("=2C", ",", "=3D", "=").Replace(name)
		}
	}
	return ""
}
