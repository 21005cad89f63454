package engine

import (
	"crypto/md5"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// A standalone mongod 7.0 always has an admin database: its
// system.version collection holds the feature compatibility version,
// written at the first start, and the authorization schema's version
// from the first user on. Clients list it (listDatabases, mongosh's
// show dbs), read it (mongodump dumps it beside admin's users, scripts
// read the FCV document) and may not write it without privileges. ttlkv
// keeps no such documents: it shows them, read-only, made from what it
// has (docs/commands.md, "The system databases").

// systemVersion is the name of admin's collection of version documents.
const systemVersion = "system.version"

// systemVersionDocs returns admin.system.version's documents as a
// standalone mongod 7.0 holds them: {_id: "featureCompatibilityVersion",
// version: "7.0"}, then, once a user exists (admin.system.users does),
// {_id: "authSchema", currentVersion: 5}, the schema createUser (or
// createRole: admin.system.roles) writes.
func (db *DB) systemVersionDocs() []bson.D {
	docs := []bson.D{{{Key: "_id", Value: "featureCompatibilityVersion"}, {Key: "version", Value: "7.0"}}}
	if db.lookup("admin", "system.users") != nil || db.lookup("admin", "system.roles") != nil {
		docs = append(docs, bson.D{{Key: "_id", Value: "authSchema"}, {Key: "currentVersion", Value: int32(5)}})
	}
	return docs
}

// errWriteSystemVersion refuses a write to admin.system.version, which
// ttlkv shows from what it keeps: mongod lets a user with the
// privileges write there (a root user; others are refused 13 by the
// wire server as by mongod).
var errWriteSystemVersion = document.Errorf(document.CodeInvalidNamespace, "cannot write to admin.%s", systemVersion)

// catalogDocs returns the documents of dbName.name when it is one of
// the collections the engine shows from what it keeps (a database's
// system.views, admin.system.version), read-only; ok is false for any
// other name, or when the database has no such collection now.
func (db *DB) catalogDocs(dbName, name string) (docs []bson.D, ok bool) {
	switch {
	case name == systemViews:
		return db.systemViewsDocs(dbName)
	case dbName == "admin" && name == systemVersion:
		return db.systemVersionDocs(), true
	}
	return nil, false
}

// catalogNames returns the names of dbName's collections catalogDocs
// shows, in name order.
func (db *DB) catalogNames(dbName string) []string {
	var out []string
	if dbName == "admin" {
		out = append(out, systemVersion)
	}
	if _, ok := db.systemViewsDocs(dbName); ok {
		out = append(out, systemViews)
	}
	return out
}

// catalogCollInfo is a shown collection as listCollections lists it: an
// ordinary collection with an _id index. Its UUID is made from its
// namespace, so it stays the same while the collection is shown.
func (db *DB) catalogCollInfo(dbName, name string) bson.D {
	u := catalogUUID(dbName, name)
	return bson.D{{Key: "name", Value: name}, {Key: "type", Value: "collection"}, {Key: "options", Value: bson.D{}},
		{Key: "info", Value: bson.D{{Key: "readOnly", Value: db.opts.Role == RoleReadOnly}, {Key: "uuid", Value: u.Binary()}}},
		{Key: "idIndex", Value: listIndexEntry(idIndex())}}
}

// catalogUUID is the UUID of a shown collection, made from its
// namespace.
func catalogUUID(dbName, name string) catalog.UUID {
	sum := md5.Sum([]byte(name + "\x00" + dbName))
	u := catalog.UUID(sum)
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // RFC 4122 variant
	return u
}

// catalogStats is a shown collection's share of collStats and dbStats:
// its documents, their BSON bytes and the bytes of its _id index's keys
// (each _id's BSON value and its record id, as ttlkv keys an _id
// index). ok is false when dbName.name is not shown.
func (db *DB) catalogStats(dbName, name string) (count, size, idSize int64, ok bool) {
	docs, ok := db.catalogDocs(dbName, name)
	if !ok {
		return 0, 0, 0, false
	}
	for _, d := range docs {
		b, err := bson.Marshal(d)
		if err != nil {
			continue
		}
		count++
		size += int64(len(b))
		idSize += int64(len(d[0].Value.(string))) + 5 + 8 // string header and NUL, record id
	}
	return count, size, idSize, true
}
