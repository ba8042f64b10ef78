/**
 * Jest's global setup and teardown: every test run gets a temporary root of its own (TMPDIR, which os.tmpdir() and
 * the child processes tests start read), removed whole at the end, so a test that leaves a data directory behind —
 * some hold DNSSEC master keys — leaves nothing on the machine. The teardown says how much it found.
 */
const { chmodSync, mkdtempSync, readdirSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const VARIABLE = 'ONEGRAPH_TEST_TMP_ROOT';

function setup() {
  const root = mkdtempSync(join(tmpdir(), 'onegraph-jest-'));
  // others may pass through (a test runs the program as another user on a directory of its own), not list it
  chmodSync(root, 0o711);
  process.env[VARIABLE] = root;
  process.env.TMPDIR = root;
}

function teardown() {
  const root = process.env[VARIABLE];
  if (!root) return;
  const left = readdirSync(root).length;
  rmSync(root, { recursive: true, force: true });
  if (left > 0) console.log(`\ntemporary files: ${left} entries the tests left in ${root} removed`);
}

module.exports = { setup, teardown };
