package wire

import (
	"context"
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine"
)

// _mergeAuthzCollections is what mongorestore sends after loading a
// dump's admin.system.users and admin.system.roles into temporary
// collections: the users and roles found there are added to the
// server's, or with drop: true replace them; db limits both to one
// database's. Stored as they came (every credential, userId,
// customData), restored users log in with their old passwords and hold
// their restored roles.

// mergeAuthz answers _mergeAuthzCollections.
func (u *userStore) mergeAuthz(ctx context.Context, dbName string, cmd bson.D) *cmdError {
	if dbName != "admin" {
		return &cmdError{13, "Unauthorized", "_mergeAuthzCollections may only be run against the admin database."}
	}
	str := func(field string) (string, *cmdError) {
		v := lookup(cmd, field)
		if v == nil {
			return "", nil
		}
		s, ok := v.(string)
		if !ok {
			return "", &cmdError{14, "TypeMismatch", fmt.Sprintf("BSON field '_mergeAuthzCollections.%s' is the wrong type '%s', expected type 'string'", field, document.TypeName(v))}
		}
		return s, nil
	}
	usersNS, err := str("tempUsersCollection")
	if err != nil {
		return err
	}
	rolesNS, err := str("tempRolesCollection")
	if err != nil {
		return err
	}
	onlyDB, err := str("db")
	if err != nil {
		return err
	}
	drop := false
	if v := lookup(cmd, "drop"); v != nil {
		b, ok := v.(bool)
		if !ok {
			return &cmdError{14, "TypeMismatch", fmt.Sprintf("BSON field '_mergeAuthzCollections.drop' is the wrong type '%s', expected type 'bool'", document.TypeName(v))}
		}
		drop = b
	}
	if usersNS == "" && rolesNS == "" {
		return &cmdError{2, "BadValue", "Must provide at least one of \"tempUsersCollection\" and \"tempRolescollection\""}
	}
	// Every document is read and checked before anything changes, so
	// a refused merge changes no user and no role.
	var roles []bson.D
	if rolesNS != "" {
		if roles, err = u.readTemp(ctx, rolesNS, onlyDB); err != nil {
			return err
		}
		for i, d := range roles {
			def, e := parseRoleDoc(d)
			if e != nil {
				return e
			}
			roles[i] = withID(d, def.name.DB+"."+def.name.Role)
		}
	}
	var users []bson.D
	if usersNS != "" {
		if users, err = u.readTemp(ctx, usersNS, onlyDB); err != nil {
			return err
		}
	}
	for i, d := range users {
		user, ok1 := lookup(d, "user").(string)
		db, ok2 := lookup(d, "db").(string)
		cred, ok3 := lookup(d, "credentials").(bson.D)
		_, ok4 := lookup(d, "roles").(bson.A)
		switch {
		case !ok1 || user == "":
			return &cmdError{2, "BadValue", "User document needs 'user' field to be a string"}
		case !ok2 || db == "":
			return &cmdError{2, "BadValue", "User document needs 'db' field to be a non-empty string"}
		case !ok3:
			return &cmdError{2, "BadValue", "User document needs 'credentials' object"}
		case !ok4:
			return &cmdError{2, "BadValue", "User document needs 'roles' field to be an array"}
		case len(cred) == 0:
			return &cmdError{2, "BadValue", "User document must provide credentials for all non-external users"}
		}
		// What the server reads of a user (its roles, its SCRAM-SHA-256
		// credential) must read back, or the user could never log in.
		var ud userDoc
		b, e := bson.Marshal(d)
		if e == nil {
			e = bson.Unmarshal(b, &ud)
		}
		if e != nil {
			return &cmdError{2, "BadValue", fmt.Sprintf("Invalid user document for %s@%s: %v", user, db, e)}
		}
		users[i] = withID(d, db+"."+user)
	}
	if usersNS != "" {
		if err := u.replaceAll(ctx, u.coll(), users, onlyDB, drop); err != nil {
			return err
		}
	}
	if rolesNS != "" {
		if err := u.replaceAll(ctx, u.rolesC(), roles, onlyDB, drop); err != nil {
			return err
		}
	}
	u.known.Store(0)
	if len(users) > 0 {
		u.everHad.Store(true)
	}
	u.gen.Add(1)
	return nil
}

// replaceAll writes the documents docs (users or roles, each with its
// _id) into c: without drop a document c has already is kept as it is;
// with drop the dump's replace the server's, and the server's documents
// of the databases restored (onlyDB's, or all) that the dump lacks are
// removed.
func (u *userStore) replaceAll(ctx context.Context, c *engine.Collection, docs []bson.D, onlyDB string, drop bool) *cmdError {
	if drop {
		ids := make(map[any]bool, len(docs))
		for _, d := range docs {
			ids[lookup(d, "_id")] = true
		}
		filter := bson.D{}
		if onlyDB != "" {
			filter = bson.D{{Key: "db", Value: onlyDB}}
		}
		cur, e := c.Find(ctx, filter)
		if e != nil {
			return &cmdError{1, "InternalError", e.Error()}
		}
		have, e := cur.All(ctx)
		if e != nil {
			return &cmdError{1, "InternalError", e.Error()}
		}
		for _, d := range have {
			if id := lookup(d, "_id"); !ids[id] {
				if _, e := c.DeleteOne(ctx, bson.D{{Key: "_id", Value: id}}); e != nil {
					return &cmdError{1, "InternalError", e.Error()}
				}
			}
		}
	}
	for _, d := range docs {
		id := lookup(d, "_id")
		if drop {
			if _, e := c.ReplaceOne(ctx, bson.D{{Key: "_id", Value: id}}, d, true); e != nil {
				return &cmdError{1, "InternalError", e.Error()}
			}
			continue
		}
		if _, e := c.FindOne(ctx, bson.D{{Key: "_id", Value: id}}); e == nil {
			continue
		}
		if _, e := c.InsertOne(ctx, d); e != nil {
			return &cmdError{1, "InternalError", e.Error()}
		}
	}
	return nil
}

// readTemp reads a temporary collection named "db.coll", keeping the
// documents of onlyDB when it is set.
func (u *userStore) readTemp(ctx context.Context, ns, onlyDB string) ([]bson.D, *cmdError) {
	db, coll, ok := strings.Cut(ns, ".")
	if !ok || db == "" || coll == "" {
		return nil, &cmdError{73, "InvalidNamespace", fmt.Sprintf("Invalid namespace: %s", ns)}
	}
	filter := bson.D{}
	if onlyDB != "" {
		filter = bson.D{{Key: "db", Value: onlyDB}}
	}
	cur, err := u.db.Database(db).Collection(coll).Find(ctx, filter)
	if err != nil {
		return nil, &cmdError{1, "InternalError", err.Error()}
	}
	docs, err := cur.All(ctx)
	if err != nil {
		return nil, &cmdError{1, "InternalError", err.Error()}
	}
	return docs, nil
}

// withID is d with _id set to id, first, as mongod keys a user.
func withID(d bson.D, id string) bson.D {
	out := bson.D{{Key: "_id", Value: id}}
	for _, e := range d {
		if e.Key != "_id" {
			out = append(out, e)
		}
	}
	return out
}
