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
printjson(d2.c.validate());
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
const d4 = db.getSiblingDB("shellcheck4");
d4.dropDatabase();
d4.c.insertMany([{ _id: 1, a: 1 }, { _id: 2, a: 2 }]);
[
  () => d4.getRoles(),
  () => d4.getRole("read"),
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
try { db.c.findOne() } catch (e) { print(e.name, e.message) }
db = d;
print(db.getName(), db.c.countDocuments() > 0);
try { connect("a b") } catch (e) { print(e.name, e.code, e.message) }
try { connect(5) } catch (e) { print(e.name, e.code, e.message) }
try { new Mongo("mongodb://127.0.0.1:1/x?serverSelectionTimeoutMS=500") } catch (e) { print(e.name, e.message) }
try { connect("mongodb://127.0.0.1:1/x?serverSelectionTimeoutMS=500") } catch (e) { print(e.name, e.message) }
try { db = 5 } catch (e) { print(e.name, e.code, e.message) }
print(typeof connect, typeof Mongo, db.getName());
