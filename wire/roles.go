package wire

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine"
)

// User-defined roles (docs/wire.md, "User-defined roles"): documents of
// admin.system.roles in mongod 7.0's shape, {_id: "db.role", role, db,
// privileges, roles}, made and changed by createRole, updateRole,
// grantRolesToRole, revokeRolesFromRole, grantPrivilegesToRole,
// revokePrivilegesFromRole, dropRole and dropAllRolesFromDatabase, and
// described by rolesInfo. A user holding one is granted its privileges
// and those of every role it inherits.

const rolesColl = "system.roles"

// roleCommands are the role management commands the server answers.
var roleCommands = map[string]bool{"createRole": true, "updateRole": true, "dropRole": true,
	"dropAllRolesFromDatabase": true, "rolesInfo": true, "grantRolesToRole": true, "revokeRolesFromRole": true,
	"grantPrivilegesToRole": true, "revokePrivilegesFromRole": true}

// databaseRoles are mongod's built-in roles of every database; the
// other built-in role names exist on admin only.
var databaseRoles = map[string]bool{"read": true, "readWrite": true, "dbAdmin": true, "userAdmin": true, "dbOwner": true,
	"enableSharding": true}

// adminRoles are mongod 7.0's built-in roles of admin (ttlkv grants
// those of knownRoles; a user-defined role may not take any name here).
var adminRoles = map[string]bool{"readAnyDatabase": true, "readWriteAnyDatabase": true, "userAdminAnyDatabase": true,
	"dbAdminAnyDatabase": true, "clusterMonitor": true, "hostManager": true, "clusterManager": true, "clusterAdmin": true,
	"root": true, "backup": true, "restore": true, "__queryableBackup": true, "__system": true,
	"directShardOperations": true, "searchCoordinator": true}

// isBuiltinRole reports whether r names one of mongod's built-in roles.
func isBuiltinRole(r roleName) bool {
	if databaseRoles[r.Role] {
		return r.DB != ""
	}
	return adminRoles[r.Role] && r.DB == "admin"
}

// grantableBuiltin reports whether r is a built-in role ttlkv lets a
// user or a role hold.
func grantableBuiltin(r roleName) bool {
	adminOnly := r.Role == "root" || r.Role == "restore" || r.Role == "backup" || strings.HasSuffix(r.Role, "AnyDatabase")
	return knownRoles[r.Role] && r.DB != "" && (!adminOnly || r.DB == "admin")
}

func (r roleName) String() string { return r.Role + "@" + r.DB }

func (r roleName) doc() bson.D { return bson.D{{Key: "role", Value: r.Role}, {Key: "db", Value: r.DB}} }

// actionNames are the action types mongod 7.0 knows: a privilege naming
// another is 2 BadValue.
var actionNames = func() map[string]bool {
	m := map[string]bool{}
	for _, a := range strings.Fields(`addShard advanceClusterTime allCollectionStats analyze analyzeShardKey anyAction
		appendOplogNote applicationMessage auditConfigure auditLogRotate authCheck authenticate authSchemaUpgrade
		bypassDocumentValidation bypassWriteBlockingMode changeCustomData changePassword changeOwnPassword
		changeOwnCustomData changeStream checkFreeMonitoringStatus checkMetadataConsistency cleanupOrphaned
		clearJumboFlag cleanupStructuredEncryptionData closeAllDatabases collMod collStats compact
		compactStructuredEncryptionData configureQueryAnalyzer connPoolStats connPoolSync convertToCapped cpuProfiler
		createCollection createDatabase createIndex createRole createSearchIndexes createUser dbCheck dbHash dbStats
		dropAllRolesFromDatabase dropAllUsersFromDatabase dropCollection dropConnections dropDatabase dropIndex dropRole
		dropSearchIndex dropUser emptycapped enableProfiler enableSharding exportCollection find flushRouterConfig
		forceUUID fsync fsyncUnlock getClusterParameter getDatabaseVersion getDefaultRWConcern getCmdLineOpts getLog
		getParameter getShardMap getShardVersion grantRole grantPrivilegesToRole grantRolesToRole grantRolesToUser
		hostInfo impersonate importCollection indexStats inprog insert internal invalidateUserCache
		issueDirectShardOperations killAnyCursor killAnySession killCursors killop listCachedAndActiveUsers
		listCollections listCursors listDatabases listIndexes listSampledQueries listSearchIndexes listSessions
		listShards logRotate updateSearchIndex moveChunk netstat oidcListKeys oidcRefreshKeys oidReset
		operationMetrics planCacheIndexFilter planCacheRead planCacheWrite queryStatsRead queryStatsReadTransformed
		refineCollectionShardKey reIndex remove removeShard renameCollection renameCollectionSameDB repairDatabase
		replSetConfigure replSetGetConfig replSetGetStatus replSetHeartbeat replSetReconfig replSetResizeOplog
		replSetStateChange reshardCollection resync revokeRole revokePrivilegesFromRole revokeRolesFromRole
		revokeRolesFromUser rotateCertificates runAsLessPrivilegedUser runTenantMigration serverStatus
		setAuthenticationRestriction setClusterParameter setDefaultRWConcern setFeatureCompatibilityVersion
		setFreeMonitoring setParameter setUserWriteBlockMode shardCollection shardedDataDistribution shardingState
		shutdown splitChunk splitVector storageDetails top touch trafficRecord transitionFromDedicatedConfigServer
		transitionToDedicatedConfigServer unlock useTenant useUUID update updateRole updateUser validate viewRole
		viewUser applyOps setChangeStreamState getChangeStreamState`) {
		m[a] = true
	}
	return m
}()

// privilege is a resource and the actions allowed on it, as a role
// document holds it.
type privilege struct {
	res     resourceKey
	actions []string // sorted, without repeats
}

// has reports whether p allows action.
func (p privilege) has(action string) bool {
	_, ok := slices.BinarySearch(p.actions, action)
	return ok || slices.Contains(p.actions, "anyAction")
}

func (p privilege) doc() bson.D {
	acts := make(bson.A, len(p.actions))
	for i, a := range p.actions {
		acts[i] = a
	}
	return bson.D{{Key: "resource", Value: p.res.doc()}, {Key: "actions", Value: acts}}
}

// mergePrivileges unites the actions of privileges on the same
// resource, keeping the order in which the resources first appear, as
// mongod stores a role's privileges.
func mergePrivileges(privs ...[]privilege) []privilege {
	var out []privilege
	for _, list := range privs {
		for _, p := range list {
			i := slices.IndexFunc(out, func(q privilege) bool { return q.res == p.res })
			if i < 0 {
				out = append(out, privilege{res: p.res, actions: slices.Clone(p.actions)})
				continue
			}
			out[i].actions = sortedUnion(out[i].actions, p.actions)
		}
	}
	return out
}

func sortedUnion(a, b []string) []string {
	out := append(slices.Clone(a), b...)
	sort.Strings(out)
	return slices.Compact(out)
}

func privilegeDocs(privs []privilege) bson.A {
	out := bson.A{}
	for _, p := range privs {
		out = append(out, p.doc())
	}
	return out
}

// parsePrivileges reads a privileges argument of command cmdName, with
// mongod's checks: each resource one of {db, collection}, {cluster:
// true}, {anyResource: true} or a system_buckets form, a non-empty
// actions array, and every action a known one (2 BadValue, naming all
// the unknown ones after the resources have been checked).
func parsePrivileges(cmdName string, v any) ([]privilege, *cmdError) {
	arr, ok := v.(bson.A)
	if !ok {
		return nil, &cmdError{14, "TypeMismatch", fmt.Sprintf("BSON field '%s.privileges' is the wrong type '%s', expected type 'array'", cmdName, document.TypeName(v))}
	}
	var out []privilege
	unknown := map[string]bool{}
	for _, x := range arr {
		d, ok := x.(bson.D)
		if !ok {
			return nil, &cmdError{14, "TypeMismatch", fmt.Sprintf("BSON field '%s.privileges' is the wrong type '%s', expected type 'object'", cmdName, document.TypeName(x))}
		}
		p, err := parsePrivilege(cmdName, d, unknown)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	if len(unknown) > 0 {
		names := make([]string, 0, len(unknown))
		for a := range unknown {
			names = append(names, a)
		}
		sort.Strings(names)
		msg := "Unknown action type"
		if len(names) > 1 {
			msg += "s"
		}
		msg += " in privilege set:"
		for i, a := range names {
			if i > 0 {
				msg += ","
			}
			msg += " '" + a + "'"
		}
		return nil, &cmdError{2, "BadValue", msg}
	}
	return mergePrivileges(out), nil
}

func parsePrivilege(cmdName string, d bson.D, unknown map[string]bool) (privilege, *cmdError) {
	missing := func(f string) *cmdError {
		return &cmdError{40414, "Location40414", fmt.Sprintf("BSON field '%s.privileges.%s' is missing but a required field", cmdName, f)}
	}
	rv := lookup(d, "resource")
	if rv == nil {
		return privilege{}, missing("resource")
	}
	rd, ok := rv.(bson.D)
	if !ok {
		return privilege{}, &cmdError{14, "TypeMismatch", fmt.Sprintf("BSON field '%s.privileges.resource' is the wrong type '%s', expected type 'object'", cmdName, document.TypeName(rv))}
	}
	res, err := parseResource(cmdName, rd)
	if err != nil {
		return privilege{}, err
	}
	av := lookup(d, "actions")
	if av == nil {
		return privilege{}, missing("actions")
	}
	acts, ok := av.(bson.A)
	if !ok {
		return privilege{}, &cmdError{14, "TypeMismatch", fmt.Sprintf("BSON field '%s.privileges.actions' is the wrong type '%s', expected type 'array'", cmdName, document.TypeName(av))}
	}
	if len(acts) == 0 {
		return privilege{}, &cmdError{2, "BadValue", "'actions' field of privilege resource must not be empty"}
	}
	p := privilege{res: res}
	for _, a := range acts {
		s, ok := a.(string)
		if !ok {
			return privilege{}, &cmdError{14, "TypeMismatch", fmt.Sprintf("BSON field '%s.privileges.actions.0' is the wrong type '%s', expected type 'string'", cmdName, document.TypeName(a))}
		}
		if !actionNames[s] {
			unknown[s] = true
		}
		p.actions = append(p.actions, s)
	}
	sort.Strings(p.actions)
	p.actions = slices.Compact(p.actions)
	return p, nil
}

// parseResource reads a privilege's resource as mongod's
// resolvePrivilegeWithTenant does.
func parseResource(cmdName string, rd bson.D) (resourceKey, *cmdError) {
	bad := func(msg string) *cmdError { return &cmdError{2, "BadValue", msg} }
	boolField := func(f string) (set, val bool, err *cmdError) {
		v := lookup(rd, f)
		if v == nil {
			return false, false, nil
		}
		if _, ok := v.(bool); !ok && !document.IsNumber(v) {
			return false, false, &cmdError{14, "TypeMismatch", fmt.Sprintf("BSON field '%s.privileges.resource.%s' is the wrong type '%s', expected types '[bool, long, int, decimal, double]'", cmdName, f, document.TypeName(v))}
		}
		return true, trueValue(v), nil
	}
	strField := func(f string) (set bool, val string, err *cmdError) {
		v := lookup(rd, f)
		if v == nil {
			return false, "", nil
		}
		s, ok := v.(string)
		if !ok {
			return false, "", &cmdError{14, "TypeMismatch", fmt.Sprintf("BSON field '%s.privileges.resource.%s' is the wrong type '%s', expected type 'string'", cmdName, f, document.TypeName(v))}
		}
		return true, s, nil
	}
	hasCluster, cluster, err := boolField("cluster")
	if err != nil {
		return resourceKey{}, err
	}
	hasAny, anyRes, err := boolField("anyResource")
	if err != nil {
		return resourceKey{}, err
	}
	hasDB, db, err := strField("db")
	if err != nil {
		return resourceKey{}, err
	}
	hasColl, coll, err := strField("collection")
	if err != nil {
		return resourceKey{}, err
	}
	hasBuckets, bucket, err := strField("system_buckets")
	if err != nil {
		return resourceKey{}, err
	}
	conflict := func(res, field string) *cmdError {
		return bad(fmt.Sprintf("%s conflicts with resource type '%s'", res, field))
	}
	switch {
	case hasCluster:
		const r = "resource: {cluster: true}"
		switch {
		case !cluster:
			return resourceKey{}, bad("resource: {cluster: false} must be true")
		case hasAny:
			return resourceKey{}, conflict(r, "anyResource")
		case hasDB:
			return resourceKey{}, conflict(r, "db")
		case hasColl:
			return resourceKey{}, conflict(r, "collection")
		case hasBuckets:
			return resourceKey{}, conflict(r, "system_buckets")
		}
		return resourceKey{kind: resCluster}, nil
	case hasAny:
		const r = "resource: {anyResource: true}"
		switch {
		case !anyRes:
			return resourceKey{}, bad("resource: {anyResource: false} must be true")
		case hasDB:
			return resourceKey{}, conflict(r, "db")
		case hasColl:
			return resourceKey{}, conflict(r, "collection")
		case hasBuckets:
			return resourceKey{}, conflict(r, "system_buckets")
		}
		return resourceKey{kind: resAny}, nil
	case hasColl && hasBuckets:
		return resourceKey{}, conflict("resource: {collection: '...'}", "system_buckets")
	case hasColl:
		if !hasDB {
			return resourceKey{}, bad("resource {collection: '...'} must include 'db' field as well")
		}
		if coll != "" && !validPrivilegeCollection(db, coll) {
			return resourceKey{}, bad(fmt.Sprintf("'%s' is not a valid collection name", coll))
		}
		switch {
		case db == "" && coll == "":
			return resourceKey{kind: resAnyNormal}, nil
		case db == "":
			return resourceKey{kind: resCollection, coll: coll}, nil
		case coll == "":
			return resourceKey{kind: resDB, db: db}, nil
		}
		return resourceKey{kind: resNS, db: db, coll: coll}, nil
	case hasBuckets:
		switch {
		case db == "" && bucket == "":
			return resourceKey{kind: resBuckets}, nil
		case bucket == "":
			return resourceKey{kind: resBucketsIn, db: db}, nil
		case db == "":
			return resourceKey{kind: resBucketsNamed, coll: bucket}, nil
		}
		return resourceKey{kind: resBucketsNS, db: db, coll: bucket}, nil
	}
	return resourceKey{}, bad("resource pattern must contain 'collection' or 'systemBuckets' specifier")
}

// validPrivilegeCollection is mongod's collection-name check for a
// privilege: no '$' (but local's oplog.$main) and no NUL, not starting
// with a dot.
func validPrivilegeCollection(db, coll string) bool {
	if db == "local" && coll == "oplog.$main" {
		return true
	}
	return !strings.ContainsAny(coll, "$\x00") && !strings.HasPrefix(coll, ".")
}

// roleDef is a user-defined role as stored.
type roleDef struct {
	name  roleName
	privs []privilege
	roles []roleName
	doc   bson.D // as stored, for rolesInfo
}

func (u *userStore) rolesC() *engine.Collection { return u.db.Database("admin").Collection(rolesColl) }

// getRole reads a user-defined role; ok is false when there is none.
func (u *userStore) getRole(ctx context.Context, r roleName) (*roleDef, bool) {
	d, err := u.rolesC().FindOne(ctx, bson.D{{Key: "_id", Value: r.DB + "." + r.Role}})
	if err != nil {
		return nil, false
	}
	def, e := parseRoleDoc(d)
	if e != nil {
		return nil, false
	}
	return def, true
}

// parseRoleDoc reads a stored (or restored) role document; its
// privileges are checked as createRole checks them.
func parseRoleDoc(d bson.D) (*roleDef, *cmdError) {
	role, ok1 := lookup(d, "role").(string)
	db, ok2 := lookup(d, "db").(string)
	switch {
	case !ok1 || role == "":
		return nil, &cmdError{2, "BadValue", "Role document needs 'role' field to be a non-empty string"}
	case !ok2 || db == "":
		return nil, &cmdError{2, "BadValue", "Role document needs 'db' field to be a non-empty string"}
	}
	def := &roleDef{name: roleName{Role: role, DB: db}, doc: d}
	pv, ok := lookup(d, "privileges").(bson.A)
	if !ok {
		return nil, &cmdError{2, "BadValue", "Role document needs 'privileges' field to be an array"}
	}
	privs, err := parsePrivileges("privileges", pv)
	if err != nil {
		return nil, err
	}
	def.privs = privs
	rv, ok := lookup(d, "roles").(bson.A)
	if !ok {
		return nil, &cmdError{2, "BadValue", "Role document needs 'roles' field to be an array"}
	}
	roles, err := parseRoleNames(db, rv)
	if err != nil {
		return nil, err
	}
	def.roles = roles
	if ar, ok := lookup(d, "authenticationRestrictions").(bson.A); ok && len(ar) > 0 {
		return nil, errRestrictions
	}
	return def, nil
}

// errRestrictions refuses authentication restrictions, which ttlkv
// does not enforce: a role that has them is not accepted rather than
// granted without them.
var errRestrictions = &cmdError{2, "BadValue", "ttlkv does not support authenticationRestrictions"}

// grants is what a set of roles gives, the roles they inherit included.
type grants struct {
	builtins  []roleName  // the built-in roles held, directly or inherited
	privs     []privilege // the privileges of the user-defined roles held
	inherited []roleName  // every role held through another (rolesInfo's inheritedRoles less the direct ones)
}

// resolve walks the role graph from roots as mongod's resolveRoles
// does: a built-in role stands for itself, a user-defined one gives its
// privileges and its roles; a role that no longer exists gives nothing.
func (u *userStore) resolve(ctx context.Context, roots []roleName) grants {
	var g grants
	seen := map[roleName]bool{}
	frontier := slices.Clone(roots)
	direct := map[roleName]bool{}
	for _, r := range roots {
		direct[r] = true
	}
	var privs [][]privilege
	for len(frontier) > 0 {
		var next []roleName
		for _, r := range frontier {
			if seen[r] {
				continue
			}
			seen[r] = true
			if !direct[r] {
				g.inherited = append(g.inherited, r)
			}
			if isBuiltinRole(r) {
				if grantableBuiltin(r) {
					g.builtins = append(g.builtins, r)
				}
				continue
			}
			def, ok := u.getRole(ctx, r)
			if !ok {
				continue
			}
			privs = append(privs, def.privs)
			next = append(next, def.roles...)
		}
		frontier = next
	}
	g.privs = mergePrivileges(privs...)
	return g
}

// roleExists reports whether r is a role a user or a role may be given:
// one of ttlkv's built-in roles or a user-defined role.
func (u *userStore) roleExists(ctx context.Context, r roleName) bool {
	if grantableBuiltin(r) {
		return true
	}
	if isBuiltinRole(r) {
		return false
	}
	_, ok := u.getRole(ctx, r)
	return ok
}

// rolesNotFound is mongod's RoleNotFound for the roles of names that do
// not exist, nil when all do.
func (u *userStore) rolesNotFound(ctx context.Context, names []roleName) *cmdError {
	var missing []string
	for _, r := range names {
		if !u.roleExists(ctx, r) {
			missing = append(missing, r.String())
		}
	}
	switch len(missing) {
	case 0:
		return nil
	case 1:
		return &cmdError{31, "RoleNotFound", "Could not find role: " + missing[0]}
	}
	return &cmdError{31, "RoleNotFound", "Could not find roles: " + strings.Join(missing, ", ")}
}

// roleCommand answers the role management commands.
func (c *conn) roleCommand(ctx context.Context, dbName, name string, cmd bson.D) bson.D {
	u := c.srv.users
	u.mu.Lock()
	defer u.mu.Unlock()
	var reply bson.D
	var err *cmdError
	switch name {
	case "createRole":
		err = u.createRole(ctx, dbName, cmd)
	case "updateRole":
		err = u.updateRole(ctx, dbName, cmd)
	case "dropRole":
		err = u.dropRole(ctx, dbName, cmd)
	case "dropAllRolesFromDatabase":
		reply, err = u.dropAllRoles(ctx, dbName)
	case "grantRolesToRole", "revokeRolesFromRole":
		err = u.changeRoleRoles(ctx, dbName, cmd, name == "grantRolesToRole")
	case "grantPrivilegesToRole", "revokePrivilegesFromRole":
		err = u.changeRolePrivileges(ctx, dbName, cmd, name == "grantPrivilegesToRole")
	case "rolesInfo":
		reply, err = u.rolesInfo(ctx, dbName, cmd)
	}
	if err != nil {
		return err.reply()
	}
	return append(reply, bson.E{Key: "ok", Value: 1.0})
}

// roleArg reads the role a command names (its first field's value).
func roleArg(dbName string, cmd bson.D) (roleName, *cmdError) {
	s, ok := cmd[0].Value.(string)
	if !ok {
		return roleName{}, &cmdError{14, "TypeMismatch", fmt.Sprintf("BSON field '%s.%s' is the wrong type '%s', expected type 'string'", cmd[0].Key, cmd[0].Key, document.TypeName(cmd[0].Value))}
	}
	return roleName{Role: s, DB: dbName}, nil
}

// checkGrantRoles is mongod's checkOkayToGrantRolesToRole: no role
// given itself, a role of a database other than admin inherits roles
// of its own database only, every role exists, and the graph stays
// without cycles (49 InvalidRoleModification).
func (u *userStore) checkGrantRoles(ctx context.Context, role roleName, add []roleName) *cmdError {
	for _, r := range add {
		if r == role {
			return &cmdError{49, "InvalidRoleModification", fmt.Sprintf("Cannot grant role %s to itself.", role)}
		}
		if role.DB != "admin" && r.DB != role.DB {
			return &cmdError{49, "InvalidRoleModification", fmt.Sprintf("Roles on the '%s' database cannot be granted roles from other databases", role.DB)}
		}
	}
	if err := u.rolesNotFound(ctx, add); err != nil {
		return &cmdError{err.code, err.codeName, fmt.Sprintf("Cannot grant roles to '%s': %s", role, err.msg)}
	}
	g := u.resolve(ctx, add)
	if slices.Contains(g.inherited, role) || slices.Contains(add, role) {
		return &cmdError{49, "InvalidRoleModification", fmt.Sprintf("Granting roles to %s would introduce a cycle in the role graph", role)}
	}
	return nil
}

// checkGrantPrivileges is mongod's checkOkayToGrantPrivilegesToRole: a
// role of a database other than admin may hold privileges on its own
// database only.
func checkGrantPrivileges(role roleName, privs []privilege) *cmdError {
	if role.DB == "admin" {
		return nil
	}
	for _, p := range privs {
		if (p.res.kind == resDB || p.res.kind == resNS) && p.res.db == role.DB {
			continue
		}
		return &cmdError{49, "InvalidRoleModification", fmt.Sprintf("Roles on the '%s' database cannot be granted privileges that target other databases or the cluster", role.DB)}
	}
	return nil
}

func (u *userStore) createRole(ctx context.Context, dbName string, cmd bson.D) *cmdError {
	role, err := roleArg(dbName, cmd)
	if err != nil {
		return err
	}
	for _, f := range []string{"privileges", "roles"} {
		if lookup(cmd, f) == nil {
			return &cmdError{40414, "Location40414", fmt.Sprintf("BSON field 'createRole.%s' is missing but a required field", f)}
		}
	}
	switch {
	case role.Role == "":
		return &cmdError{2, "BadValue", "Role name must be non-empty"}
	case dbName == "local":
		return &cmdError{2, "BadValue", "Cannot create roles in the local database"}
	case dbName == "$external":
		return &cmdError{2, "BadValue", "Cannot create roles in the $external database"}
	case isBuiltinRole(role):
		return &cmdError{2, "BadValue", "Cannot create roles with the same name as a built-in role"}
	}
	privs, err := parsePrivileges("createRole", lookup(cmd, "privileges"))
	if err != nil {
		return err
	}
	roles, err := parseRoleNames(dbName, lookup(cmd, "roles"))
	if err != nil {
		return err
	}
	if ar, ok := lookup(cmd, "authenticationRestrictions").(bson.A); ok && len(ar) > 0 {
		return errRestrictions
	}
	if err := u.checkGrantRoles(ctx, role, roles); err != nil {
		return err
	}
	if err := checkGrantPrivileges(role, privs); err != nil {
		return err
	}
	if _, ok := u.getRole(ctx, role); ok {
		return &cmdError{51002, "Location51002", fmt.Sprintf("Role \"%s\" already exists", role)}
	}
	if _, e := u.rolesC().InsertOne(ctx, newRoleDoc(role, privs, roles)); e != nil {
		return &cmdError{1, "InternalError", e.Error()}
	}
	u.gen.Add(1)
	return nil
}

// newRoleDoc is a role's document, its fields in mongod's order.
func newRoleDoc(role roleName, privs []privilege, roles []roleName) bson.D {
	return bson.D{{Key: "_id", Value: role.DB + "." + role.Role}, {Key: "role", Value: role.Role}, {Key: "db", Value: role.DB},
		{Key: "privileges", Value: privilegeDocs(privs)}, {Key: "roles", Value: roleDocs(roles)}}
}

func roleDocs(roles []roleName) bson.A {
	out := bson.A{}
	for _, r := range roles {
		out = append(out, r.doc())
	}
	return out
}

// setRole writes the fields set of role's document.
func (u *userStore) setRole(ctx context.Context, role roleName, set bson.D) *cmdError {
	res, e := u.rolesC().UpdateOne(ctx, bson.D{{Key: "_id", Value: role.DB + "." + role.Role}}, bson.D{{Key: "$set", Value: set}}, false)
	if e != nil {
		return &cmdError{1, "InternalError", e.Error()}
	}
	if res.MatchedCount == 0 {
		return &cmdError{31, "RoleNotFound", fmt.Sprintf("Role %s not found", role)}
	}
	u.gen.Add(1)
	return nil
}

func (u *userStore) updateRole(ctx context.Context, dbName string, cmd bson.D) *cmdError {
	role, err := roleArg(dbName, cmd)
	if err != nil {
		return err
	}
	pv, rv, av := lookup(cmd, "privileges"), lookup(cmd, "roles"), lookup(cmd, "authenticationRestrictions")
	if pv == nil && rv == nil && av == nil {
		return &cmdError{2, "BadValue", "Must specify at least one field to update in updateRole"}
	}
	set := bson.D{}
	var privs []privilege
	if pv != nil {
		if privs, err = parsePrivileges("updateRole", pv); err != nil {
			return err
		}
		set = append(set, bson.E{Key: "privileges", Value: privilegeDocs(privs)})
	}
	var roles []roleName
	if rv != nil {
		if roles, err = parseRoleNames(dbName, rv); err != nil {
			return err
		}
		set = append(set, bson.E{Key: "roles", Value: roleDocs(roles)})
	}
	if ar, ok := av.(bson.A); ok && len(ar) > 0 {
		return errRestrictions
	}
	if err := u.rolesNotFound(ctx, []roleName{role}); err != nil {
		return err
	}
	if rv != nil {
		if err := u.checkGrantRoles(ctx, role, roles); err != nil {
			return err
		}
	}
	if err := checkGrantPrivileges(role, privs); err != nil {
		return err
	}
	if len(set) == 0 {
		return nil
	}
	return u.setRole(ctx, role, set)
}

// modifiable reads the user-defined role a command changes: a built-in
// one is 2 BadValue, as mongod answers.
func modifiable(dbName string, cmd bson.D) (roleName, *cmdError) {
	role, err := roleArg(dbName, cmd)
	if err != nil {
		return role, err
	}
	if isBuiltinRole(role) {
		return role, &cmdError{2, "BadValue", fmt.Sprintf("%s is a built-in role and cannot be modified", role)}
	}
	return role, nil
}

func (u *userStore) changeRoleRoles(ctx context.Context, dbName string, cmd bson.D, grant bool) *cmdError {
	if _, err := roleArg(dbName, cmd); err != nil {
		return err
	}
	named, err := grantedRoleNames(dbName, cmd)
	if err != nil {
		return err
	}
	role, err := modifiable(dbName, cmd)
	if err != nil {
		return err
	}
	if grant {
		if err := u.checkGrantRoles(ctx, role, named); err != nil {
			return err
		}
	}
	def, ok := u.getRole(ctx, role)
	if !ok {
		// As mongod: the role's document is not there to update.
		return &cmdError{31, "RoleNotFound", fmt.Sprintf("Role %s not found", role)}
	}
	roles := changedRoles(def.roles, named, grant)
	return u.setRole(ctx, role, bson.D{{Key: "roles", Value: roleDocs(roles)}})
}

func (u *userStore) changeRolePrivileges(ctx context.Context, dbName string, cmd bson.D, grant bool) *cmdError {
	cmdName := cmd[0].Key
	if _, err := roleArg(dbName, cmd); err != nil {
		return err
	}
	v := lookup(cmd, "privileges")
	if v == nil {
		return &cmdError{40414, "Location40414", fmt.Sprintf("BSON field '%s.privileges' is missing but a required field", cmdName)}
	}
	if a, ok := v.(bson.A); ok && len(a) == 0 {
		return &cmdError{2, "BadValue", fmt.Sprintf("%s command requires a non-empty \"privileges\" array", cmdName)}
	}
	role, err := modifiable(dbName, cmd)
	if err != nil {
		return err
	}
	named, err := parsePrivileges(cmdName, v)
	if err != nil {
		return err
	}
	if grant {
		if err := checkGrantPrivileges(role, named); err != nil {
			return err
		}
	}
	def, ok := u.getRole(ctx, role)
	if !ok {
		return &cmdError{31, "RoleNotFound", fmt.Sprintf("Role %s not found", role)}
	}
	var privs []privilege
	if grant {
		privs = mergePrivileges(def.privs, named)
	} else {
		for _, p := range def.privs {
			for _, rm := range named {
				if rm.res == p.res {
					p.actions = slices.DeleteFunc(slices.Clone(p.actions), func(a string) bool { return slices.Contains(rm.actions, a) })
				}
			}
			if len(p.actions) > 0 {
				privs = append(privs, p)
			}
		}
	}
	return u.setRole(ctx, role, bson.D{{Key: "privileges", Value: privilegeDocs(privs)}})
}

func (u *userStore) dropRole(ctx context.Context, dbName string, cmd bson.D) *cmdError {
	role, err := modifiable(dbName, cmd)
	if err != nil {
		return err
	}
	if err := u.rolesNotFound(ctx, []roleName{role}); err != nil {
		return err
	}
	return u.removeRoles(ctx, func(r roleName) bool { return r == role })
}

func (u *userStore) dropAllRoles(ctx context.Context, dbName string) (bson.D, *cmdError) {
	n, err := u.rolesC().CountDocuments(ctx, bson.D{{Key: "db", Value: dbName}})
	if err != nil {
		return nil, &cmdError{1, "InternalError", err.Error()}
	}
	if cerr := u.removeRoles(ctx, func(r roleName) bool { return r.DB == dbName }); cerr != nil {
		return nil, cerr
	}
	return bson.D{{Key: "n", Value: int32(n)}}, nil
}

// removeRoles takes the user-defined roles gone reports from every user
// and every role that holds them, then deletes their documents, as
// mongod's dropRole does.
func (u *userStore) removeRoles(ctx context.Context, gone func(roleName) bool) *cmdError {
	for i, c := range []*engine.Collection{u.coll(), u.rolesC()} {
		cur, err := c.Find(ctx, bson.D{})
		if err != nil {
			return &cmdError{1, "InternalError", err.Error()}
		}
		docs, err := cur.All(ctx)
		if err != nil {
			return &cmdError{1, "InternalError", err.Error()}
		}
		for _, d := range docs {
			db, _ := lookup(d, "db").(string)
			if i == 1 { // a role: deleted when gone
				if r, _ := lookup(d, "role").(string); gone(roleName{Role: r, DB: db}) {
					if _, err := c.DeleteOne(ctx, bson.D{{Key: "_id", Value: lookup(d, "_id")}}); err != nil {
						return &cmdError{1, "InternalError", err.Error()}
					}
					continue
				}
			}
			held, _ := lookup(d, "roles").(bson.A)
			kept := bson.A{}
			for _, x := range held {
				xd, _ := x.(bson.D)
				r, _ := lookup(xd, "role").(string)
				rdb, _ := lookup(xd, "db").(string)
				if !gone(roleName{Role: r, DB: rdb}) {
					kept = append(kept, x)
				}
			}
			if len(kept) == len(held) {
				continue
			}
			if _, err := c.UpdateOne(ctx, bson.D{{Key: "_id", Value: lookup(d, "_id")}}, bson.D{{Key: "$set", Value: bson.D{{Key: "roles", Value: kept}}}}, false); err != nil {
				return &cmdError{1, "InternalError", err.Error()}
			}
		}
	}
	u.gen.Add(1)
	return nil
}

// rolesInfoArg reads rolesInfo's argument: all the roles of the
// database (1), or the roles named.
func rolesInfoArg(dbName string, v any) (all bool, names []roleName, err *cmdError) {
	one := func(x any) (roleName, *cmdError) {
		switch x := x.(type) {
		case string:
			return roleName{Role: x, DB: dbName}, nil
		case bson.D:
			r, ok1 := lookup(x, "role").(string)
			db, ok2 := lookup(x, "db").(string)
			if ok1 && ok2 {
				return roleName{Role: r, DB: db}, nil
			}
		}
		return roleName{}, &cmdError{2, "BadValue", "Role names must be either strings or objects"}
	}
	switch x := v.(type) {
	case bson.A:
		for _, e := range x {
			r, err := one(e)
			if err != nil {
				return false, nil, err
			}
			if !slices.Contains(names, r) {
				names = append(names, r)
			}
		}
		return false, names, nil
	case string, bson.D:
		if d, ok := x.(bson.D); ok && lookup(d, "forAllDBs") != nil {
			return false, nil, &cmdError{2, "BadValue", "rolesInfo does not support {forAllDBs: true}: name the roles, or give 1 for a database's roles"}
		}
		r, err := one(x)
		if err != nil {
			return false, nil, err
		}
		return false, []roleName{r}, nil
	}
	if document.IsNumber(v) && document.Int64(v) == 1 {
		return true, nil, nil
	}
	return false, nil, &cmdError{2, "BadValue", "rolesInfo argument must be 1, a role name, a {role, db} document or an array of those"}
}

// rolesInfo answers the command as mongod's getRolesDescription and
// getRoleDescriptionsForDB do: each role's stored fields (privileges
// only with showPrivileges), the roles it inherits, directly or not,
// and with showPrivileges every privilege it gives.
func (u *userStore) rolesInfo(ctx context.Context, dbName string, cmd bson.D) (bson.D, *cmdError) {
	all, names, err := rolesInfoArg(dbName, cmd[0].Value)
	if err != nil {
		return nil, err
	}
	showPrivs := false
	if v := lookup(cmd, "showPrivileges"); v != nil {
		if s, ok := v.(string); ok {
			if s != "asUserFragment" {
				return nil, &cmdError{2, "BadValue", "Failed to parse 'showPrivileges'. 'showPrivileges' should either be a boolean or the string 'asUserFragment', given: " + s}
			}
			return nil, &cmdError{2, "BadValue", "ttlkv does not answer showPrivileges: \"asUserFragment\""}
		}
		showPrivs = trueValue(v)
	}
	showRestr := trueValue(lookup(cmd, "showAuthenticationRestrictions"))
	describe := func(def *roleDef, builtinFirst bool) bson.D {
		out := bson.D{}
		for _, e := range def.doc {
			if e.Key == "privileges" && !showPrivs {
				continue
			}
			out = append(out, e)
		}
		if showRestr && lookup(out, "authenticationRestrictions") == nil {
			out = append(out, bson.E{Key: "authenticationRestrictions", Value: bson.A{}})
		}
		if builtinFirst {
			out = append(out, bson.E{Key: "isBuiltin", Value: false})
		}
		g := u.resolve(ctx, def.roles)
		inherited := append(slices.Clone(def.roles), g.inherited...)
		out = append(out, bson.E{Key: "inheritedRoles", Value: roleDocs(inherited)})
		if showPrivs {
			ip := privilegeDocs(def.privs)
			ip = append(ip, privilegesOf(g.builtins)...)
			ip = append(ip, privilegeDocs(g.privs)...)
			out = append(out, bson.E{Key: "inheritedPrivileges", Value: ip})
		}
		if showRestr {
			out = append(out, bson.E{Key: "inheritedAuthenticationRestrictions", Value: bson.A{}})
		}
		if !builtinFirst {
			out = append(out, bson.E{Key: "isBuiltin", Value: false})
		}
		return out
	}
	roles := bson.A{}
	if all {
		if trueValue(lookup(cmd, "showBuiltinRoles")) {
			for _, r := range builtinRolesOf(dbName) {
				d := bson.D{{Key: "role", Value: r.Role}, {Key: "db", Value: r.DB}, {Key: "isBuiltin", Value: true},
					{Key: "roles", Value: bson.A{}}, {Key: "inheritedRoles", Value: bson.A{}}}
				if showPrivs {
					d = append(d, bson.E{Key: "privileges", Value: privilegesOf([]roleName{r})},
						bson.E{Key: "inheritedPrivileges", Value: privilegesOf([]roleName{r})})
				}
				if showRestr {
					d = append(d, bson.E{Key: "authenticationRestrictions", Value: bson.A{}},
						bson.E{Key: "inheritedAuthenticationRestrictions", Value: bson.A{}})
				}
				roles = append(roles, d)
			}
		}
		cur, e := u.rolesC().Find(ctx, bson.D{{Key: "db", Value: dbName}})
		if e != nil {
			return nil, &cmdError{1, "InternalError", e.Error()}
		}
		docs, e := cur.All(ctx)
		if e != nil {
			return nil, &cmdError{1, "InternalError", e.Error()}
		}
		for _, d := range docs {
			if def, err := parseRoleDoc(d); err == nil {
				roles = append(roles, describe(def, true))
			}
		}
		return bson.D{{Key: "roles", Value: roles}}, nil
	}
	for _, r := range names {
		if isBuiltinRole(r) {
			if _, ok := builtinRoles[r.Role]; !ok {
				continue // a role mongod has and ttlkv does not describe
			}
			d := bson.D{{Key: "db", Value: r.DB}, {Key: "role", Value: r.Role}, {Key: "roles", Value: bson.A{}}}
			if showPrivs {
				d = append(d, bson.E{Key: "privileges", Value: privilegesOf([]roleName{r})})
			}
			if showRestr {
				d = append(d, bson.E{Key: "authenticationRestrictions", Value: bson.A{}})
			}
			d = append(d, bson.E{Key: "inheritedRoles", Value: bson.A{}})
			if showPrivs {
				d = append(d, bson.E{Key: "inheritedPrivileges", Value: privilegesOf([]roleName{r})})
			}
			if showRestr {
				d = append(d, bson.E{Key: "inheritedAuthenticationRestrictions", Value: bson.A{}})
			}
			roles = append(roles, append(d, bson.E{Key: "isBuiltin", Value: true}))
			continue
		}
		if def, ok := u.getRole(ctx, r); ok {
			roles = append(roles, describe(def, false))
		}
	}
	return bson.D{{Key: "roles", Value: roles}}, nil
}

// builtinRolesOf lists the built-in roles of database db that ttlkv
// describes, by name: on admin every one, elsewhere the database roles.
func builtinRolesOf(db string) []roleName {
	var out []roleName
	for name := range builtinRoles {
		if strings.HasPrefix(name, "__") {
			continue
		}
		if r := (roleName{Role: name, DB: db}); isBuiltinRole(r) {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Role < out[j].Role })
	return out
}
