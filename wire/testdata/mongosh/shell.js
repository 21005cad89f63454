// The shell differential: run.sh runs this script twice, with the real
// mongosh against `ttlkv serve` and with `ttlkv eval -f` on a data
// directory of its own, and fails on any difference between the two
// outputs. The engine under both is the same, so a difference is the
// shell's: how it prints, what it returns, how it fails.
const d = db.getSiblingDB("shellcheck");
d.dropDatabase();
printjson(d.c.insertOne({ _id: 1, a: 1 }));
printjson(d.c.insertMany([{ _id: 2, a: 2 }, { _id: 3, a: [1, 2] }]));
printjson(d.c.find());
print(d.c.find({ a: 2 }).toArray());
printjson(d.c.findOne({ _id: 3 }));
print(d.c.countDocuments(), d.c.estimatedDocumentCount());
printjson(d.c.updateOne({ _id: 1 }, { $set: { b: "x" } }));
printjson(d.c.updateMany({}, { $inc: { n: 1 } }));
printjson(d.c.replaceOne({ _id: 2 }, { z: 1 }));
printjson(d.c.updateOne({ _id: 4 }, { $set: { a: 4 } }, { upsert: true }));
printjson(d.c.deleteOne({ _id: 3 }));
printjson(d.c.deleteMany({ n: 5 }));
try { d.c.insertOne({ _id: 1 }) } catch (e) { print(e.name, e.code, e.codeName, e.message, e.index, e.keyValue) }
try { d.c.insertMany([{ _id: 9 }, { _id: 1 }, { _id: 10 }], { ordered: false }) } catch (e) { print(e.name, e.code, e.codeName, e.message); print(e.result); print(e.insertedCount, e.writeErrors.length) }
try { d.c.insertMany([{ _id: 19 }, { _id: 1 }, { _id: 20 }]) } catch (e) { print(e.result.insertedIds, e.insertedCount) }
try { d.c.updateOne({ _id: 1 }, { $inc: { a: "x" } }) } catch (e) { print(e.name, e.code, e.codeName, e.message) }
print(d.c.createIndex({ a: 1 }), d.c.createIndex({ b: 1 }, { expireAfterSeconds: 60 }));
print(d.c.getIndexes().map((i) => [i.name, i.expireAfterSeconds]));
print(d.c.find().sort({ _id: -1 }).limit(2).toArray());
print(d.c.aggregate([{ $group: { _id: null, n: { $sum: 1 } } }]).toArray());
print(d.c.distinct("a"));
printjson(d.c.find({}, { _id: 0 }).sort({ _id: 1 }).toArray());
printjson(d.c.findOneAndUpdate({ _id: 1 }, { $set: { v: 1 } }, { returnDocument: "after" }));
printjson(d.c.findOneAndDelete({ _id: 10 }));
printjson(d.c.bulkWrite([{ insertOne: { document: { _id: "y" } } }, { deleteOne: { filter: { _id: 9 } } }]));
try { d.c.bulkWrite([{ insertOne: { document: { _id: 7 } } }, { insertOne: { document: { _id: 1 } } }], { ordered: false }) } catch (e) { print(e.name, e.codeName, e.result) }
printjson(d.createCollection("cap", { capped: true, size: 4096 }));
print(d.cap.isCapped(), d.c.isCapped());
print(d.getCollectionNames().sort());
print(d.runCommand({ ping: 1 }), d.adminCommand({ ping: 1 }).ok);
print(d.c.find().itcount());
print(d.c.drop(), d.c.drop(), d.getCollectionNames().sort());
// Statistics: mongosh computes them from the $collStats stage.
d.s.insertMany([{ _id: 1, s: "abc" }, { _id: 2 }]);
d.s.createIndex({ s: 1 });
printjson(d.s.stats());
print(d.s.totalIndexSize(), d.s.dataSize(), d.s.storageSize(), d.s.totalSize(), d.s.latencyStats().length);
printjson(d.s.stats({ scale: 1024 }));
printjson(d.cap.stats());
print(d.s.aggregate([{ $collStats: { count: {} } }, { $project: { _id: 0, count: 1 } }]).toArray());
try { d.s.aggregate([{ $match: {} }, { $collStats: {} }]).toArray() } catch (e) { print(e.name, e.code, e.message) }
// Time-series, indexes, collation, validation, explain.
const d2 = db.getSiblingDB("shellcheck2");
d2.dropDatabase();
printjson(d2.createCollection("w", { timeseries: { timeField: "t", metaField: "m", granularity: "hours" }, expireAfterSeconds: 3600 }));
// Explicit _ids: the bucket's size (in stats below) depends on how its
// measurements' _ids compress, and two generated ObjectIds a second apart
// compress a byte longer than two in the same second.
print(Object.keys(d2.w.insertMany([{ _id: 1, t: ISODate("2024-01-01T00:00:00Z"), m: 1, v: 1 }, { _id: 2, t: ISODate("2024-01-01T01:00:00Z"), m: 1, v: 2 }]).insertedIds));
print(d2.w.find({}, { _id: 0 }).sort({ t: 1 }).toArray());
printjson(d2.w.stats());
printjson(d2.runCommand({ collMod: "w", expireAfterSeconds: 7200 }));
printjson(d2.getCollectionInfos({ name: "w" }));
printjson(d2.stats());
d2.c.insertMany([{ _id: 1, a: "B" }, { _id: 2, a: "a" }]);
printjson(d2.c.createIndexes([{ a: 1 }, { b: -1 }], { sparse: true }));
printjson(d2.c.getIndexes());
printjson(d2.c.hideIndex("a_1"));
printjson(d2.c.unhideIndex({ a: 1 }));
printjson(d2.c.dropIndexes(["b_-1"]));
printjson(d2.c.dropIndex("a_1"));
print(d2.c.find().sort({ a: 1 }).collation({ locale: "en", strength: 2 }).toArray());
// A collection's uuid is its own on each server: its type is printed.
const v2 = d2.c.validate(); v2.uuid = v2.uuid instanceof UUID().constructor ? "a UUID" : v2.uuid; printjson(v2);
printjson(d2.runCommand({ collMod: "c", validator: { a: { $type: "string" } } }));
try { d2.c.insertOne({ _id: 3, a: 5 }) } catch (e) { print(e.name, e.code, e.codeName); printjson(e.errInfo) }
try { d2.c.insertMany([{ _id: 4, a: "x" }, { _id: 5, a: 5 }], { ordered: false }) } catch (e) { print(e.name, e.code, e.writeErrors.length, e.writeErrors[0].index, e.writeErrors[0].errInfo.failingDocumentId) }
try { d2.c.updateOne({ _id: 4 }, { $set: { a: 4 } }) } catch (e) { print(e.name, e.code, e.codeName); printjson(e.errInfo.details) }
printjson(d2.c.insertOne({ _id: 6, a: 6 }, { bypassDocumentValidation: true }));
printjson(d2.c.find({ _id: { $gte: 3 } }).toArray());
printjson(d2.c.find({ _id: 1 }).explain().queryPlanner.winningPlan);
printjson(d2.c.countDocuments({ a: { $exists: true } }));
printjson(d2.c.renameCollection("c2"));
printjson(d2.getCollectionNames().sort());
// Refusals: the shell's, the driver's and the server's, each as mongosh shows it.
const d3 = db.getSiblingDB("shellcheck3");
d3.dropDatabase();
d3.c.insertOne({ _id: 1, a: 1 });
[
  () => d3.c.updateOne({ _id: 1 }, { $nosuch: { a: 1 } }),
  () => d3.c.updateOne({ _id: 1 }, { a: 1 }),
  () => d3.c.updateOne({}),
  () => d3.c.find({ $nosuch: 1 }).toArray(),
  () => d3.runCommand({ nosuchcommand: 1 }),
  () => d3.c.createIndex({ a: "bogus" }),
  () => d3.c.find().sort({ a: 2 }).toArray(),
  () => d3.c.find().sort({ a: "desc", _id: "ASC" }).toArray(),
  () => d3.c.aggregate([{ $nosuch: {} }]).toArray(),
  () => d3.c.replaceOne({ _id: 1 }, { $set: { a: 1 } }),
  () => d3.c.insertOne(),
  () => d3.c.deleteOne(),
  () => d3.c.deleteMany(),
  () => d3.c.findOneAndDelete(),
  () => d3.c.createIndex(),
  () => d3.c.update({}),
  () => d3.c.remove({ _id: 9 }),
  () => d3.createCollection("c"),
  () => d3.c.dropIndex("nosuch_1"),
  () => d3.c.insertOne({ _id: 1 }),
].forEach((f, i) => {
  try { print(i, "ok", f()) } catch (e) { print(i, e.name, e.code, e.codeName, e.message) }
});
// currentOp: mongosh 2 lists operations through the $currentOp stage.
print(db.currentOp({ desc: "TTLMonitor" }).inprog.length, db.currentOp().ok, db.currentOp(true).ok);
// The profiler: ttlkv keeps none; level 0, slowms and sampleRate are what there is.
printjson(db.getProfilingStatus());
printjson(db.setProfilingLevel(0, { slowms: 50 }));
print(db.getProfilingStatus().slowms);
try { db.setProfilingLevel(1) } catch (e) { print(e.name, e.code, e.codeName, e.message) }
try { db.setProfilingLevel(5) } catch (e) { print(e.name, e.message) }
printjson(db.setProfilingLevel(0, { slowms: 100 }));
// Server administration helpers: ttlkv is a standalone server, so the rs
// helpers answer as against a standalone mongod (76 NoReplicationEnabled).
const lc = db.listCommands();
print(Object.keys(lc), lc.type, lc.constructor.name);
printjson(lc.value.ping);
print(lc.value.hostInfo, lc.value.replSetGetStatus.adminOnly);
print(db.commandHelp("ping"), db.serverBits(), typeof db.hostInfo().system.numCores);
print(db.getLogComponents().storage);
print(db.setLogLevel(2, "storage.journal").was.storage, db.getLogComponents().storage.journal);
printjson(db.setLogLevel(-1, "storage.journal").ok);
[
  () => rs.status(),
  () => rs.conf(),
  () => rs.initiate(),
  () => rs.add("h:1"),
  () => rs.add(5),
  () => rs.freeze(),
  () => rs.stepDown("x"),
  () => rs.syncFrom("h:1"),
  () => rs.printReplicationInfo(),
  () => rs.printSecondaryReplicationInfo(),
  () => db.getReplicationInfo(),
  () => db.setLogLevel("x"),
  () => db.setLogLevel(1, 5),
  () => db.setLogLevel(1, "nosuch"),
  () => db.commandHelp(1),
  () => db.commandHelp("nosuch"),
  () => sh.status(),
  () => sh.status(),
].forEach((f, i) => {
  try { print(i, "ok", f()) } catch (e) { print(i, e.name, e.code, e.codeName, e.message) }
});
print(rs.isMaster().ismaster, rs.hello().isWritablePrimary);
// Errors carry the Node driver's own keys (errorLabelSet, errorResponse,
// the reply's or the write error's fields); a bulk error's writeErrors
// are WriteErrors with the failed operation; an array given to
// insertOne is stored as a document of its elements.
try { d3.c.insertOne({ _id: 1 }) } catch (e) { print(Object.keys(e), JSON.stringify(e)) }
try { d3.runCommand({ nosuchcommand: 1 }) } catch (e) { print(Object.keys(e), JSON.stringify(e), e.errmsg) }
try { d3.c.insertMany([{ _id: 1 }, { _id: 2 }]) } catch (e) { print(Object.keys(e)); print(e.errorResponse); print(JSON.stringify(e.writeErrors), e.writeErrors[0].getOperation()) }
try { d3.c.bulkWrite([{ updateOne: { filter: { _id: 1 }, update: { $bad: 1 } } }]) } catch (e) { print(e.writeErrors) }
print(d3.c.insertOne([{ a: 1 }, 2]).acknowledged, d3.c.find({ 0: { a: 1 } }, { _id: 0 }).toArray());
// Helpers whose commands or stages ttlkv does not have: mongosh sends
// them and prints the server's refusal; deprecations warn once (and
// mapReduce, which ttlkv has, prints its results after the warning).
// (The role helpers' commands, which ttlkv serve answers and an embedded
// store does not, are compared in eval-cases.txt.)
const d4 = db.getSiblingDB("shellcheck4");
d4.dropDatabase();
d4.c.insertMany([{ _id: 1, a: 1 }, { _id: 2, a: 2 }]);
[
  () => d4.getRole(1),
  () => d4.fsyncLock(),
  () => d4.fsyncUnlock(),
  () => d4.rotateCertificates(),
  () => d4.c.reIndex(),
  () => d4.c.mapReduce(function () { emit(this.a, 1) }, function (k, v) { return 1 }, { out: { inline: 1 } }),
  () => d4.c.getShardDistribution(),
  () => d4.c.getSearchIndexes(),
  () => d4.c.getPlanCache().list(),
  () => d4.aggregate([{ $documents: [{ x: 1 }] }]).toArray(),
  () => d4.printCollectionStats(0),
  () => d4.c.count(),
  () => d4.c.count({ a: 2 }),
  () => d4.getLastError(),
  () => JSON.stringify(d4.getLastErrorObj(1)),
  () => d4.c.explain().aggregate([{ $match: { a: 1 } }]).ok,
  () => db.getSiblingDB("admin").aggregate([{ $currentOp: {} }, { $match: { desc: "none" } }]).toArray(),
].forEach((f, i) => {
  try { print(i, "ok", f()) } catch (e) { print(i, e.name, e.code, e.codeName, e.message) }
});
d4.printCollectionStats();
print(JSON.stringify(d4.printCollectionStats(1024)).length > 0);

// Sessions: a session's database is the shell's; ttlkv has no
// transactions, so a command in one is refused as a standalone server
// refuses it, and the transaction methods keep the driver's states.
const sess = db.getMongo().startSession({ causalConsistency: false, readConcern: { level: "local" } });
const sdb5 = sess.getDatabase("shellcheck5");
sdb5.dropDatabase();
sdb5.c.insertOne({ _id: 1 });
print(db.getSiblingDB("shellcheck5").c.countDocuments({}), sdb5.getName(), sdb5.c.getFullName(), sess.hasEnded(), sess.getOptions());
print(Object.keys(sess.id), typeof sess.id.id, typeof sess.getClusterTime(), typeof sess.getOperationTime());
[
  () => { sess.startTransaction(); sdb5.c.insertOne({ _id: 2 }) },
  () => sess.abortTransaction(),
  () => sess.commitTransaction(),
  () => sess.abortTransaction(),
  () => { sess.startTransaction(); return sess.commitTransaction() },
  () => sess.abortTransaction(),
  () => { sess.startTransaction(); return sdb5.c.find().toArray() },
  () => sess.startTransaction(),
  () => sess.abortTransaction(),
  () => { sess.startTransaction(); sdb5.c.updateOne({ _id: 1 }, { $set: { a: 1 } }) },
  () => sess.commitTransaction(),
  () => sess.abortTransaction(),
  () => sess.withTransaction(() => sdb5.c.deleteOne({ _id: 1 })),
  () => sess.abortTransaction(),
  () => sdb5.c.find().toArray(),
  () => sess.getDatabase("a.b"),
].forEach((f, i) => {
  try { print(i, "ok", f()) } catch (e) { print(i, e.name, e.code, e.codeName, e.message) }
});
const cur5 = sdb5.c.find();
sess.endSession();
print(sess.hasEnded());
try { cur5.toArray() } catch (e) { print(e.name, e.message) }
try { sdb5.c.countDocuments({}) } catch (e) { print(e.name, e.message) }
try { sess.startTransaction(); print("started"); sess.abortTransaction(); print("aborted") } catch (e) { print(e.name, e.message) }
print(db.getSiblingDB("shellcheck5").c.countDocuments({}));
// Pipelines that write ($merge, $out), bin ($bucket, $bucketAuto) and walk
// ($graphLookup), and the string and date operators added with them.
const d5 = db.getSiblingDB("shellcheck6");
d5.ev.insertMany([{ _id: 1, k: "a", n: 1, at: ISODate("2026-01-05T10:00:00Z") }, { _id: 2, k: "b", n: 2, at: ISODate("2026-01-12T10:00:00Z"), up: "a" }, { _id: 3, k: "a", n: 3, at: ISODate("2026-01-13T10:00:00Z") }]);
const rollup = [{ $group: { _id: "$k", n: { $sum: "$n" } } }, { $merge: { into: "sum", whenMatched: [{ $set: { n: { $add: ["$n", "$$new.n"] } } }] } }];
print(d5.ev.aggregate(rollup).toArray(), d5.ev.aggregate(rollup).toArray());
print(d5.sum.find().sort({ _id: 1 }).toArray());
print(d5.ev.aggregate([{ $project: { w: { $isoWeek: "$at" }, y: { $isoWeekYear: "$at" } } }, { $out: "weeks" }]).toArray());
print(d5.weeks.find().sort({ _id: 1 }).toArray());
print(d5.ev.aggregate([{ $bucket: { groupBy: "$n", boundaries: [0, 2, 10] } }]).toArray());
print(d5.ev.aggregate([{ $bucketAuto: { groupBy: "$n", buckets: 2, granularity: "R5" } }]).toArray());
print(d5.ev.aggregate([{ $match: { _id: 2 } }, { $graphLookup: { from: "ev", startWith: "$up", connectFromField: "up", connectToField: "k", as: "g", depthField: "d" } }, { $project: { ids: "$g._id", ds: "$g.d" } }]).toArray());
print(d5.ev.aggregate([{ $sort: { _id: 1 } }, { $project: { m: { $regexMatch: { input: "$k", regex: /A/i } }, f: { $regexFind: { input: "xaxa", regex: "a" } }, s: { $substrCP: ["$k", 0, 1] }, r: { $replaceAll: { input: "a-a", find: "a", replacement: "$k" } }, p: { $dateToParts: { date: "$at", iso8601: true } }, fs: { $dateFromString: { dateString: "2026-02-03T04:05:06Z" } } } }]).toArray());
try { d5.ev.aggregate([{ $merge: { into: "sum", whenMatched: "keepExisting", whenNotMatched: "fail" } }]).toArray() } catch (e) { print(e.name, e.code, e.codeName) }
try { d5.ev.aggregate([{ $out: "weeks" }, { $match: {} }]).toArray() } catch (e) { print(e.name, e.code, e.codeName) }
print(d5.ev.find({}, { _id: 0, kk: { $concat: ["$k", "$k"] }, n2: { $multiply: ["$n", 2] }, lit: "x" }).sort({ n: 1 }).toArray());
print(d5.aggregate([{ $documents: [{ a: 1 }] }, { $project: { b: { $add: ["$a", "$$x"] } } }], { let: { x: 41 } }).toArray());
printjson(d5.createView("pv", "ev", [{ $project: { k: 1, n: 1 } }]));
print(d5.pv.find({ n: { $gte: 2 } }).sort({ _id: 1 }).toArray(), d5.pv.countDocuments({}));
print(d5.getCollectionInfos({ type: "view" }));
try { d5.pv.insertOne({ x: 1 }) } catch (e) { print(e.name, e.code, e.codeName) }
// Mongo.bulkWrite (MongoDB 8.0's bulkWrite command): counts, verbose
// results, the errors the driver throws, and what it refuses itself.
const mg = db.getMongo();
const cbe = (e) => { print(e.name, "|", e.message, "|", Object.keys(e).join()); if (e.writeErrors) printjson(e.writeErrors); if (e.partialResult) printjson(e.partialResult); if (e.cause) print(e.cause.code, e.cause.message) };
printjson(mg.bulkWrite([{ name: "insertOne", namespace: "shellcheck7.c", document: { _id: 1, a: 1 } }, { name: "updateOne", namespace: "shellcheck7.c", filter: { _id: 1 }, update: { $set: { a: 2 } } }, { name: "insertOne", namespace: "shellcheck8.d", document: { _id: 1 } }, { name: "deleteMany", namespace: "shellcheck8.d", filter: {} }]));
printjson(mg.bulkWrite([{ name: "insertOne", namespace: "shellcheck7.c", document: { _id: 2 } }, { name: "updateOne", namespace: "shellcheck7.c", filter: { _id: 9 }, update: { $set: { a: 1 } }, upsert: true }, { name: "deleteOne", namespace: "shellcheck7.c", filter: { _id: 2 } }, { name: "replaceOne", namespace: "shellcheck7.c", filter: { _id: 1 }, replacement: { z: 1 } }, { name: "updateMany", namespace: "shellcheck7.c", filter: {}, update: [{ $set: { p: 1 } }] }], { verboseResults: true }));
try { mg.bulkWrite([{ name: "insertOne", namespace: "shellcheck7.c", document: { _id: 1 } }, { name: "insertOne", namespace: "shellcheck7.c", document: { _id: 7 } }]) } catch (e) { cbe(e) }
try { mg.bulkWrite([{ name: "insertOne", namespace: "shellcheck7.c", document: { _id: 1 } }, { name: "insertOne", namespace: "shellcheck7.c", document: { _id: 8 } }], { ordered: false, verboseResults: true }) } catch (e) { cbe(e) }
try { mg.bulkWrite([{ name: "insertOne", namespace: "nodot", document: {} }]) } catch (e) { cbe(e) }
try { mg.bulkWrite([]) } catch (e) { cbe(e) }
try { mg.bulkWrite([{ name: "updateOne", namespace: "shellcheck7.c", filter: {}, update: { z: 1 } }]) } catch (e) { cbe(e) }
try { mg.bulkWrite([{ name: "insertOne", namespace: "shellcheck7.c", document: {} }], { writeConcern: { w: 0 } }) } catch (e) { cbe(e) }
print(db.getSiblingDB("shellcheck7").c.find().sort({ _id: 1 }).toArray());
// Hashed indexes: mongosh's convertShardKeyToHashed asks the server
// ($documents and $toHashedIndexKey), and explain shows hashed bounds.
const d8 = db.getSiblingDB("shellcheck8");
d8.dropDatabase();
print(convertShardKeyToHashed("hashThisStringLiteral"), convertShardKeyToHashed({ a: 1 }), convertShardKeyToHashed(2.7));
print(d8.h.createIndex({ k: "hashed" }), d8.h.insertMany([{ _id: 1, k: 2 }, { _id: 2, k: 2.5 }, { _id: 3, k: "x" }]).insertedIds);
print(d8.h.find({ k: 2 }).toArray(), d8.h.find({ k: { $in: [2.5, "x"] } }).sort({ _id: 1 }).toArray());
print(d8.h.find({ k: "x" }).explain().queryPlanner.winningPlan.inputStage.indexBounds);
try { d8.h.insertOne({ _id: 4, k: [1] }) } catch (e) { print(e.name, e.code, e.codeName, e.message) }
try { d8.h.createIndex({ a: "hashed" }, { unique: true }) } catch (e) { print(e.name, e.code, e.codeName, e.message) }
// Wildcard indexes: keys by path, and explain's $_path bounds.
print(d8.w.createIndex({ "$**": 1 }), d8.w.createIndex({ "$**": 1 }, { name: "proj", wildcardProjection: { "a.b": 1 } }));
print(d8.w.insertMany([{ _id: 1, a: { b: 1, c: "x" } }, { _id: 2, a: [{ b: 2 }, { b: 1 }] }, { _id: 3, z: 1 }]).insertedIds);
print(d8.w.find({ "a.b": 1 }).sort({ _id: 1 }).toArray(), d8.w.find({ "a.c": "x" }).toArray());
const wp = d8.w.find({ "a.c": "x" }).explain().queryPlanner.winningPlan.inputStage;
print(wp.indexName, wp.keyPattern, wp.indexBounds);
print(d8.w.getIndexes().map((i) => [i.name, i.wildcardProjection]));
try { d8.w.createIndex({ "$**": 1 }, { unique: true, name: "u" }) } catch (e) { print(e.name, e.code, e.codeName, e.message) }
// A view's collation: its reads run under it; another is refused.
d8.vs.insertMany([{ _id: 1, s: "a" }, { _id: 2, s: "A" }]);
print(d8.createView("vci", "vs", [], { collation: { locale: "en", strength: 2 } }), d8.vci.find({ s: "a" }).sort({ _id: 1 }).toArray());
try { d8.vci.find().collation({ locale: "fr" }).toArray() } catch (e) { print(e.name, e.code, e.codeName, e.message) }
print(d8.getCollectionInfos({ name: "vci" })[0].options.collation.strength);
// findAndModify, exists, getIndices and getMongo on a collection.
const d9 = db.getSiblingDB("shellcheck9");
d9.dropDatabase();
d9.f.insertMany([{ _id: 1, a: 1 }, { _id: 2, a: 2 }]);
printjson(d9.f.findAndModify({ query: { _id: 1 }, update: { $inc: { a: 10 } }, new: true }));
printjson(d9.f.findAndModify({ query: { _id: 2 }, update: { b: 1 }, fields: { _id: 0 } }));
printjson(d9.f.findAndModify({ query: { _id: 3 }, update: { $set: { c: 1 } }, upsert: true, new: true }));
printjson(d9.f.findAndModify({ query: { a: { $gt: 0 } }, sort: { a: -1 }, remove: true }));
printjson(d9.f.findAndModify({ query: { _id: 99 }, remove: true }));
for (const bad of [undefined, {}, { query: {} }, { query: {}, fields: {}, projection: {}, remove: true }]) {
  try { d9.f.findAndModify(bad) } catch (e) { print(e.name, e.message) }
}
print(d9.f.find().sort({ _id: 1 }).toArray(), d9.f.exists().name, d9.f.exists().type, d9.nosuch.exists());
print(d9.f.getIndices().map((i) => i.name), d9.f.getMongo() === db.getMongo());
// The Mongo object's helpers, and explain() of distinct and the findAndModify family.
const mo = db.getMongo();
print(mo.getCollection("shellcheck9.f").getFullName(), mo.convertShardKeyToHashed("x"));
for (const f of [() => mo.getCollection("nodot"), () => mo.getCollection(), () => mo.isCausalConsistency(), () => mo.setCausalConsistency(true), () => mo.setReadPref("bogus"), () => mo.setWriteConcern(true), () => mo.setWriteConcern({ w: 1 }, 5)]) {
  try { print(f()) } catch (e) { print(e.name, e.message) }
}
print(mo.getReadPrefMode(), mo.getReadPrefTagSet(), mo.getReadConcern(), mo.getWriteConcern());
mo.setReadConcern("majority"); mo.setReadPref("primaryPreferred");
print(mo.getReadConcern(), mo.getReadPrefMode(), mo.getDBs().ok, typeof mo.getDBs().databases);
const cx = db.getSiblingDB("shellcheck9").f.explain("queryPlanner");
print(cx.getVerbosity(), cx.getCollection().getFullName());
cx.setVerbosity("executionStats");
print(cx.getVerbosity(), Object.keys(cx.distinct("a", { a: 1 })).includes("queryPlanner"));
print(cx.findOneAndUpdate({ _id: 2 }, { $set: { z: 1 } }).queryPlanner.winningPlan.stage, cx.findAndModify({ query: { _id: 2 }, remove: true }).ok);
print(db.getSiblingDB("shellcheck9").f.find({ _id: 2 }).toArray());
// Cursor options of mongosh's that a standalone takes as they are, and its refusals.
const dc = db.getSiblingDB("shellcheck10");
dc.dropDatabase();
dc.c.insertMany([{ _id: 1 }, { _id: 2 }]);
print(dc.c.find().allowPartialResults().oplogReplay().readConcern("local").maxAwaitTimeMS(10).sort({ _id: 1 }).toArray());
for (const f of [() => dc.c.find().maxScan(5), () => dc.c.find().toJSON(), () => JSON.stringify(dc.c.find())]) {
  try { print(f()) } catch (e) { print(e.name, e.message) }
}
// The shell says it runs a script, and cls() then prints nothing.
print(isInteractive()); cls(); print("after cls");
// Text search: the index as listed, $text with scores, the errors.
const tx = d.getCollection("articles");
tx.insertMany([{ _id: 1, title: "Coffee", body: "the best coffee beans" }, { _id: 2, title: "Tea", body: "green tea and coffee" }, { _id: 3, title: "Run", body: "runners running" }]);
print(tx.createIndex({ title: "text", body: "text" }, { weights: { title: 5 } }));
printjson(tx.getIndexes()[1]);
printjson(tx.find({ $text: { $search: "coffee -green" } }, { score: { $meta: "textScore" } }).toArray());
printjson(tx.find({ $text: { $search: "coffee" } }, { _id: 1, score: { $meta: "textScore" } }).sort({ score: { $meta: "textScore" } }).toArray());
print(tx.countDocuments({ $text: { $search: "run" } }));
printjson(tx.aggregate([{ $match: { $text: { $search: "coffee tea" } } }, { $project: { s: { $meta: "textScore" } } }, { $sort: { s: -1 } }]).toArray());
try { tx.find({ $text: { $search: "x" } }, { s: { $meta: "textScore" } }).hint({ _id: 1 }).toArray() } catch (e) { print(e.code, e.codeName) }
try { d.c.find({ $text: { $search: "x" } }).toArray() } catch (e) { print(e.code, e.codeName, e.message) }
try { tx.find({}).sort({ s: { $meta: "textScore" } }).toArray() } catch (e) { print(e.code, e.codeName) }
// arrayFilters: the filtered positional operator.
const af = d.getCollection("grades");
af.insertOne({ _id: 1, grades: [{ g: 80, m: 75 }, { g: 85, m: 90 }, { g: 85, m: 85 }] });
printjson(af.updateOne({ _id: 1 }, { $set: { "grades.$[e].m": 100 } }, { arrayFilters: [{ "e.g": { $gte: 85 } }] }));
printjson(af.findOne());
printjson(af.findOneAndUpdate({ _id: 1 }, { $inc: { "grades.$[e].g": 1 } }, { arrayFilters: [{ "e.m": 75 }], returnDocument: "after" }));
try { af.updateOne({ _id: 1 }, { $set: { "grades.$[x]": 0 } }) } catch (e) { print(e.code, e.codeName, e.message) }
// The positional $ of an update.
printjson(af.updateOne({ _id: 1, "grades.m": 75 }, { $set: { "grades.$.m": 76 } }));
printjson(af.findOne().grades[0]);
try { af.updateOne({ _id: 1 }, { $set: { "grades.$.m": 0 } }) } catch (e) { print(e.code, e.codeName, e.message) }
printjson(af.find({ "grades.g": 85 }, { "grades.$": 1 }).toArray());
try { af.find({}, { "grades.$": 1 }).toArray() } catch (e) { print(e.code, e.codeName) }
// Bitwise query operators.
const bits = d.getCollection("bits");
bits.insertMany([{ _id: 1, a: 54 }, { _id: 2, a: NumberLong(-1) }, { _id: 3, a: BinData(0, "Ng==") }, { _id: 4, a: 5.5 }]);
print(bits.find({ a: { $bitsAllSet: [1, 5] } }).toArray().map((x) => x._id));
print(bits.find({ a: { $bitsAnyClear: 50 } }).toArray().map((x) => x._id));
try { bits.find({ a: { $bitsAllSet: -1 } }).toArray() } catch (e) { print(e.code, e.codeName) }
// Cursor min() and max(), and a find command's returnKey (mongosh
// 2.12.0's cursor.returnKey() does not send it).
const mm = d.getCollection("mm");
mm.insertMany([{ _id: 1, a: 5 }, { _id: 2, a: 7 }, { _id: 3, a: 9 }]);
mm.createIndex({ a: 1 });
printjson(mm.find().min({ a: 6 }).max({ a: 9 }).hint({ a: 1 }).toArray());
printjson(d.runCommand({ find: "mm", filter: { a: { $gt: 6 } }, hint: { a: 1 }, returnKey: true }).cursor.firstBatch);
try { mm.find().min({ a: 6 }).toArray() } catch (e) { print(e.code, e.codeName) }
// Geospatial: a 2dsphere index, $near with distances, $geoWithin,
// $geoIntersects, $geoNear, and mongod's errors.
const places = d.getCollection("places");
print(places.createIndex({ loc: "2dsphere" }));
places.insertMany([
  { _id: 1, loc: { type: "Point", coordinates: [-73.97, 40.77] } },
  { _id: 2, loc: { type: "Point", coordinates: [-73.88, 40.78] } },
  { _id: 3, loc: [-73.99, 40.75] },
  { _id: 4, loc: { type: "LineString", coordinates: [[-74, 40.7], [-73.9, 40.8]] } },
]);
printjson(places.find({ loc: { $near: { $geometry: { type: "Point", coordinates: [-73.97, 40.77] }, $maxDistance: 8000 } } }).toArray().map((x) => x._id));
printjson(places.find({ loc: { $geoWithin: { $centerSphere: [[-73.97, 40.77], 5 / 3963.2] } } }).sort({ _id: 1 }).toArray().map((x) => x._id));
printjson(places.find({ loc: { $geoIntersects: { $geometry: { type: "Polygon", coordinates: [[[-74.1, 40.6], [-73.95, 40.6], [-73.95, 40.76], [-74.1, 40.76], [-74.1, 40.6]]] } } } }).sort({ _id: 1 }).toArray().map((x) => x._id));
printjson(places.aggregate([{ $geoNear: { near: [-73.97, 40.77], spherical: true, distanceField: "d", query: { _id: { $lt: 4 } } } }, { $project: { d: { $round: ["$d", 6] } } }]).toArray());
print(places.countDocuments({ loc: { $geoWithin: { $box: [[-74, 40.7], [-73.9, 40.8]] } } }));
try { places.insertOne({ _id: 5, loc: { type: "Point", coordinates: [40.77, -173.97] } }) } catch (e) { print(e.code, e.codeName) }
try { places.countDocuments({ loc: { $near: [0, 0] } }) } catch (e) { print(e.code, e.codeName) }
try { d.c.find({ loc: { $nearSphere: [0, 0] } }).toArray() } catch (e) { print(e.code, e.codeName) }
// Compound wildcard indexes.
const cw = d.getCollection("cw");
cw.insertMany([{ _id: 1, tenant: "a", attrs: { color: "red" } }, { _id: 2, tenant: "a" }, { _id: 3, tenant: "b", attrs: { color: "red", size: 2 } }]);
print(cw.createIndex({ tenant: 1, "attrs.$**": 1 }));
printjson(cw.find({ tenant: "a" }).sort({ _id: 1 }).toArray().map((x) => x._id));
printjson(cw.find({ "attrs.color": "red" }).sort({ _id: 1 }).toArray().map((x) => x._id));
printjson(cw.find({ tenant: "a", "attrs.color": "red" }).explain().queryPlanner.winningPlan.inputStage.keyPattern);
try { cw.createIndex({ "$**": 1, tenant: 1 }) } catch (e) { print(e.code, e.codeName) }
try { cw.createIndex({ "a.$**": 1, "b.$**": 1 }) } catch (e) { print(e.code, e.codeName) }
// Server-side JavaScript: $where, $function, $accumulator.
const sj = d.getCollection("sj");
sj.insertMany([{ _id: 1, a: 1, w: "x" }, { _id: 2, a: 2, w: "y" }, { _id: 3, a: 3, w: "x" }]);
printjson(sj.find({ $where: "this.a > 1" }).sort({ _id: 1 }).toArray().map((x) => x._id));
printjson(sj.find({ $where: "function() { return obj.w == 'x' }" }).sort({ _id: 1 }).toArray().map((x) => x._id));
printjson(sj.aggregate([{ $sort: { _id: 1 } }, { $project: { _id: 0, n: { $function: { body: "function(a) { return a * 10 }", args: ["$a"], lang: "js" } } } }]).toArray());
printjson(sj.aggregate([{ $group: { _id: "$w", c: { $accumulator: { init: "function() { return 0 }", accumulateArgs: ["$a"], accumulate: "function(s, a) { return s + a }", merge: "function(x, y) { return x + y }", lang: "js" } } } }, { $sort: { _id: 1 } }]).toArray());
try { sj.find({ $where: "throw new Error('boom')" }).toArray() } catch (e) { print(e.code, e.codeName) }
try { sj.aggregate([{ $match: { $where: "true" } }]).toArray() } catch (e) { print(e.code, e.codeName) }
try { sj.find({ $where: "while (true) {}" }).maxTimeMS(50).toArray() } catch (e) { print(e.code, e.codeName) }
// Connections a script opens: Mongo(m) opens m's connection again (on a
// data directory, ttlkv's shell shares its engine), close() ends it; a
// connection string mongosh cannot use, a server that is not there, and
// db given something else than a database are refused.
const m2 = Mongo(db.getMongo());
const cdb = m2.getDB("shellcheck");
print(cdb.getName(), cdb.c.countDocuments() === d.c.countDocuments(), cdb.getMongo() === m2, db.getMongo() === m2);
db = cdb;
print(db.getName(), db.getMongo() === m2);
m2.close();
// (A read through m2 now is MongoNotConnectedError in ttlkv's shell, and
// most of the time in mongosh, whose driver sometimes still answers it:
// connect_test.go checks ttlkv's side.)
db = d;
print(db.getName(), db.c.countDocuments() > 0);
try { connect("a b") } catch (e) { print(e.name, e.code, e.message) }
try { connect(5) } catch (e) { print(e.name, e.code, e.message) }
try { new Mongo("mongodb://127.0.0.1:1/x?serverSelectionTimeoutMS=500") } catch (e) { print(e.name, e.message) }
try { connect("mongodb://127.0.0.1:1/x?serverSelectionTimeoutMS=500") } catch (e) { print(e.name, e.message) }
try { db = 5 } catch (e) { print(e.name, e.code, e.message) }
print(typeof connect, typeof Mongo, db.getName());

// What a mongosh user meets beyond the above, section by section (each
// starts with a "== name" line, and its comment says what mongosh
// printed): cursors, writes and their results, argument errors of the
// shell, the driver and the server, the Bulk API, BSON values, EJSON,
// and JavaScript values as Node prints them.
{
const d = db.getSiblingDB("shellmore");
d.dropDatabase();
d.c.insertMany([{ _id: 1, v: 1 }, { _id: 2, v: 2 }, { _id: 3, v: 0 }, { _id: 4, v: 1 }, { _id: 5, v: 2 }]);
function section(name, f) {
  print("== " + name);
  try { f() } catch (e) { print("!!", e.name, e.code, e.message) }
}
function tryPrint(f) {
  try { print(f()) } catch (e) { print("!!", e.name, e.code, e.message) }
}

// Cursors.

// mongosh: 3 3 — the driver's count() applies the cursor's skip and limit
// (and warns on stderr that cursor.count is deprecated; run.sh drops
// that Node warning, whose text carries the process id).
section("cursor.count applies skip and limit", () => {
  print(d.c.find().skip(1).limit(3).count(), d.c.find().skip(1).limit(3).size());
});

// mongosh: null — next() on a cursor with no more documents returns null.
section("cursor.next past the end", () => {
  print(d.c.find({ _id: 99 }).next());
});

// mongosh: true false null — a closed cursor is closed, has no next, and
// next() returns null.
section("cursor.close", () => {
  const c = d.c.find().sort({ _id: 1 });
  c.close();
  print(c.isClosed(), c.hasNext(), c.next());
});

// mongosh: [ 1, 2 ] [ 1, 2 ] — for...of iterates find and aggregate cursors.
section("for...of over a cursor", () => {
  const a = [], b = [];
  for (const x of d.c.find({ _id: { $lt: 3 } }).sort({ _id: 1 })) a.push(x._id);
  for (const x of d.c.aggregate([{ $match: { _id: { $lt: 3 } } }, { $sort: { _id: 1 } }])) b.push(x._id);
  print(a, b);
});

// mongosh: [ 5, 4, 3, 2, 1 ] then [ 3, 1, 4, 2, 5 ] — the driver takes a
// sort as an array of [key, direction] pairs or as a field name.
section("cursor.sort as pairs and as a name", () => {
  print(d.c.find().sort([["_id", -1]]).toArray().map((x) => x._id));
  print(d.c.find().sort("v").toArray().map((x) => x._id));
});

// mongosh: the driver's and the server's words:
//   !! MongoInvalidArgumentError  Operation "limit" requires an integer
//   !! MongoServerError 51024 BSON field 'skip' value must be >= 0, actual value '-2'
//   !! MongoInvalidArgumentError  Operation "batchSize" requires an integer
//   !! MongoInvalidArgumentError  Argument for maxTimeMS must be a number
//   !! MongoInvalidArgumentError  Invalid read preference mode "bogus"
//   !! MongoCursorInUseError  Cursor is already initialized
//   !! MongoServerError 9 verbosity string must be one of {'queryPlanner', 'executionStats', 'allPlansExecution'}
section("cursor argument errors", () => {
  tryPrint(() => d.c.find().limit("2").toArray());
  tryPrint(() => d.c.find().skip(-2).toArray());
  tryPrint(() => d.c.find().batchSize("x").toArray());
  tryPrint(() => d.c.find().maxTimeMS("x").toArray());
  tryPrint(() => d.c.find().readPref("bogus").toArray());
  tryPrint(() => { const c = d.c.find(); c.next(); return c.limit(1) });
  tryPrint(() => d.c.find({ v: 1 }).explain("bogus"));
});

// Writes.

// mongosh: { acknowledged: false, insertedId: 100 } and
// { acknowledged: false, deletedCount: undefined } — an unacknowledged
// write (w: 0) says so.
section("writeConcern w: 0 results", () => {
  print(d.w0.insertOne({ _id: 100 }, { writeConcern: { w: 0 } }));
  print(d.w0.deleteOne({ _id: 100 }, { writeConcern: { w: 0 } }));
});

// mongosh: the Node driver refuses these before sending anything:
//   !! MongoInvalidArgumentError  Invalid BulkOperation, Batch cannot be empty   (twice)
//   !! MongoInvalidArgumentError  Argument "docs" must be an array of documents
//   !! MongoInvalidArgumentError  Argument "operations" must be an array of documents
//   !! MongoInvalidArgumentError  bulkWrite only supports insertOne, updateOne, updateMany, deleteOne, deleteMany
section("insertMany and bulkWrite refusals", () => {
  tryPrint(() => d.c.insertMany([]));
  tryPrint(() => d.c.bulkWrite([]));
  tryPrint(() => d.c.insertMany({ _id: 6 }));
  tryPrint(() => d.c.bulkWrite({ insertOne: { document: {} } }));
  tryPrint(() => d.c.bulkWrite([{ nosuch: {} }]));
});

// mongosh: "DeprecationWarning: Collection.insert() is deprecated. Use
// insertOne, insertMany, or bulkWrite." once, then the result; a
// duplicate through insert() is a MongoBulkWriteError (insert() is
// insertMany underneath):
//   !! MongoBulkWriteError 11000 E11000 duplicate key error collection: shellmore.ins index: _id_ dup key: { _id: 1 }
section("Collection.insert", () => {
  print(d.ins.insert({ _id: 1 }));
  tryPrint(() => d.ins.insert({ _id: 1 }));
});

// mongosh: after the warning for update(), a replacement document is the
// driver's
//   !! MongoInvalidArgumentError  Update document requires atomic operators
// and a legacy boolean third argument is taken (it does not upsert): an
// UpdateResult with matchedCount 0, upsertedCount 0; the collection is
// left as it was: [ { _id: 1, a: 1 } ].
section("Collection.update legacy forms", () => {
  d.upd.insertOne({ _id: 1, a: 1 });
  tryPrint(() => d.upd.update({ _id: 1 }, { q: 3 }));
  tryPrint(() => d.upd.update({ _id: 52 }, { $set: { q: 3 } }, true));
  print(d.upd.find().toArray());
});

// mongosh: !! MongoshInvalidInputError COMMON-10001 [COMMON-10001] returnDocument needs to be either 'before' or 'after'
section("findOneAndUpdate returnDocument", () => {
  d.fo.insertOne({ _id: 1 });
  tryPrint(() => d.fo.findOneAndUpdate({ _id: 1 }, { $set: { k: 1 } }, { returnDocument: "bogus" }));
});

// mongosh: [ { n: 5 } ] from aggregate's stages given as arguments, and
// every document for aggregate() with no pipeline.
section("aggregate without an array", () => {
  print(d.c.aggregate({ $match: {} }, { $count: "n" }).toArray());
  print(d.c.aggregate().toArray().length);
});

// mongosh: [ 'e_1' ] — ensureIndex returns createIndexes' list of names.
section("ensureIndex", () => {
  print(d.c.ensureIndex({ e: 1 }));
});

// mongosh: the shell's own refusals, with their code and method:
//   !! MongoshInvalidInputError COMMON-10001 [COMMON-10001] Argument at position 0 must be of type string or object, got number instead (Database.runCommand)
//   !! MongoshInvalidInputError COMMON-10001 [COMMON-10001] Argument at position 0 must be of type string, got number instead (Database.getColl)
//   !! MongoshInvalidInputError COMMON-10001 [COMMON-10001] Argument at position 0 must be of type string, got number instead (Database.createCollection)
//   !! MongoshInvalidInputError COMMON-10001 [COMMON-10001] Argument at position 0 must be of type string, got number instead (Collection.renameCollection)
//   !! MongoshInvalidInputError COMMON-10001 [COMMON-10001] Argument at position 0 must be of type string, got number instead (Database.getSiblingDB)
//   !! MongoshInvalidInputError COMMON-10001 [COMMON-10001] Argument at position 0 must be of type string, got number instead (Mongo.use)
//   !! MongoshInvalidInputError COMMON-10001 [COMMON-10001] Argument at position 1 must be of type string, got number instead (Database.createView)
//   !! MongoshInvalidInputError COMMON-10001 [COMMON-10001] Missing required argument at position 0 (Collection.dropIndex)
//   !! MongoshInvalidInputError COMMON-10001 [COMMON-10001] The "options" argument must be an object.
//   !! MongoshInvalidInputError COMMON-10001 [COMMON-10001] To drop indexes in the collection using '*', use db.collection.dropIndexes().
section("the shell's argument errors", () => {
  tryPrint(() => d.runCommand(5));
  tryPrint(() => d.getCollection(5));
  tryPrint(() => d.createCollection(5));
  tryPrint(() => d.c.renameCollection(5));
  tryPrint(() => d.getSiblingDB(5));
  tryPrint(() => use(5));
  tryPrint(() => d.createView("v", 5, []));
  tryPrint(() => d.c.dropIndex());
  tryPrint(() => d.c.createIndex({ z: 1 }, "x"));
  tryPrint(() => d.c.dropIndex("*"));
});

// mongosh: names it cannot use are refused:
//   !! MongoshInvalidInputError COMMON-10001 [COMMON-10001] Invalid database name:
//   !! MongoshInvalidInputError COMMON-10001 [COMMON-10001] Invalid database name: a b
//   !! MongoshInvalidInputError COMMON-10001 [COMMON-10001] Invalid database name: a.b
//   !! MongoshInvalidInputError COMMON-10001 [COMMON-10001] Invalid collection name:
section("invalid database and collection names", () => {
  tryPrint(() => d.getSiblingDB(""));
  tryPrint(() => d.getSiblingDB("a b"));
  tryPrint(() => d.getSiblingDB("a.b"));
  tryPrint(() => d.getCollection(""));
});

// mongosh: what it passes on is refused by the driver or the server:
//   !! MongoInvalidArgumentError  Query filter must be a plain object or ObjectId
//   !! MongoServerError 14 BSON field 'find.projection' is the wrong type 'int', expected type 'object'
//   !! MongoInvalidArgumentError  Selector must be a valid JavaScript object
//   !! MongoInvalidArgumentError  Document must be a valid JavaScript object
//   !! MongoServerError 14 BSON field 'delete.deletes.q' is the wrong type 'string', expected type 'object'
//   !! MongoServerError 14 BSON field 'distinct.key' is the wrong type 'int', expected type 'string'
//   !! MongoServerError 15959 the match filter must be an expression in an object
//   !! MongoServerError 14 Each element of the 'pipeline' array must be an object
section("argument errors the driver and the server answer", () => {
  tryPrint(() => d.c.find(5).toArray());
  tryPrint(() => d.c.find({}, 5).toArray());
  tryPrint(() => d.c.updateOne("x", { $set: { a: 1 } }));
  tryPrint(() => d.c.updateOne({}, 5));
  tryPrint(() => d.c.deleteOne("x"));
  tryPrint(() => d.c.distinct(5));
  tryPrint(() => d.c.countDocuments(5));
  tryPrint(() => d.c.aggregate("x").toArray());
});

// mongosh: !! MongoshRuntimeError  collection shellmore.nosuch not found
section("isCapped of a missing collection", () => {
  tryPrint(() => d.nosuch.isCapped());
});

// mongosh: the legacy (filter, nameOnly, authorizedCollections) booleans:
// [ 'c' ] and a collection runCommand given a document: { n: 5, ok: 1 }.
section("legacy argument forms", () => {
  print(d.getCollectionInfos({ name: "c" }, true, true).map((x) => x.name));
  print(d.c.runCommand({ count: "c" }));
});

// mongosh: [] — every one is a function (not a collection of that name).
section("helpers mongosh has", () => {
  const h = {
    "db.printShardingStatus": d.printShardingStatus, "db.checkMetadataConsistency": d.checkMetadataConsistency,
    "db.c.getShardVersion": d.c.getShardVersion, "db.c.analyzeShardKey": d.c.analyzeShardKey,
    "db.c.createSearchIndex": d.c.createSearchIndex, "Mongo.setSecondaryOk": d.getMongo().setSecondaryOk,
    "ObjectId.createFromTime": ObjectId.createFromTime, "Decimal128.fromString": Decimal128.fromString,
    "Long.add": NumberLong("1").add,
  };
  print(Object.keys(h).filter((k) => typeof h[k] !== "function"));
});

// JavaScript errors.

// mongosh: TypeError d.c.nosuch is not a function / TypeError c.nosuch is
// not a function / TypeError o.f is not a function / TypeError n is not a
// function — the message itself, caught, not only when printed uncaught.
section("not a function, caught", () => {
  try { d.c.nosuch() } catch (e) { print(e.name, e.message) }
  const c = d.c.find();
  try { c.nosuch() } catch (e) { print(e.name, e.message) }
  const o = {};
  try { o.f() } catch (e) { print(e.name, e.message) }
  const n = 5;
  try { n() } catch (e) { print(e.name, e.message) }
});

// mongosh (V8): Cannot read properties of undefined (reading 'x'). (Of
// null, V8 says null, where ttlkv's shell says undefined too.)
section("reading a property of undefined", () => {
  let u;
  try { u.x } catch (e) { print(e.name, e.message) }
  try { [1].map((v) => v.y.z) } catch (e) { print(e.name, e.message) }
});

// mongosh: Error ENOENT ENOENT: no such file or directory, open '/nonexistent-shellcheck/x.js'
// then the shell's:
//   MongoshInvalidInputError COMMON-10001 [COMMON-10001] Missing required argument at position 0 (load)
section("load errors", () => {
  try { load("/nonexistent-shellcheck/x.js") } catch (e) { print(e.name, e.code, e.message) }
  try { load() } catch (e) { print(e.name, e.code, e.message) }
});

// mongosh: string string — a script has __filename and __dirname.
section("__filename", () => {
  print(typeof __filename, typeof __dirname);
});

// The Bulk API.

// mongosh: {"nInsertOps":1,"nUpdateOps":0,"nRemoveOps":0,"nBatches":1}
// and { nInsertOps: 1, nUpdateOps: 0, nRemoveOps: 0, nBatches: 1 }; then
//   !! MongoshInvalidInputError COMMON-10002 [COMMON-10002] Cannot call getOperations on an unexecuted Bulk operation
//   !! MongoInvalidArgumentError  Invalid BulkOperation, Batch cannot be empty
//   !! MongoBatchReExecutionError  This batch has already been executed, create new batch to execute
section("Bulk printing and refusals", () => {
  const b = d.bulk.initializeOrderedBulkOp();
  b.insert({ _id: 1 });
  print(b.toString());
  print(b);
  tryPrint(() => b.getOperations());
  tryPrint(() => d.bulk.initializeOrderedBulkOp().execute());
  b.execute();
  tryPrint(() => b.execute());
});

// mongosh: the find() of a Bulk takes collation, arrayFilters and hint:
// 1 1 1 and [ { _id: 1, a: [ 1 ], c: 3 } ].
section("Bulk find options", () => {
  d.bulk2.insertOne({ _id: 1, a: [0] });
  const r = [];
  for (const f of [
    (b) => b.find({ _id: 1 }).collation({ locale: "en" }).updateOne({ $set: { c: 1 } }),
    (b) => b.find({ _id: 1 }).arrayFilters([{ x: 0 }]).updateOne({ $set: { "a.$[x]": 1 } }),
    (b) => b.find({ _id: 1 }).hint({ _id: 1 }).updateOne({ $set: { c: 3 } }),
  ]) {
    try { const b = d.bulk2.initializeOrderedBulkOp(); f(b); r.push(b.execute().modifiedCount) } catch (e) { r.push(e.message) }
  }
  print(r, d.bulk2.find().toArray());
});

// Printing of shell objects.

// mongosh: Explainable(shellmore.c), then PlanCache for collection c.
section("printing shell helper objects", () => {
  print(d.c.explain());
  print(d.c.getPlanCache());
});

// mongosh: an explainable cursor prints the plan, not the documents:
// { queryPlanner: { namespace: 'shellmore.c', winningPlan: ..., rejectedPlans: [] },
//   command: { find: 'c', filter: { _id: 1 } }, ok: 1 } (laid out over lines).
section("printing an explainable cursor", () => {
  const m2 = Mongo(db.getMongo()); // a connection without the read concern set above
  print(m2.getDB("shellmore").c.explain().find({ _id: 1 }));
  m2.close();
});

// BSON values.

// mongosh: DBRef('coll', 5) DBRef('a', 1, 'db'), Code('x') Code('x', { a: 1 }),
// BSONSymbol('s') — the constructors mongosh has.
section("DBRef, Code and BSONSymbol", () => {
  tryPrint(() => [DBRef("coll", 5), DBRef("a", 1, "db")]);
  tryPrint(() => [Code("x"), Code("x", { a: 1 })]);
  tryPrint(() => BSONSymbol("s"));
});

// mongosh: { _id: 1, f: Code('function() {}'), m: { a: 1 } } — a function
// is stored as code and a Map as a document.
section("functions and Maps stored", () => {
  d.vals.insertOne({ _id: 1, f: function() {}, m: new Map([["a", 1]]) });
  print(d.vals.findOne({ _id: 1 }));
});

// mongosh: [ 'ObjectId', 'Long', 'Int32', 'Decimal128', 'Timestamp', 'MinKey', 'Binary' ]
section("_bsontype", () => {
  print([ObjectId()._bsontype, NumberLong("1")._bsontype, NumberInt(1)._bsontype, NumberDecimal("1")._bsontype,
    Timestamp()._bsontype, MinKey()._bsontype, BinData(0, "")._bsontype]);
});

// mongosh: Binary.createFromBase64('AQID', 0) — new Binary(bytes, subtype)
// keeps its bytes.
section("new Binary from bytes", () => {
  print(new Binary(new Uint8Array([1, 2, 3]), 0));
});

// mongosh: [ 'Binary', 'UUID' ] and "01234567-89ab-cdef-0123-456789abcdef" —
// a UUID read back is a UUID, and JSON gives its hex form.
section("Binary and UUID read back", () => {
  d.vals.insertOne({ _id: 2, b: BinData(0, "AQID"), u: UUID("0123456789abcdef0123456789abcdef") });
  const x = d.vals.findOne({ _id: 2 });
  print([x.b.constructor.name, x.u.constructor.name], JSON.stringify(x.u));
});

// mongosh: 1cbe991a14 1010 [ 28, -1097262572 ] — toString takes a radix, a
// Long has high and low.
section("Long and Int32", () => {
  const l = NumberLong("123456789012");
  print(l.toString(16), NumberInt(10).toString(2), [l.high, l.low]);
});

// mongosh: true — ObjectId.equals takes a hex string.
section("ObjectId.equals a string", () => {
  print(ObjectId("5f0000000000000000000000").equals("5f0000000000000000000000"));
});

// mongosh: true — EJSON.serialize keeps the keys in their order.
section("EJSON.serialize keeps key order", () => {
  const o = {};
  for (const k of "abcdefghijklmnopqrstuvwxyz") o[k] = k === "c" ? ObjectId("5f0000000000000000000000") : 1;
  let same = true;
  for (let i = 0; i < 5; i++) same = same && Object.keys(EJSON.serialize(o)).join("") === "abcdefghijklmnopqrstuvwxyz";
  print(same);
});

// mongosh: { a: Int32(1) }, then {"d":{"$date":0}} for legacy, then { a: 5 }
// (deserialize is relaxed by default).
section("EJSON options", () => {
  print(EJSON.parse('{"a": 1}', { relaxed: false }));
  print(EJSON.stringify({ d: new Date(0) }, { legacy: true }));
  print(EJSON.deserialize({ a: { $numberLong: "5" } }));
});

// JavaScript values.

// mongosh (Node's util.inspect): <ref *1> { a: 1, self: [Circular *1] }
section("printing a circular object", () => {
  const o = { a: 1 };
  o.self = o;
  print(o);
});

// mongosh: Uint8Array(3) [ 1, 2, 3 ] / [class Foo] / { x: [Getter] } /
// { a: 2, [Symbol(k)]: 1 } / [AsyncFunction: h] / [Function: g] { p: 1 } /
// 5n { b: 10n } / [String: 's'] / [ 1, 2, extra: 'x' ]
section("printing JavaScript values as Node does", () => {
  print(new Uint8Array([1, 2, 3]));
  print(class Foo {});
  print({ get x() { return 1 } });
  print({ [Symbol("k")]: 1, a: 2 });
  print(async function h() {});
  print(Object.assign(function g() {}, { p: 1 }));
  print(5n, { b: 10n });
  print(new String("s"));
  const arr = [1, 2];
  arr.extra = "x";
  print(arr);
});

// mongosh: 1,234,567.891 1.234.567,891 — numbers formatted for a locale.
section("toLocaleString", () => {
  print((1234567.891).toLocaleString("en-US"), (1234567.891).toLocaleString("de-DE"));
});

// mongosh: "DeprecationWarning: DBQuery.shellBatchSize is deprecated,
// please use config.set("displayBatchSize") instead", then 3.
section("DBQuery.shellBatchSize", () => {
  DBQuery.shellBatchSize = 3;
  print(DBQuery.shellBatchSize);
  DBQuery.shellBatchSize = 20;
});

// More of the cursor and findOneAnd* surface.

section("cursor helpers (as mongosh)", () => {
  const c = d.c.find().sort({ _id: 1 });
  print(c.hasNext(), c.next(), c.toArray().length, c.hasNext(), c.isExhausted());
  print(d.c.find({ _id: { $lt: 3 } }).sort({ _id: 1 }).map((x) => x._id * 10).toArray());
  print(d.c.find().sort({ _id: 1 }).skip(3).itcount(), d.c.find().batchSize(2).objsLeftInBatch());
  print(d.c.find({ _id: 1 }).projection({ v: 0 }).comment("x").maxTimeMS(1000).toArray());
  print(d.c.find({}, { _id: 1 }, { sort: { _id: -1 }, limit: 2, skip: 1 }).toArray());
  tryPrint(() => JSON.stringify(d.c.find()));
});

section("findOneAnd* options (as mongosh)", () => {
  print(d.c.findOneAndUpdate({ _id: 2 }, { $set: { k: 2 } }, { returnNewDocument: true, projection: { _id: 0 } }));
  print(d.c.findOneAndReplace({ _id: 2 }, { r: 1 }, { returnDocument: "after" }));
  print(d.c.findOneAndDelete({}, { sort: { _id: -1 }, projection: { _id: 1 } }));
  print(d.c.findOneAndUpdate({ _id: 61 }, { $set: { k: 3 } }, { upsert: true }), d.c.countDocuments({ _id: 61 }));
});
}
