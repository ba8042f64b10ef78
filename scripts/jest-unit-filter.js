// A jest --filter module for `npm run test:unit` (the module tests next to the code): leaves out test files whose first
// lines say `// @needs …` (a real peer or service — bind, postgres, redis, chromium, php, ldap — or the built program),
// so the inner loop runs in seconds with nothing installed beyond npm. test/needs-markers.test.ts keeps them true.
const { readFileSync } = require('node:fs');

/** The `@needs` words of a test file (from its first 5 lines), or [] when it needs nothing. */
function needsOf(path) {
  const head = readFileSync(path, 'utf8').split('\n', 5).join('\n');
  const match = /^\/\/ @needs ([a-z ]+)$/m.exec(head);
  return match ? match[1].trim().split(/\s+/) : [];
}

module.exports = (testPaths) => ({
  filtered: testPaths.filter((test) => needsOf(test).length === 0),
});
module.exports.needsOf = needsOf;
