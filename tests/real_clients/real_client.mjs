// What the Node.js driver scripts here share: loading the driver, the connection to the
// server under test, the checks, and the one result line run.sh reads
// ("<label>: PASS (N steps)" or "<label>: FAIL at step '<step>': <why>", details on stderr).
//
// A script exports nothing; it defines `async function main(uri, steps)`, calls
// steps.start('what') before each step and steps.done() after it, and ends with
// `await run(label, main, usage)` (`label` may name the driver's {version}).
import { createRequire } from 'node:module';
import { isDeepStrictEqual, inspect } from 'node:util';

const require = createRequire(import.meta.url);
let loaded;
let version = 'unknown';
try {
  loaded = await import('mongodb');
  version = require('mongodb/package.json').version;
} catch (e) {
  console.log(`node mongodb driver: FAIL: cannot load the 'mongodb' package (${e.message}); ` +
              'run npm ci in tests/real_clients');
  process.exit(2);
}
export const mongodb = loaded;

export class Mismatch extends Error {}

export function show(value) {
  return inspect(value, { depth: 6, breakLength: Infinity });
}

export function check(what, actual, expected) {
  if (!isDeepStrictEqual(actual, expected)) {
    throw new Mismatch(`${what}: expected ${show(expected)}, got ${show(actual)}`);
  }
}

// A client of the server under test, with timeouts that fail a dead server quickly.
export function connect(uri, options = {}) {
  return new mongodb.MongoClient(uri, {
    serverSelectionTimeoutMS: 5000, connectTimeoutMS: 5000, socketTimeoutMS: 10000, ...options,
  });
}

// The step under way (a failure names it) and how many passed.
class Steps {
  current = 'connect';
  passed = 0;
  start(name) { this.current = name; }
  done() { this.passed++; }
}

export async function run(label, main, usage) {
  if (process.argv.length !== 3) {
    console.error(`usage: node ${usage} mongodb://HOST:PORT/`);
    process.exit(2);
  }
  const name = label.replace('{version}', version);
  const steps = new Steps();
  try {
    await main(process.argv[2], steps);
  } catch (e) {
    if (e instanceof Mismatch) {
      console.log(`${name}: FAIL at step '${steps.current}': ${e.message}`);
    } else {
      const extra = e && e.errorResponse ? ` server reply=${show(e.errorResponse)}` : '';
      console.log(`${name}: FAIL at step '${steps.current}': ${e && e.name}: ${e && e.message}${extra}`);
      console.error(e);
    }
    process.exit(1);
  }
  console.log(`${name}: PASS (${steps.passed} steps)`);
}
