// @needs build
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../gateway/host/paths';
import { internedNames, oneByteText } from '../../gateway/graph/federation/one-byte-schema';

const PLANNER_JS = join(PROJECT_ROOT, 'dist', 'gateway', 'graph', 'federation', 'operation-planner.js');
const SUPERGRAPH = join(PROJECT_ROOT, 'test', 'bench', 'gwbench', 'supergraph.graphql');

describe('oneByteText', () => {
  it.each([
    ['ASCII', 'type Query { users: [User] }'],
    ['Latin-1', 'type Query { "Café" users: [User] }'],
    ['beyond Latin-1 (kept as it is)', 'type Query { "— ’" users: [User] }'],
    ['empty', ''],
  ])('%s: the same text', (_name, text) => {
    expect(oneByteText(text)).toBe(text);
  });
});

describe('internedNames', () => {
  it('holds every name of the SDL', () => {
    const names = internedNames('type Query { users(first: Int): [User] } type User { id: ID! }');
    expect(Object.keys(names).sort()).toEqual(['ID', 'Int', 'Query', 'User', 'first', 'id', 'users']);
  });
});

/**
 * What the names are for: once a planner is built, a subgraph answer's keys are interned one-byte strings, so the
 * responses built from them serialise one-byte. Asked of V8 itself (%DebugPrint names a string's representation), in
 * a child process over the built planner.
 */
test('after a planner is built over a supergraph, its names are interned one-byte', () => {
  expect(existsSync(PLANNER_JS)).toBe(true);
  const sdl = readFileSync(SUPERGRAPH, 'utf8').replaceAll('http://0.0.0.0:4200/', 'http://127.0.0.1:4200/');
  const script = `
    const { OperationPlanner } = require(${JSON.stringify(PLANNER_JS)});
    const planner = new OperationPlanner(require('fs').readFileSync(0, 'utf8'));
    gc();
    // keys of a subgraph answer, as JSON.parse interns them (the text decoded one-byte, as a body is)
    const answer = JSON.parse(Buffer.from('{"data":{"users":[],"topProducts":[]}}').toString('utf8'));
    for (const key of Object.keys(answer.data)) %DebugPrint(key);
    if (!planner.names) throw new Error('no names');
  `;
  const out = execFileSync(process.execPath, ['--allow-natives-syntax', '--expose-gc', '-e', script], {
    input: sdl,
    encoding: 'utf8',
  });
  const types = [...out.matchAll(/- type: (\S+)/g)].map((m) => m[1]);
  expect(types).toEqual(['ONE_BYTE_INTERNALIZED_STRING_TYPE', 'ONE_BYTE_INTERNALIZED_STRING_TYPE']);
});
