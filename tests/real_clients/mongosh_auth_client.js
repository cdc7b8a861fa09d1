// Drives `mongostore serve --auth` with mongosh: run.sh connects as shop's readWrite user
// clerk (SCRAM-SHA-256, over TLS when the server requires it), this script runs CRUD, an
// aggregation and an index, then checks that a wrong password and a user lacking the role
// (shop's read-only viewer) are refused and write nothing.
// (after pymongo_auth_client.py, which made the users.)
//   MONGOSH_BAD_PASSWORD_URI=... MONGOSH_VIEWER_URI=... \
//     mongosh 'mongodb://clerk:clerk-pw@HOST/shop?authSource=shop&...' --quiet --file this
// Prints one result line: "mongosh_auth: PASS (...)" or "mongosh_auth: FAIL at step ...".
let step = 'start';
function check(what, actual, expected) {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) {
    throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
  }
}
function fails(what, code, fn) {
  try {
    fn();
  } catch (e) {
    check(`${what} code`, e.code, code);
    return;
  }
  throw new Error(`${what}: succeeded, expected error ${code}`);
}
try {
  step = 'connectionStatus';
  const status = db.getSiblingDB('admin').runCommand({ connectionStatus: 1 });
  check('authenticated as', status.authInfo.authenticatedUsers.map((u) => u.user), ['clerk']);

  const shop = db.getSiblingDB('shop');
  step = 'CRUD as clerk';
  shop.mongosh_items.drop();
  shop.mongosh_items.insertMany([{ _id: 1, tag: 'a', n: 1 }, { _id: 2, tag: 'a', n: 2 }]);
  check('updateOne', shop.mongosh_items.updateOne({ _id: 2 }, { $set: { n: 5 } }).modifiedCount,
        1);
  check('aggregate',
        shop.mongosh_items.aggregate([{ $group: { _id: '$tag', total: { $sum: '$n' } } }])
          .toArray(),
        [{ _id: 'a', total: 6 }]);
  check('createIndex', shop.mongosh_items.createIndex({ n: -1 }), 'n_-1');

  step = 'wrong password';
  fails('wrong password', 18, () => {
    const bad = new Mongo(process.env.MONGOSH_BAD_PASSWORD_URI);
    bad.getDB('shop').mongosh_items.insertOne({ _id: 9 });
  });
  step = 'viewer writes';
  const viewer = new Mongo(process.env.MONGOSH_VIEWER_URI);
  check('viewer reads', viewer.getDB('shop').mongosh_items.countDocuments({}), 2);
  fails('viewer inserts', 13, () => viewer.getDB('shop').mongosh_items.insertOne({ _id: 8 }));
  step = 'nothing written';
  check('ids', shop.mongosh_items.find().sort({ _id: 1 }).toArray().map((d) => d._id), [1, 2]);
  print('mongosh_auth: PASS (SCRAM-SHA-256 CRUD, aggregate, createIndex, 2 refusals)');
} catch (e) {
  print(`mongosh_auth: FAIL at step '${step}': ${e.message}`);
  quit(1);
}
