// Drives `mongostore serve` (replica-set mode, its default) with the official Node.js
// driver's sessions: a retryable write, session.withTransaction moving money between two
// documents, an abort that leaves nothing, and uncommitted writes invisible to others.
//
// Usage: node node_transactions_client.mjs mongodb://127.0.0.1:PORT/
//
// The first mismatch prints which step failed and exits 1; success prints one line, exits 0.
import { createRequire } from 'node:module';
import { isDeepStrictEqual, inspect } from 'node:util';

const require = createRequire(import.meta.url);
let mongodb;
let driverVersion = 'unknown';
try {
  mongodb = await import('mongodb');
  driverVersion = require('mongodb/package.json').version;
} catch (e) {
  console.log(`node transactions: FAIL: cannot load the 'mongodb' package (${e.message})`);
  process.exit(2);
}
const { MongoClient } = mongodb;
const label = `node mongodb driver ${driverVersion} transactions`;

class Mismatch extends Error {}

function check(what, actual, expected) {
  if (!isDeepStrictEqual(actual, expected)) {
    throw new Mismatch(`${what}: expected ${inspect(expected)}, got ${inspect(actual)}`);
  }
}

let currentStep = 'connect';

async function main(uri) {
  const client = new MongoClient(uri, {
    serverSelectionTimeoutMS: 5000, connectTimeoutMS: 5000, monitorCommands: true,
  });
  const started = [];
  client.on('commandStarted', (event) => started.push(event));
  await client.connect();
  let steps = 0;
  try {
    currentStep = 'the server is a replica set primary';
    const hello = await client.db('admin').command({ hello: 1 });
    check('setName', hello.setName, 'rs0');
    check('isWritablePrimary', hello.isWritablePrimary, true);
    steps++;

    const db = client.db('real_clients_node_txn');
    await db.dropCollection('accounts').catch(() => {});
    const accounts = db.collection('accounts');
    await accounts.insertMany([{ _id: 'alice', balance: 100 }, { _id: 'bob', balance: 0 }]);

    currentStep = 'a retryable write';
    started.length = 0;
    await accounts.insertOne({ _id: 'carol', balance: 5 });
    const inserts = started.filter((e) => e.commandName === 'insert');
    check('inserts sent', inserts.length, 1);
    check('insert carries txnNumber (retryable)', inserts[0].command.txnNumber !== undefined, true);
    check('carol written once', await accounts.countDocuments({ _id: 'carol' }), 1);
    steps++;

    currentStep = 'withTransaction moves money';
    const session = client.startSession();
    try {
      await session.withTransaction(async () => {
        await accounts.updateOne({ _id: 'alice' }, { $inc: { balance: -30 } }, { session });
        await accounts.updateOne({ _id: 'bob' }, { $inc: { balance: 30 } }, { session });
      });
    } finally {
      await session.endSession();
    }
    check('alice', (await accounts.findOne({ _id: 'alice' })).balance, 70);
    check('bob', (await accounts.findOne({ _id: 'bob' })).balance, 30);
    steps++;

    currentStep = 'an abort leaves nothing';
    const aborting = client.startSession();
    try {
      aborting.startTransaction();
      await accounts.insertOne({ _id: 'dave', balance: 1 }, { session: aborting });
      await accounts.updateOne({ _id: 'alice' }, { $inc: { balance: -1000 } },
                               { session: aborting });
      check('dave inside', await accounts.countDocuments({ _id: 'dave' }, { session: aborting }), 1);
      await aborting.abortTransaction();
    } finally {
      await aborting.endSession();
    }
    check('dave after abort', await accounts.countDocuments({ _id: 'dave' }), 0);
    check('alice after abort', (await accounts.findOne({ _id: 'alice' })).balance, 70);
    steps++;

    currentStep = 'uncommitted writes are invisible to others';
    const committing = client.startSession();
    try {
      committing.startTransaction();
      await accounts.updateOne({ _id: 'bob' }, { $set: { balance: 999 } }, { session: committing });
      check('bob outside before commit', (await accounts.findOne({ _id: 'bob' })).balance, 30);
      await committing.commitTransaction();
    } finally {
      await committing.endSession();
    }
    check('bob after commit', (await accounts.findOne({ _id: 'bob' })).balance, 999);
    steps++;
    await db.dropCollection('accounts');
  } finally {
    await client.close();
  }
  return steps;
}

if (process.argv.length !== 3) {
  console.error('usage: node node_transactions_client.mjs mongodb://HOST:PORT/');
  process.exit(2);
}
try {
  const n = await main(process.argv[2]);
  console.log(`${label}: PASS (${n} steps)`);
} catch (e) {
  if (e instanceof Mismatch) {
    console.log(`${label}: FAIL at step '${currentStep}': ${e.message}`);
  } else {
    const extra = e && e.errorResponse ? ` server reply=${inspect(e.errorResponse)}` : '';
    console.log(`${label}: FAIL at step '${currentStep}': ${e && e.name}: ${e && e.message}${extra}`);
    console.error(e);
  }
  process.exit(1);
}
