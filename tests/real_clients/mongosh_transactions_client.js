// Drives `mongostore serve` (replica-set mode, its default) with mongosh's sessions:
// session.startTransaction() / commitTransaction() moving money between two documents, an
// abortTransaction() that leaves nothing, and a transaction's writes invisible to others
// before its commit (the checks of pymongo_transactions_client.py and
// node_transactions_client.mjs, in the shell's own helpers). Run by run.sh as
//   mongosh mongodb://127.0.0.1:PORT/ --quiet --file mongosh_transactions_client.js
// Prints one result line: "mongosh transactions: PASS (...)" or
// "mongosh transactions: FAIL at step '...': ...".
let step = 'start';
let steps = 0;
function check(what, actual, expected) {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) {
    throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
  }
}
const DB_NAME = 'real_clients_mongosh_txn';
try {
  step = 'the server is a replica set primary';
  const hello = db.getSiblingDB('admin').runCommand({ hello: 1 });
  check('setName', hello.setName, 'rs0');
  check('isWritablePrimary', hello.isWritablePrimary, true);
  steps++;

  const bank = db.getSiblingDB(DB_NAME);
  bank.accounts.drop();
  bank.accounts.insertMany([{ _id: 'alice', balance: 100 }, { _id: 'bob', balance: 0 }]);
  const balance = (id) => bank.accounts.findOne({ _id: id }).balance;

  step = 'startTransaction + commitTransaction move money';
  const moving = db.getMongo().startSession();
  try {
    const accounts = moving.getDatabase(DB_NAME).accounts;
    moving.startTransaction({ readConcern: { level: 'snapshot' }, writeConcern: { w: 'majority' } });
    accounts.updateOne({ _id: 'alice' }, { $inc: { balance: -30 } });
    accounts.updateOne({ _id: 'bob' }, { $inc: { balance: 30 } });
    check('bob inside', accounts.findOne({ _id: 'bob' }).balance, 30);
    moving.commitTransaction();
  } finally {
    moving.endSession();
  }
  check('alice', balance('alice'), 70);
  check('bob', balance('bob'), 30);
  steps++;

  step = 'abortTransaction leaves nothing';
  const aborting = db.getMongo().startSession();
  try {
    const accounts = aborting.getDatabase(DB_NAME).accounts;
    aborting.startTransaction();
    accounts.insertOne({ _id: 'dave', balance: 1 });
    accounts.updateOne({ _id: 'alice' }, { $inc: { balance: -1000 } });
    check('dave inside', accounts.countDocuments({ _id: 'dave' }), 1);
    aborting.abortTransaction();
  } finally {
    aborting.endSession();
  }
  check('dave after abort', bank.accounts.countDocuments({ _id: 'dave' }), 0);
  check('alice after abort', balance('alice'), 70);
  steps++;

  step = 'uncommitted writes are invisible to others';
  const committing = db.getMongo().startSession();
  try {
    const accounts = committing.getDatabase(DB_NAME).accounts;
    committing.startTransaction();
    accounts.updateOne({ _id: 'bob' }, { $set: { balance: 999 } });
    check('bob outside before commit', balance('bob'), 30);
    committing.commitTransaction();
  } finally {
    committing.endSession();
  }
  check('bob after commit', balance('bob'), 999);
  check('total', balance('alice') + balance('bob'), 1069);
  steps++;
  bank.accounts.drop();
  print(`mongosh transactions: PASS (${steps} steps)`);
} catch (e) {
  print(`mongosh transactions: FAIL at step '${step}': ${e.message}`);
  quit(1);
}
