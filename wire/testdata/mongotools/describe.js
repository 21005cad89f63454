// What must survive a dump and a restore: each collection's options,
// indexes and documents.
const a = db.getSiblingDB("app");
for (const c of a.getCollectionInfos({}).sort((x, y) => x.name < y.name ? -1 : 1)) {
  const info = a.getCollectionInfos({ name: c.name })[0];
  print(c.name, info.type, EJSON.stringify(info.options));
  // By name: mongorestore creates a collection's indexes in no fixed
  // order, and listIndexes gives them in the order they were created.
  if (info.type !== "view") print(EJSON.stringify(a.getCollection(c.name).getIndexes().map(i => { delete i.ns; return i; }).sort((x, y) => x.name < y.name ? -1 : 1)));
  print(EJSON.stringify(a.getCollection(c.name).find().sort({ _id: 1 }).toArray()));
}
