// Drives `mongostore serve --auth` with the Node.js driver: a SCRAM-SHA-256 user runs CRUD,
// a wrong password and a user lacking the role are refused and write nothing.
//
// Usage: node node_auth_client.mjs mongodb://127.0.0.1:PORT/ [CA_FILE]  (CA_FILE: use TLS)
// (after pymongo_auth_client.py, which made the users root/rootpw and shop's clerk and viewer;
// run alone, it makes them itself through the localhost exception).
const { MongoClient, MongoServerError } = await import('mongodb');

let step = 'connect';
const base = process.argv[2];
const host = base.slice('mongodb://'.length).replace(/\/$/, '');
const tls = process.argv[3] ? { tls: true, tlsCAFile: process.argv[3] } : {};
const open = (creds, options = '') =>
  new MongoClient(`mongodb://${creds}${host}${options}`,
                  { serverSelectionTimeoutMS: 5000, ...tls });
const clients = [];
function client(creds, options) {
  const c = open(creds, options);
  clients.push(c);
  return c;
}
function check(what, actual, expected) {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) {
    throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
  }
}
async function fails(what, code, fn) {
  try {
    await fn();
  } catch (e) {
    check(`${what} code`, e.code, code);
    return;
  }
  throw new Error(`${what}: succeeded, expected error ${code}`);
}

try {
  step = 'users';
  const anonymous = client('');
  const status = await anonymous.db('admin').command({ usersInfo: 1 }).catch(() => null);
  if (status === null) {
    // No user can be listed unauthenticated: either users exist, or we make root now.
    await anonymous.db('admin')
      .command({ createUser: 'root', pwd: 'rootpw', roles: ['root'] })
      .catch(() => {});
  }
  const root = client('root:rootpw@', '/?authMechanism=SCRAM-SHA-256');
  await root.db('shop').command({ createUser: 'clerk', pwd: 'clerk-pw', roles: ['readWrite'] })
    .catch(() => {});
  await root.db('shop').command({ createUser: 'viewer', pwd: 'viewer-pw', roles: ['read'] })
    .catch(() => {});

  step = 'CRUD as clerk';
  const clerk = client('clerk:clerk-pw@', '/?authSource=shop&authMechanism=SCRAM-SHA-256');
  const coll = clerk.db('shop').collection('node_items');
  await coll.insertOne({ _id: 1, n: 1 });
  check('update', (await coll.updateOne({ _id: 1 }, { $set: { n: 5 } })).modifiedCount, 1);
  check('find', (await coll.find({}).toArray()).map((d) => d.n), [5]);

  step = 'refusals';
  await fails('wrong password', 18, () =>
    client('clerk:nope@', '/?authSource=shop').db('shop').collection('node_items')
      .insertOne({ _id: 9 }));
  const viewer = client('viewer:viewer-pw@', '/?authSource=shop');
  await fails('viewer inserts', 13, () =>
    viewer.db('shop').collection('node_items').insertOne({ _id: 8 }));
  check('nothing written',
        (await root.db('shop').collection('node_items').find({}).toArray()).map((d) => d._id),
        [1]);
  console.log(`node_auth: PASS (SCRAM-SHA-256${tls.tls ? ' over TLS' : ''} CRUD, 2 refusals)`);
} catch (e) {
  console.error(e);
  console.log(`node_auth: FAIL at step '${step}': ${e.message}`);
  process.exitCode = 1;
} finally {
  await Promise.all(clients.map((c) => c.close()));
}
