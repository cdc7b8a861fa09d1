// Drives `mongostore serve` with mongosh (the MongoDB Shell): CRUD, an aggregation and an
// index, in the shell's own helpers. Run by run.sh as
//   mongosh mongodb://127.0.0.1:PORT/ --quiet --file mongosh_client.js
// Prints one result line: "mongosh: PASS (...)" or "mongosh: FAIL at step '...': ...".
let step = 'start';
function check(what, actual, expected) {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) {
    throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
  }
}
try {
  const shop = db.getSiblingDB('mongosh_shop');
  step = 'drop';
  shop.items.drop();

  step = 'insert';
  check('insertOne', shop.items.insertOne({ _id: 1, tag: 'a', n: 1 }).insertedId, 1);
  check('insertMany',
        Object.values(shop.items.insertMany([{ _id: 2, tag: 'b', n: 2 },
                                             { _id: 3, tag: 'a', n: 3 }]).insertedIds),
        [2, 3]);

  step = 'find';
  check('find', shop.items.find({ tag: 'a' }).sort({ _id: 1 }).toArray().map((d) => d._id),
        [1, 3]);
  check('findOne', shop.items.findOne({ _id: 2 }).tag, 'b');

  step = 'update';
  check('updateOne', shop.items.updateOne({ _id: 1 }, { $inc: { n: 10 } }).modifiedCount, 1);
  check('after update', shop.items.findOne({ _id: 1 }).n, 11);

  step = 'aggregate';
  check('aggregate',
        shop.items.aggregate([{ $match: { tag: 'a' } },
                              { $group: { _id: '$tag', total: { $sum: '$n' } } }]).toArray(),
        [{ _id: 'a', total: 14 }]);

  step = 'createIndex';
  check('createIndex', shop.items.createIndex({ tag: 1 }), 'tag_1');
  check('getIndexes', shop.items.getIndexes().map((i) => i.name).sort(), ['_id_', 'tag_1']);

  step = 'delete';
  check('deleteOne', shop.items.deleteOne({ _id: 2 }).deletedCount, 1);
  check('countDocuments', shop.items.countDocuments({}), 2);
  print('mongosh: PASS (CRUD, aggregate, createIndex)');
} catch (e) {
  print(`mongosh: FAIL at step '${step}': ${e.message}`);
  quit(1);
}
