// Drives `mongostore serve` (replica-set mode, its default) with the official Node.js
// driver's sessions: a retryable write, session.withTransaction moving money between two
// documents, an abort that leaves nothing, and uncommitted writes invisible to others.
//
// Usage: node node_transactions_client.mjs mongodb://127.0.0.1:PORT/
//
// The first mismatch prints which step failed and exits 1; success prints one line, exits 0.
import { check, connect, run } from './real_client.mjs';

async function main(uri, steps) {
  const client = connect(uri, { monitorCommands: true });
  const started = [];
  client.on('commandStarted', (event) => started.push(event));
  await client.connect();
  try {
    steps.start('the server is a replica set primary');
    const hello = await client.db('admin').command({ hello: 1 });
    check('setName', hello.setName, 'rs0');
    check('isWritablePrimary', hello.isWritablePrimary, true);
    steps.done();

    const db = client.db('real_clients_node_txn');
    await db.dropCollection('accounts').catch(() => {});
    const accounts = db.collection('accounts');
    await accounts.insertMany([{ _id: 'alice', balance: 100 }, { _id: 'bob', balance: 0 }]);

    steps.start('a retryable write');
    started.length = 0;
    await accounts.insertOne({ _id: 'carol', balance: 5 });
    const inserts = started.filter((e) => e.commandName === 'insert');
    check('inserts sent', inserts.length, 1);
    check('insert carries txnNumber (retryable)', inserts[0].command.txnNumber !== undefined, true);
    check('carol written once', await accounts.countDocuments({ _id: 'carol' }), 1);
    steps.done();

    steps.start('withTransaction moves money');
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
    steps.done();

    steps.start('an abort leaves nothing');
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
    steps.done();

    steps.start('uncommitted writes are invisible to others');
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
    steps.done();
    await db.dropCollection('accounts');
  } finally {
    await client.close();
  }
}

await run('node mongodb driver {version} transactions', main, 'node_transactions_client.mjs');
