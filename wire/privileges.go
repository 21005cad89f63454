package wire

import (
	"sort"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// The privileges of the built-in roles, as connectionStatus
// {showPrivileges: true} lists them (docs/wire.md, "Access control"):
// each a resource and the actions it allows there, after mongod 7.0's
// table of built-in roles. The table describes what mongod grants; what
// ttlkv lets a built-in role run is decided by authorize's lists of
// commands, except for the actions the role management commands ask
// for (createRole, grantRole, viewRole...: userDoc.hasAction), which
// are looked up here as mongod looks them up.

// resourceKind is the shape of a privilege's resource.
type resourceKind uint8

const (
	// resDB is every ordinary collection of the role's database:
	// {db: <db>, collection: ""}.
	resDB resourceKind = iota
	// resNS is one collection of the role's database (or of db when
	// the privilege names one): {db, collection}.
	resNS
	// resAnyNormal is every ordinary collection of every database:
	// {db: "", collection: ""}.
	resAnyNormal
	// resCollection is a collection of that name in every database:
	// {db: "", collection: <name>}.
	resCollection
	// resCluster is the server itself: {cluster: true}.
	resCluster
	// resAny is every resource: {anyResource: true}.
	resAny
	// resBuckets is every time-series buckets collection:
	// {system_buckets: ""}.
	resBuckets
	// resBucketsIn is every buckets collection of database db:
	// {db: <db>, system_buckets: ""} (user-defined roles only).
	resBucketsIn
	// resBucketsNamed is the buckets collection of time-series coll in
	// every database: {system_buckets: <coll>} (user-defined roles only).
	resBucketsNamed
	// resBucketsNS is the buckets collection of time-series db.coll:
	// {db: <db>, system_buckets: <coll>} (user-defined roles only).
	resBucketsNS
)

// rolePriv is one privilege of a role's definition: db and coll fix
// the resource where its kind leaves them open.
type rolePriv struct {
	kind     resourceKind
	db, coll string
	actions  []string
}

// Action lists shared by several roles.
var (
	readActions = []string{"changeStream", "collStats", "dbHash", "dbStats", "find", "killCursors",
		"listCollections", "listIndexes", "listSearchIndexes", "planCacheRead"}
	readWriteActions = join(readActions, []string{"cleanupStructuredEncryptionData", "compactStructuredEncryptionData",
		"convertToCapped", "createCollection", "createIndex", "createSearchIndexes", "dropCollection", "dropIndex",
		"dropSearchIndex", "insert", "remove", "renameCollectionSameDB", "update", "updateSearchIndex"})
	userAdminActions = []string{"changeCustomData", "changePassword", "createRole", "createUser", "dropRole",
		"dropUser", "grantRole", "revokeRole", "setAuthenticationRestriction", "viewRole", "viewUser"}
	dbAdminActions = []string{"analyze", "bypassDocumentValidation", "collMod", "collStats", "compact",
		"convertToCapped", "createCollection", "createIndex", "createSearchIndexes", "dbStats", "dropCollection",
		"dropDatabase", "dropIndex", "dropSearchIndex", "enableProfiler", "listCollections", "listIndexes",
		"listSearchIndexes", "planCacheIndexFilter", "planCacheRead", "planCacheWrite", "reIndex",
		"renameCollectionSameDB", "storageDetails", "updateSearchIndex", "validate"}
	profileActions       = join(readActions, []string{"convertToCapped", "createCollection", "dropCollection"})
	readAndIndexActions  = join(readActions, []string{"createIndex", "createSearchIndexes", "dropIndex", "dropSearchIndex"})
	clusterMonitorDBActs = []string{"collStats", "dbStats", "getDatabaseVersion", "getShardVersion", "indexStats"}
	clusterManagerDBActs = []string{"analyzeShardKey", "clearJumboFlag", "configureQueryAnalyzer", "enableSharding",
		"moveChunk", "refineCollectionShardKey", "reshardCollection", "splitChunk", "splitVector"}
	clusterManagerWrites = []string{"insert", "remove", "update"}
	restoreWriteActions  = []string{"bypassDocumentValidation", "collMod", "convertToCapped", "createCollection",
		"createIndex", "createSearchIndexes", "dropCollection", "insert", "updateSearchIndex"}
)

func join(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// builtinRole is a built-in role: the roles it includes (of its own
// database) and its own privileges.
type builtinRole struct {
	roles []roleName // a DB of "" is the role's own database
	privs []rolePriv
}

// builtinRoles holds every role ttlkv knows, and the admin-only roles
// root is made of.
var builtinRoles = map[string]builtinRole{
	"read": {privs: []rolePriv{{kind: resDB, actions: readActions}, {kind: resNS, coll: "system.js", actions: readActions}}},
	"readWrite": {privs: []rolePriv{{kind: resDB, actions: readWriteActions},
		{kind: resNS, coll: "system.js", actions: readWriteActions}}},
	"userAdmin": {privs: []rolePriv{{kind: resDB, actions: userAdminActions}}},
	"dbAdmin": {privs: []rolePriv{{kind: resDB, actions: dbAdminActions}, {kind: resDB, actions: []string{"configureQueryAnalyzer"}},
		{kind: resNS, coll: "system.profile", actions: profileActions}}},
	"dbOwner": {roles: []roleName{{Role: "readWrite"}, {Role: "dbAdmin"}, {Role: "userAdmin"}}},
	// enableSharding is described (rolesInfo) but not granted: ttlkv
	// has no sharding.
	"enableSharding": {privs: []rolePriv{{kind: resAnyNormal, actions: []string{"analyzeShardKey", "enableSharding",
		"refineCollectionShardKey", "reshardCollection"}}}},
	"readAnyDatabase": {privs: []rolePriv{{kind: resAnyNormal, actions: readActions},
		{kind: resCluster, actions: []string{"listDatabases"}},
		{kind: resCollection, coll: "system.js", actions: readActions},
		{kind: resBuckets, actions: readActions}}},
	"readWriteAnyDatabase": {roles: []roleName{{Role: "readAnyDatabase"}}, privs: []rolePriv{
		{kind: resAnyNormal, actions: readWriteActions},
		{kind: resCollection, coll: "system.js", actions: readWriteActions},
		{kind: resBuckets, actions: readWriteActions}}},
	"userAdminAnyDatabase": {privs: []rolePriv{
		{kind: resAnyNormal, actions: join(userAdminActions, []string{"listCachedAndActiveUsers"})},
		{kind: resDB, db: "local", actions: userAdminActions},
		{kind: resDB, db: "config", actions: userAdminActions},
		{kind: resCluster, actions: []string{"authSchemaUpgrade", "invalidateUserCache", "listDatabases", "viewUser"}},
		{kind: resNS, db: "admin", coll: "system.users", actions: readAndIndexActions},
		{kind: resNS, db: "admin", coll: "system.roles", actions: readAndIndexActions},
		{kind: resCollection, coll: "system.users", actions: readActions},
		{kind: resNS, db: "admin", coll: "system.version", actions: readActions},
		{kind: resNS, db: "admin", coll: "system.backup_users", actions: readActions}}},
	"dbAdminAnyDatabase": {privs: []rolePriv{
		{kind: resCluster, actions: []string{"applyOps", "listDatabases"}},
		{kind: resAnyNormal, actions: dbAdminActions},
		{kind: resAnyNormal, actions: []string{"configureQueryAnalyzer"}},
		{kind: resCollection, coll: "system.profile", actions: profileActions},
		{kind: resBuckets, actions: dbAdminActions}}},
	"clusterMonitor": {roles: []roleName{{Role: "read", DB: "config"}, {Role: "read", DB: "local"}}, privs: []rolePriv{
		{kind: resCluster, actions: []string{"allCollectionStats", "connPoolStats", "getCmdLineOpts", "getDefaultRWConcern",
			"getLog", "getParameter", "getShardMap", "hostInfo", "inprog", "listDatabases", "listSampledQueries",
			"listSessions", "listShards", "netstat", "operationMetrics", "replSetGetConfig", "replSetGetStatus",
			"serverStatus", "shardedDataDistribution", "shardingState", "top", "useUUID"}},
		{kind: resAnyNormal, actions: clusterMonitorDBActs},
		{kind: resDB, db: "config", actions: clusterMonitorDBActs},
		{kind: resNS, db: "config", coll: "system.sessions", actions: clusterMonitorDBActs},
		{kind: resDB, db: "local", actions: clusterMonitorDBActs},
		{kind: resNS, db: "local", coll: "system.replset", actions: []string{"find"}},
		{kind: resNS, db: "local", coll: "replset.election", actions: []string{"find"}},
		{kind: resNS, db: "local", coll: "replset.minvalid", actions: []string{"find"}},
		{kind: resCollection, coll: "system.profile", actions: []string{"find"}}}},
	"hostManager": {privs: []rolePriv{
		{kind: resCluster, actions: []string{"applicationMessage", "auditConfigure", "connPoolSync", "dropConnections",
			"flushRouterConfig", "fsync", "invalidateUserCache", "killAnyCursor", "killAnySession", "killop", "logRotate",
			"oidReset", "replSetResizeOplog", "resync", "rotateCertificates", "setParameter", "shutdown", "touch",
			"trafficRecord", "unlock"}},
		{kind: resAnyNormal, actions: []string{"killCursors"}}}},
	"clusterManager": {roles: []roleName{{Role: "read", DB: "config"}}, privs: []rolePriv{
		{kind: resCluster, actions: []string{"addShard", "appendOplogNote", "applicationMessage", "checkMetadataConsistency",
			"cleanupOrphaned", "flushRouterConfig", "getChangeStreamState", "getClusterParameter", "getDefaultRWConcern",
			"listSessions", "listShards", "removeShard", "replSetConfigure", "replSetGetConfig", "replSetGetStatus",
			"replSetStateChange", "resync", "runTenantMigration", "setChangeStreamState", "setClusterParameter",
			"setDefaultRWConcern", "setFeatureCompatibilityVersion"}},
		{kind: resAnyNormal, actions: clusterManagerDBActs},
		{kind: resBuckets, actions: clusterManagerDBActs},
		{kind: resDB, db: "config", actions: clusterManagerDBActs},
		{kind: resDB, db: "local", actions: clusterManagerDBActs},
		{kind: resNS, db: "local", coll: "system.replset", actions: readActions},
		{kind: resAny, actions: []string{"dbCheck"}},
		{kind: resNS, db: "local", coll: "system.healthlog", actions: readActions},
		{kind: resDB, db: "config", actions: clusterManagerWrites},
		{kind: resDB, db: "local", actions: clusterManagerWrites},
		{kind: resNS, db: "local", coll: "replset.election", actions: clusterManagerWrites},
		{kind: resNS, db: "local", coll: "replset.minvalid", actions: clusterManagerWrites}}},
	"clusterAdmin": {roles: []roleName{{Role: "clusterMonitor"}, {Role: "hostManager"}, {Role: "clusterManager"}}, privs: []rolePriv{
		{kind: resAnyNormal, actions: []string{"dropDatabase"}},
		{kind: resAny, actions: []string{"exportCollection", "importCollection"}}}},
	"__queryableBackup": {privs: []rolePriv{
		{kind: resAny, actions: []string{"collStats", "listCollections", "listIndexes", "listSearchIndexes"}},
		{kind: resAnyNormal, actions: []string{"find"}},
		{kind: resBuckets, actions: []string{"find"}},
		{kind: resCluster, actions: []string{"getParameter", "listDatabases", "useUUID"}},
		{kind: resDB, db: "config", actions: []string{"find"}},
		{kind: resDB, db: "local", actions: []string{"find"}},
		{kind: resNS, db: "local", coll: "replset.election", actions: []string{"find"}},
		{kind: resNS, db: "local", coll: "replset.minvalid", actions: []string{"find"}},
		{kind: resCollection, coll: "system.js", actions: []string{"find"}},
		{kind: resCollection, coll: "system.users", actions: []string{"find"}},
		{kind: resCollection, coll: "system.profile", actions: []string{"find"}},
		{kind: resNS, db: "admin", coll: "system.backup_users", actions: []string{"find"}},
		{kind: resNS, db: "admin", coll: "system.roles", actions: []string{"find"}},
		{kind: resNS, db: "admin", coll: "system.version", actions: []string{"find"}},
		{kind: resNS, db: "config", coll: "settings", actions: []string{"find"}}}},
	"backup": {roles: []roleName{{Role: "__queryableBackup"}}, privs: []rolePriv{
		{kind: resCluster, actions: []string{"appendOplogNote", "serverStatus", "setUserWriteBlockMode"}},
		{kind: resNS, db: "config", coll: "settings", actions: []string{"insert", "update"}}}},
	"restore": {privs: []rolePriv{
		{kind: resCluster, actions: []string{"applyOps", "bypassWriteBlockingMode", "forceUUID", "getParameter",
			"setUserWriteBlockMode", "useUUID"}},
		{kind: resDB, db: "local", actions: restoreWriteActions},
		{kind: resDB, db: "config", actions: restoreWriteActions},
		{kind: resBuckets, actions: restoreWriteActions},
		{kind: resNS, db: "local", coll: "system.replset", actions: restoreWriteActions},
		{kind: resNS, db: "local", coll: "replset.election", actions: restoreWriteActions},
		{kind: resNS, db: "local", coll: "replset.minvalid", actions: restoreWriteActions},
		{kind: resAny, actions: []string{"listCollections"}},
		{kind: resAnyNormal, actions: join(restoreWriteActions, userAdminActions)},
		{kind: resCollection, coll: "system.js", actions: restoreWriteActions},
		{kind: resNS, db: "admin", coll: "tempusers", actions: []string{"find"}},
		{kind: resNS, db: "admin", coll: "temproles", actions: []string{"find"}},
		{kind: resNS, db: "admin", coll: "system.backup_users", actions: restoreWriteActions},
		{kind: resNS, db: "admin", coll: "system.version", actions: join(restoreWriteActions, []string{"find"})},
		{kind: resCollection, coll: "system.users", actions: join(restoreWriteActions, []string{"find", "remove", "update"})},
		{kind: resNS, db: "admin", coll: "system.roles", actions: []string{"createIndex"}}}},
	"root": {roles: []roleName{{Role: "clusterAdmin"}, {Role: "userAdminAnyDatabase"}, {Role: "dbAdminAnyDatabase"},
		{Role: "readWriteAnyDatabase"}, {Role: "backup"}, {Role: "restore"}}, privs: []rolePriv{
		{kind: resAny, actions: []string{"validate"}},
		{kind: resCluster, actions: []string{"useTenant"}},
		{kind: resNS, db: "config", coll: "system.preimages", actions: []string{"find", "remove"}},
		{kind: resNS, db: "config", coll: "system.change_collection", actions: []string{"find", "insert", "remove", "update"}}}},
}

// resourceKey identifies a resource, to merge the actions granted on it.
type resourceKey struct {
	kind     resourceKind
	db, coll string
}

// eachPrivilege calls f with the resource and actions of each privilege
// roles grant (the roles they include too), in the order of their
// definitions.
func eachPrivilege(roles []roleName, f func(k resourceKey, actions []string)) {
	seen := map[roleName]bool{}
	var visit func(r roleName)
	visit = func(r roleName) {
		if seen[r] {
			return
		}
		seen[r] = true
		def, ok := builtinRoles[r.Role]
		if !ok {
			return
		}
		for _, sub := range def.roles {
			if sub.DB == "" {
				sub.DB = r.DB
			}
			visit(sub)
		}
		for _, p := range def.privs {
			k := resourceKey{kind: p.kind}
			switch p.kind {
			case resDB, resNS:
				k.db, k.coll = r.DB, p.coll
				if p.db != "" {
					k.db = p.db
				}
			case resCollection:
				k.coll = p.coll
			}
			f(k, p.actions)
		}
	}
	for _, r := range roles {
		visit(r)
	}
}

// privilegesOf lists the privileges roles grant, one entry a resource
// with the union of the actions granted on it (sorted), in the order
// the resources first appear, as connectionStatus shows them.
func privilegesOf(roles []roleName) bson.A {
	var order []resourceKey
	acts := map[resourceKey]map[string]bool{}
	eachPrivilege(roles, func(k resourceKey, actions []string) {
		if acts[k] == nil {
			acts[k] = map[string]bool{}
			order = append(order, k)
		}
		for _, a := range actions {
			acts[k][a] = true
		}
	})
	out := bson.A{}
	for _, k := range order {
		res := k.doc()
		names := make([]string, 0, len(acts[k]))
		for a := range acts[k] {
			names = append(names, a)
		}
		sort.Strings(names)
		list := make(bson.A, len(names))
		for i, a := range names {
			list[i] = a
		}
		out = append(out, bson.D{{Key: "resource", Value: res}, {Key: "actions", Value: list}})
	}
	return out
}

// doc is the resource as mongod shows it in a privilege.
func (k resourceKey) doc() bson.D {
	switch k.kind {
	case resCluster:
		return bson.D{{Key: "cluster", Value: true}}
	case resAny:
		return bson.D{{Key: "anyResource", Value: true}}
	case resBuckets:
		return bson.D{{Key: "system_buckets", Value: ""}}
	case resBucketsIn:
		return bson.D{{Key: "db", Value: k.db}, {Key: "system_buckets", Value: ""}}
	case resBucketsNamed:
		return bson.D{{Key: "system_buckets", Value: k.coll}}
	case resBucketsNS:
		return bson.D{{Key: "db", Value: k.db}, {Key: "system_buckets", Value: k.coll}}
	}
	return bson.D{{Key: "db", Value: k.db}, {Key: "collection", Value: k.coll}}
}

// matchesDB reports whether resource k covers database db itself (a
// database-wide action such as dbStats or createRole there).
func (k resourceKey) matchesDB(db string) bool {
	switch k.kind {
	case resAny:
		return true
	case resAnyNormal:
		return !localOrConfig(db)
	case resDB:
		return k.db == db
	}
	return false
}

// matchesCluster reports whether resource k covers the server itself.
func (k resourceKey) matchesCluster() bool { return k.kind == resAny || k.kind == resCluster }

// matchesAnyNormal reports whether resource k covers every ordinary
// resource (mongod's anyNormalResource, which updateRole's revokeRole
// needs).
func (k resourceKey) matchesAnyNormal() bool { return k.kind == resAny || k.kind == resAnyNormal }

// matches reports whether resource k covers the collection db.coll, as
// mongod's resource patterns do: a database's and the any-database
// resources cover its ordinary collections only, not its system.
// collections, which need a privilege naming them; the any-database
// resource covers no collection of local and config.
func (k resourceKey) matches(db, coll string) bool {
	system := strings.HasPrefix(coll, "system.")
	switch k.kind {
	case resAny:
		return true
	case resAnyNormal:
		return !system && !localOrConfig(db)
	case resDB:
		return k.db == db && !system
	case resNS:
		return k.db == db && k.coll == coll
	case resCollection:
		return k.coll == coll
	case resBuckets:
		return strings.HasPrefix(coll, "system.buckets.")
	case resBucketsIn:
		return k.db == db && strings.HasPrefix(coll, "system.buckets.")
	case resBucketsNamed:
		return coll == "system.buckets."+k.coll
	case resBucketsNS:
		return k.db == db && coll == "system.buckets."+k.coll
	}
	return false
}

// anyPrivilegeOn reports whether roles grant some action on the
// collection db.coll (mongod's isAuthorizedForAnyActionOnResource on its
// exact namespace): what listCollections with authorizedCollections
// lists.
func anyPrivilegeOn(roles []roleName, db, coll string) bool {
	found := false
	eachPrivilege(roles, func(k resourceKey, _ []string) {
		found = found || k.matches(db, coll)
	})
	return found
}

// anyPrivilegeInDB reports whether roles grant some action on some
// resource of database db (mongod's
// isAuthorizedForAnyActionOnAnyResourceInDB), which lets a user run
// listCollections with authorizedCollections and nameOnly there.
func anyPrivilegeInDB(roles []roleName, db string) bool {
	found := false
	eachPrivilege(roles, func(k resourceKey, _ []string) {
		found = found || k.inDB(db)
	})
	return found
}

// inDB reports whether resource k covers some resource of database db.
func (k resourceKey) inDB(db string) bool {
	switch k.kind {
	case resAny, resCollection, resBuckets, resBucketsNamed:
		return true
	case resAnyNormal:
		return !localOrConfig(db)
	case resDB, resNS, resBucketsIn, resBucketsNS:
		return k.db == db
	}
	return false
}

// localOrConfig reports whether db is one of the databases mongod's
// any-database resource leaves out.
func localOrConfig(db string) bool { return db == "local" || db == "config" }
