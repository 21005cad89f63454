// What must survive a dump and a restore: each collection's options,
// indexes and documents.
const a = db.getSiblingDB("app");
for (const c of a.getCollectionInfos({}).sort((x, y) => x.name < y.name ? -1 : 1)) {
  const info = a.getCollectionInfos({ name: c.name })[0];
  print(c.name, info.type, EJSON.stringify(info.options));
  // By name: mongorestore creates a collection's indexes in no fixed
  // order, and listIndexes gives them in the order they were created.
  if (info.type !== "view") print(EJSON.stringify(a.getCollection(c.name).getIndexes().map(i => { delete i.ns; return i; }).sort((x, y) => x.name < y.name ? -1 : 1)));
  if (c.name.startsWith("system.buckets.")) {
    // A restore buckets the measurements afresh, under new bucket _ids:
    // the buckets without them, by meta and start.
    const sort = { meta: 1 };
    sort["control.min." + info.options.timeseries.timeField] = 1;
    print(EJSON.stringify(a.getCollection(c.name).find({}, { _id: 0 }).sort(sort).toArray()));
    continue;
  }
  print(EJSON.stringify(a.getCollection(c.name).find().sort({ _id: 1 }).toArray()));
}
// dbHash of the plain collections: the same documents, byte for byte, in
// _id order (time-series buckets are left out: a restore buckets the
// measurements afresh, under new bucket _ids).
const plain = a.getCollectionInfos({ type: "collection" }).map(c => c.name).filter(n => !n.startsWith("system.")).sort();
print(EJSON.stringify(a.runCommand({ dbHash: 1, collections: plain }).collections));
// A text index survives with its weights: the same scores.
print(EJSON.stringify(a.articles.find({ $text: { $search: "coffee" } }, { score: { $meta: "textScore" } }).sort({ score: { $meta: "textScore" } }).toArray()));
// Geo indexes survive: the same nearest places, and a flat $near.
print(EJSON.stringify(a.places.aggregate([{ $geoNear: { near: { type: "Point", coordinates: [2.35, 48.85] }, distanceField: "d", key: "loc" } }, { $project: { d: { $round: ["$d", 0] } } }]).toArray()));
print(EJSON.stringify(a.places.find({ p: { $near: [0, 0] } }).toArray()));
// Compound wildcard indexes survive: the same answers through them.
print(EJSON.stringify(a.products.find({ tenant: "t1", "attrs.color": "red" }).toArray()), EJSON.stringify(a.products.find({ tenant: "t1" }).sort({ _id: 1 }).toArray()));
// Users and user-defined roles survive as stored, credentials included:
// users log in with their old passwords and hold their roles.
print(EJSON.stringify(db.getSiblingDB("admin").system.users.find().sort({ _id: 1 }).toArray()));
print(EJSON.stringify(db.getSiblingDB("admin").system.roles.find().sort({ _id: 1 }).toArray()));
