// The mongosh check of issue 16: the documentation's snippets (TTL
// index, time-series with expireAfterSeconds, capped collection,
// tailable cursor, collMod) run by the real mongosh against
// `ttlkv serve`. run.sh diffs what this prints with expected.txt.
// runTTLPass is ttlkv's command for one TTL pass now, so the check
// does not wait for the monitor.
const d = db.getSiblingDB("mongoshcheck");
d.dropDatabase();
const hour = 3600 * 1000;

// TTL index: a document 60 s old with expireAfterSeconds 30 expires.
print("createIndex", d.events.createIndex({ createdAt: 1 }, { expireAfterSeconds: 30 }));
d.events.insertMany([
  { _id: 1, createdAt: new Date(Date.now() - 60 * 1000) },
  { _id: 2, createdAt: new Date(Date.now() + hour) },
  { _id: 3, createdAt: "not a date" },
]);
db.adminCommand({ runTTLPass: 1 });
print("ttl remaining", JSON.stringify(d.events.find().sort({ _id: 1 }).toArray().map((x) => x._id)));
const ttlIndex = () => d.events.getIndexes().find((i) => i.name === "createdAt_1");
print("ttl index", ttlIndex().expireAfterSeconds);

// collMod changes expireAfterSeconds.
const mod = d.runCommand({ collMod: "events", index: { keyPattern: { createdAt: 1 }, expireAfterSeconds: 7200 } });
print("collMod", mod.ok, mod.expireAfterSeconds_old, mod.expireAfterSeconds_new);
print("ttl index after collMod", ttlIndex().expireAfterSeconds);

// Time-series with expireAfterSeconds: a bucket expires once all it can
// hold has (its start plus the 30-day span of granularity "hours").
d.createCollection("weather", {
  timeseries: { timeField: "ts", metaField: "sensor", granularity: "hours" },
  expireAfterSeconds: 86400,
});
d.weather.insertMany([
  { ts: new Date(Date.now() - 40 * 24 * hour), sensor: { id: 1 }, temp: 11 },
  { ts: new Date(), sensor: { id: 2 }, temp: 12 },
]);
db.adminCommand({ runTTLPass: 1 });
print("timeseries remaining", JSON.stringify(d.weather.find({}, { _id: 0, temp: 1 }).toArray()));
const info = d.getCollectionInfos({ name: "weather" })[0];
print("timeseries", info.type, info.options.expireAfterSeconds, info.options.timeseries.timeField);

// Capped collection: the oldest documents go first.
d.createCollection("log", { capped: true, size: 4096, max: 3 });
for (let i = 0; i < 5; i++) d.log.insertOne({ i });
print("capped", JSON.stringify(d.log.find({}, { _id: 0 }).toArray()));
print("capped reverse", JSON.stringify(d.log.find({}, { _id: 0 }).sort({ $natural: -1 }).toArray()));
print("isCapped", d.log.isCapped());

// Tailable cursor: sees what is there, then what is inserted after.
const cur = d.log.find({}, { _id: 0 }).tailable({ awaitData: true });
cur.disableBlockWarnings();
print("tail", JSON.stringify([cur.next(), cur.next(), cur.next()]));
d.log.insertOne({ i: 5 });
print("tail new", JSON.stringify(cur.next()));
cur.close();

// Errors come back with MongoDB's codes.
try {
  d.events.createIndex({ other: 1 }, { expireAfterSeconds: -1 });
} catch (e) {
  print("error", e.code, e.codeName);
}
try {
  d.createCollection("log", { capped: true, size: 8192 });
} catch (e) {
  print("error", e.code, e.codeName);
}
try {
  d.runCommand({ noSuchCommand: 1 }).ok === 0 && print("error", 59, "CommandNotFound");
} catch (e) {
  print("error", e.code, e.codeName);
}
