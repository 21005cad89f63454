// What the mongo-tools check dumps: a collection of every kind.
const a = db.getSiblingDB("app");
a.events.insertMany([{ _id: 1, at: ISODate("2026-01-01T00:00:00Z"), kind: "x", n: NumberLong("5") },
  { _id: 2, at: ISODate("2026-01-01T00:00:01Z"), kind: "y", d: NumberDecimal("1.5") },
  { _id: 3, at: ISODate("2026-01-01T00:00:02Z"), kind: "x", tags: ["a", "b"] }]);
a.events.createIndex({ at: 1 }, { expireAfterSeconds: 315360000 });
a.events.createIndex({ kind: 1, n: -1 }, { name: "kind_n", partialFilterExpression: { n: { $exists: true } } });
a.events.createIndex({ kind: "hashed" });
a.events.createIndex({ "$**": 1 }, { name: "all_but_at", wildcardProjection: { at: 0 } });
a.createCollection("log", { capped: true, size: 65536, max: 100 });
a.log.insertMany([{ _id: 1, m: "a" }, { _id: 2, m: "b" }]);
a.createCollection("metrics", { timeseries: { timeField: "t", metaField: "host", granularity: "seconds" }, expireAfterSeconds: 315360000 });
a.metrics.insertMany([{ _id: 1, t: ISODate("2026-01-01T00:00:00Z"), host: "h1", v: 1 },
  { _id: 2, t: ISODate("2026-01-01T00:00:05Z"), host: "h1", v: 2, w: "x" },
  { _id: 3, t: ISODate("2026-01-01T00:00:01Z"), host: "h2", v: 3 }]);
a.createView("kinds", "events", [{ $group: { _id: "$kind", c: { $sum: 1 } } }, { $sort: { _id: 1 } }]);
a.createCollection("valid", { validator: { $jsonSchema: { required: ["x"] } }, validationLevel: "moderate" });
a.valid.insertOne({ _id: 1, x: 1 });
a.createCollection("clustered", { clusteredIndex: { key: { _id: 1 }, unique: true }, expireAfterSeconds: 315360000 });
a.clustered.insertOne({ _id: ISODate("2026-01-01T00:00:00Z"), v: 1 });
a.articles.insertMany([{ _id: 1, title: "Coffee", body: "the best coffee beans" },
  { _id: 2, title: "Tea", body: "green tea and coffee", language: "spanish" }]);
a.articles.createIndex({ title: "text", body: "text" }, { weights: { title: 5 }, name: "search" });
a.places.insertMany([{ _id: 1, loc: { type: "Point", coordinates: [2.29, 48.86] } }, { _id: 2, loc: { type: "Point", coordinates: [4.83, 45.76] } },
  { _id: 3, p: [3, 4] }]);
a.places.createIndex({ loc: "2dsphere" });
a.places.createIndex({ p: "2d" }, { bits: 20 });
a.products.insertMany([{ _id: 1, tenant: "t1", attrs: { color: "red", size: 3 } }, { _id: 2, tenant: "t2", attrs: { color: "blue" } }, { _id: 3, tenant: "t1" }]);
a.products.createIndex({ tenant: 1, "attrs.$**": 1 });
a.products.createIndex({ "$**": 1, tenant: -1 }, { wildcardProjection: { tenant: 0, _id: 0 }, name: "all_but_tenant" });
// Users and user-defined roles travel too (mongorestore's
// _mergeAuthzCollections).
a.createUser({ user: "alice", pwd: "alicepw", roles: ["readWrite"] });
a.createRole({ role: "eventReader", privileges: [{ resource: { db: "app", collection: "events" }, actions: ["find"] }], roles: [] });
a.createUser({ user: "rita", pwd: "ritapw", roles: ["eventReader"] });
db.getSiblingDB("admin").createUser({ user: "ops", pwd: "opspw", roles: ["readAnyDatabase"] });
