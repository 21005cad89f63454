package wire

import (
	"fmt"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// How the privileges of user-defined roles are enforced (docs/wire.md,
// "User-defined roles"): a command the table of commandNeeds knows
// needs certain actions on its collection, its database or the server,
// as mongod's checks ask for them; a user whose user-defined roles give
// every one of those may run it. Built-in roles keep their own checks
// (roleName.allows), so a user holding both kinds is allowed what
// either allows.

// need is one action a command needs on one resource: a collection
// (resNS: db, coll), a database (resDB: db), every ordinary resource
// (resAnyNormal) or the server (resCluster).
type need struct {
	kind     resourceKind
	db, coll string
	action   string
}

// covers reports whether resource k is one that need n's resource
// falls under.
func (n need) coveredBy(k resourceKey) bool {
	switch n.kind {
	case resNS:
		return k.matches(n.db, n.coll)
	case resDB:
		return k.matchesDB(n.db)
	case resCluster:
		return k.matchesCluster()
	case resAnyNormal:
		return k.matchesAnyNormal()
	}
	return false
}

// privHas reports whether a privilege of u's user-defined roles
// satisfies n.
func (u *userDoc) privHas(n need) bool {
	if u.eff == nil {
		return false
	}
	for _, p := range u.eff.privs {
		if p.has(n.action) && n.coveredBy(p.res) {
			return true
		}
	}
	return false
}

// hasAction reports whether u's roles, built-in (by mongod 7.0's table
// of their privileges) or user-defined, satisfy n: what the role and
// user management commands check.
func (u *userDoc) hasAction(n need) bool {
	if u.privHas(n) {
		return true
	}
	found := false
	eachPrivilege(u.builtinRoles(), func(k resourceKey, actions []string) {
		found = found || (slices.Contains(actions, n.action) && n.coveredBy(k))
	})
	return found
}

// customMay reports whether the privileges of u's user-defined roles
// allow the command on their own.
func (u *userDoc) customMay(dbName, name string, cmd bson.D) bool {
	if u.eff == nil || len(u.eff.privs) == 0 {
		return false
	}
	if name == "renameCollection" {
		return u.customRename(cmd)
	}
	if name == "explain" {
		if inner, ok := cmd[0].Value.(bson.D); ok && len(inner) > 0 && inner[0].Key == "aggregate" {
			name, cmd = "aggregate", inner
		}
	}
	if name == "aggregate" {
		// Its own needs; those of its stages beyond its namespace are
		// judged one by one (authorize), either kind of role counting.
		return u.privHasAll(aggregateNeeds(u, dbName, cmd).own)
	}
	needs, ok := commandNeeds(dbName, name, cmd)
	if !ok {
		return false
	}
	for _, n := range needs {
		if !u.privHas(n) {
			return false
		}
	}
	return true
}

// customRename is mongod's check of renameCollection: within one
// database, renameCollectionSameDB on it (and dropCollection on the
// target with dropTarget) when the user may read both collections or
// neither; otherwise find and dropCollection on the source, insert and
// createIndex (and dropCollection with dropTarget) on the target.
func (u *userDoc) customRename(cmd bson.D) bool {
	src, _ := cmd[0].Value.(string)
	dst, _ := lookup(cmd, "to").(string)
	sdb, scoll, ok1 := cutNS(src)
	ddb, dcoll, ok2 := cutNS(dst)
	if !ok1 || !ok2 {
		return false
	}
	dropTarget := trueValue(lookup(cmd, "dropTarget"))
	has := func(db, coll, action string) bool { return u.privHas(need{resNS, db, coll, action}) }
	if sdb == ddb && !dropTarget || sdb == ddb && has(ddb, dcoll, "dropCollection") {
		if u.privHas(need{resDB, sdb, "", "renameCollectionSameDB"}) && (has(sdb, scoll, "find") || !has(ddb, dcoll, "find")) {
			return true
		}
	}
	if !has(sdb, scoll, "find") || !has(sdb, scoll, "dropCollection") || !has(ddb, dcoll, "insert") || !has(ddb, dcoll, "createIndex") {
		return false
	}
	return !dropTarget || has(ddb, dcoll, "dropCollection")
}

func cutNS(s string) (db, coll string, ok bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			return s[:i], s[i+1:], i > 0 && i < len(s)-1
		}
	}
	return "", "", false
}

// commandNeeds lists the actions a command needs, after mongod 7.0's
// checks; ok is false for a command it does not know, which a
// user-defined role cannot allow (only a built-in role can). An
// aggregate's are aggregateNeeds'.
func commandNeeds(dbName, name string, cmd bson.D) (needs []need, ok bool) {
	coll, isColl := cmd[0].Value.(string)
	onColl := func(actions ...string) ([]need, bool) {
		if !isColl {
			return nil, false
		}
		for _, a := range actions {
			needs = append(needs, need{resNS, dbName, coll, a})
		}
		return needs, true
	}
	onDB := func(actions ...string) ([]need, bool) {
		for _, a := range actions {
			needs = append(needs, need{resDB, dbName, "", a})
		}
		return needs, true
	}
	onCluster := func(action string) ([]need, bool) { return []need{{resCluster, "", "", action}}, true }
	upsert := func(v any) bool {
		arr, _ := v.(bson.A)
		for _, x := range arr {
			if d, ok := x.(bson.D); ok && trueValue(lookup(d, "upsert")) {
				return true
			}
		}
		return false
	}
	switch name {
	case "explain":
		// What the explained command needs.
		if inner, ok := cmd[0].Value.(bson.D); ok && len(inner) > 0 {
			return commandNeeds(dbName, inner[0].Key, inner)
		}
		return nil, false
	case "find", "count", "distinct", "mapReduce", "mapreduce":
		return onColl("find")
	case "getMore", "killCursors":
		// A cursor belongs to the user that opened it (the cursor
		// checks); the command that opened it was judged.
		return nil, true
	case "insert":
		return onColl("insert")
	case "update":
		if upsert(lookup(cmd, "updates")) {
			return onColl("update", "insert")
		}
		return onColl("update")
	case "delete":
		return onColl("remove")
	case "findAndModify", "findandmodify":
		acts := []string{"find", "update"}
		if trueValue(lookup(cmd, "remove")) {
			acts[1] = "remove"
		}
		if trueValue(lookup(cmd, "upsert")) {
			acts = append(acts, "insert")
		}
		return onColl(acts...)
	case "create":
		return onColl("createCollection")
	case "drop":
		return onColl("dropCollection")
	case "createIndexes":
		return onColl("createIndex")
	case "dropIndexes", "deleteIndexes":
		return onColl("dropIndex")
	case "listIndexes":
		return onColl("listIndexes")
	case "collStats":
		return onColl("collStats")
	case "convertToCapped":
		return onColl("convertToCapped")
	case "collMod":
		return onColl("collMod")
	case "validate":
		return onColl("validate")
	case "compact":
		return onColl("compact")
	case "listCollections":
		return onDB("listCollections")
	case "dbStats":
		return onDB("dbStats")
	case "dbHash", "dbhash":
		return onDB("dbHash")
	case "dropDatabase":
		return onDB("dropDatabase")
	case "createUser":
		return onDB("createUser")
	case "dropUser", "dropAllUsersFromDatabase":
		return onDB("dropUser")
	case "usersInfo":
		return onDB("viewUser")
	case "updateUser":
		var acts []string
		if lookup(cmd, "pwd") != nil {
			acts = append(acts, "changePassword")
		}
		if lookup(cmd, "customData") != nil {
			acts = append(acts, "changeCustomData")
		}
		return onDB(acts...) // roles: authorizeGrants
	case "serverStatus", "getParameter", "setParameter", "hostInfo", "getCmdLineOpts", "getLog", "top", "fsync", "shutdown", "logRotate":
		return onCluster(name)
	case "currentOp":
		return onCluster("inprog")
	case "killOp":
		return onCluster("killop")
	}
	return nil, false
}

// authorizeRoleCommand checks a role management command as mongod's
// checkAuthForTypedCommand does, with its words (13 Unauthorized). An
// argument it cannot read is left to the command, which reports it.
func (c *conn) authorizeRoleCommand(dbName, name string, cmd bson.D) *cmdError {
	u := c.auth.user
	deny := func(msg string) *cmdError { return &cmdError{13, "Unauthorized", msg} }
	onDB := func(db, action string) bool { return u.hasAction(need{resDB, db, "", action}) }
	roles := func(verb, action string) *cmdError {
		named, err := parseRoleNames(dbName, lookup(cmd, "roles"))
		if err != nil {
			return nil
		}
		for _, r := range named {
			if !onDB(r.DB, action) {
				return deny(fmt.Sprintf("Not authorized to %s role: %s", verb, r))
			}
		}
		return nil
	}
	privs := func(verb, action string) *cmdError {
		named, err := parsePrivileges(name, lookup(cmd, "privileges"))
		if err != nil {
			return nil
		}
		for _, p := range named {
			if p.res.kind == resDB || p.res.kind == resNS {
				if !onDB(p.res.db, action) {
					return deny(fmt.Sprintf("Not authorized to %s privileges on the %sdatabase", verb, p.res.db))
				}
			} else if !onDB("admin", action) {
				return deny(fmt.Sprintf("To %s privileges affecting multiple databases or the cluster, must be authorized to %s roles from the admin database", verb, verb))
			}
		}
		return nil
	}
	first := func(errs ...func() *cmdError) *cmdError {
		for _, f := range errs {
			if err := f(); err != nil {
				return err
			}
		}
		return nil
	}
	switch name {
	case "createRole":
		if !onDB(dbName, "createRole") {
			return deny("Not authorized to create roles on db: " + dbName)
		}
		return first(func() *cmdError { return roles("grant", "grantRole") }, func() *cmdError { return privs("grant", "grantRole") })
	case "updateRole":
		if !u.hasAction(need{resAnyNormal, "", "", "revokeRole"}) {
			return deny("updateRole command required the ability to revoke any role in the system")
		}
		return first(func() *cmdError {
			if lookup(cmd, "roles") == nil {
				return nil
			}
			return roles("grant", "grantRole")
		}, func() *cmdError {
			if lookup(cmd, "privileges") == nil {
				return nil
			}
			return privs("grant", "grantRole")
		})
	case "grantRolesToRole":
		return roles("grant", "grantRole")
	case "revokeRolesFromRole":
		return roles("revoke", "revokeRole")
	case "grantPrivilegesToRole":
		return privs("grant", "grantRole")
	case "revokePrivilegesFromRole":
		return privs("revoke", "revokeRole")
	case "dropRole", "dropAllRolesFromDatabase":
		if !onDB(dbName, "dropRole") {
			return deny(fmt.Sprintf("Not authorized to drop roles from the %s database", dbName))
		}
	case "rolesInfo":
		all, named, err := rolesInfoArg(dbName, cmd[0].Value)
		if err != nil {
			return nil
		}
		if all {
			if !onDB(dbName, "viewRole") {
				return deny(fmt.Sprintf("Not authorized to view roles from the %s database", dbName))
			}
			return nil
		}
		for _, r := range named {
			if u.holdsRole(r) {
				continue // a user may always see the roles it holds
			}
			if !onDB(r.DB, "viewRole") {
				return deny(fmt.Sprintf("Not authorized to view roles from the %s database", r.DB))
			}
		}
	}
	return nil
}

// holdsRole reports whether u holds r, directly or through another role.
func (u *userDoc) holdsRole(r roleName) bool {
	return slices.Contains(u.Roles, r) || u.eff != nil && slices.Contains(u.eff.inherited, r)
}
