// Drives `mongostore serve` with the official Node.js MongoDB driver, a client no one here
// wrote.
//
// Usage: node node_client.mjs mongodb://127.0.0.1:PORT/
//
// Each step asserts its result; the first mismatch prints which step failed, what was
// expected and what came back, and exits 1. On success it prints one line and exits 0.
import { check, connect, Mismatch, mongodb, run } from './real_client.mjs';

const { MongoServerError } = mongodb;

const DB_NAME = 'real_clients_node';
const COLL_NAME = 'items';

async function main(uri, steps) {
  const client = connect(uri);
  try {
    steps.start('connect (ping)');
    await client.connect();
    const ping = await client.db('admin').command({ ping: 1 });
    check('ping ok', ping.ok, 1);
    steps.done();

    const db = client.db(DB_NAME);
    await db.dropCollection(COLL_NAME).catch(() => {});  // leftovers from an earlier run

    steps.start('create collection');
    const coll = await db.createCollection(COLL_NAME);
    check('collection name', coll.collectionName, COLL_NAME);
    const listed = (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
    check('listed collections include it', listed.includes(COLL_NAME), true);
    steps.done();

    steps.start('insert');
    const docs = [
      { _id: 1, name: 'apple', category: 'fruit', qty: 5, sku: 'A-1' },
      { _id: 2, name: 'banana', category: 'fruit', qty: 20, sku: 'B-2' },
      { _id: 3, name: 'carrot', category: 'veg', qty: 12, sku: 'C-3' },
      { _id: 4, name: 'daikon', category: 'veg', qty: 0, sku: 'D-4' },
    ];
    let result = await coll.insertMany(docs);
    check('insertMany acknowledged', result.acknowledged, true);
    check('insertMany insertedCount', result.insertedCount, 4);
    check('insertMany insertedIds', result.insertedIds, { 0: 1, 1: 2, 2: 3, 3: 4 });
    result = await coll.insertOne({ _id: 5, name: 'eggplant', category: 'veg', qty: 30,
                                    sku: 'E-5' });
    check('insertOne insertedId', result.insertedId, 5);
    check('countDocuments after insert', await coll.countDocuments({}), 5);
    check('estimatedDocumentCount after insert', await coll.estimatedDocumentCount(), 5);
    steps.done();

    steps.start('find with filter and sort');
    const found = await coll.find({ qty: { $gte: 10 } }, { projection: { _id: 0, name: 1, qty: 1 } })
      .sort({ qty: -1 })
      .toArray();
    check('find qty>=10 sorted by qty desc', found, [
      { name: 'eggplant', qty: 30 },
      { name: 'banana', qty: 20 },
      { name: 'carrot', qty: 12 },
    ]);
    const names = (await coll.find({ category: 'veg' }).sort({ name: 1 }).toArray())
      .map((d) => d.name);
    check('find category=veg sorted by name', names, ['carrot', 'daikon', 'eggplant']);
    // A small batchSize makes the driver fetch the rest with getMore.
    const batched = (await coll.find({}).sort({ _id: 1 }).batchSize(2).toArray()).map((d) => d._id);
    check('find all with batchSize 2 (getMore)', batched, [1, 2, 3, 4, 5]);
    steps.done();

    steps.start('update (updateOne with $set/$inc)');
    result = await coll.updateOne({ name: 'apple' }, { $set: { ripe: true }, $inc: { qty: 7 } });
    check('updateOne acknowledged', result.acknowledged, true);
    check('updateOne matchedCount', result.matchedCount, 1);
    check('updateOne modifiedCount', result.modifiedCount, 1);
    check('document after update', await coll.findOne({ _id: 1 }),
          { _id: 1, name: 'apple', category: 'fruit', qty: 12, sku: 'A-1', ripe: true });
    result = await coll.updateOne({ name: 'no-such' }, { $set: { x: 1 } });
    check('updateOne on no match: matchedCount', result.matchedCount, 0);
    steps.done();

    steps.start('aggregate ($match + $group)');
    const groups = await coll.aggregate([
      { $match: { qty: { $gt: 0 } } },
      { $group: { _id: '$category', total: { $sum: '$qty' }, n: { $sum: 1 } } },
    ]).toArray();
    groups.sort((a, b) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0));
    check('aggregate groups', groups, [
      { _id: 'fruit', total: 32, n: 2 },
      { _id: 'veg', total: 42, n: 2 },
    ]);
    steps.done();

    steps.start('unique index and duplicate key');
    const indexName = await coll.createIndex({ sku: 1 }, { unique: true });
    check('createIndex name', indexName, 'sku_1');
    const indexes = await coll.indexes();
    const sku = indexes.find((i) => i.name === 'sku_1');
    check('index sku_1 listed', sku !== undefined, true);
    check('index sku_1 key', sku.key, { sku: 1 });
    check('index sku_1 unique', sku.unique, true);
    let duplicateError = null;
    try {
      await coll.insertOne({ _id: 6, name: 'fig', category: 'fruit', qty: 1, sku: 'B-2' });
    } catch (e) {
      duplicateError = e;
    }
    if (duplicateError === null) {
      throw new Mismatch('insert with duplicate sku: expected a duplicate key error (11000), ' +
                         'but the insert succeeded');
    }
    if (!(duplicateError instanceof MongoServerError)) throw duplicateError;
    check('duplicate key error code', duplicateError.code, 11000);
    check('countDocuments after rejected insert', await coll.countDocuments({}), 5);
    steps.done();

    steps.start('drop collection');
    check('drop() result', await coll.drop(), true);
    const after = (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
    check('collection listed after drop', after.includes(COLL_NAME), false);
    check('countDocuments after drop', await coll.countDocuments({}), 0);
    steps.done();
  } finally {
    await client.close();
  }
}

await run('node mongodb driver {version}', main, 'node_client.mjs');
