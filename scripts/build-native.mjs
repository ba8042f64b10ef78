#!/usr/bin/env node
// Builds the native addons (C with Node-API) with node-gyp: batched UDP for the DNS server
// (dns/server/transport/udp-batch) and batched ECDSA signing for the zone signer's threads (dns/dnssec/ec-sign).
// npm hands its own node-gyp to scripts (npm_config_node_gyp) and the Node headers' place (npm_config_nodedir), so
// nothing is downloaded. An addon is skipped when it is newer than its sources. Run by `npm run build`; a failure
// stops the build (g++ and make are needed, as for better-sqlite3).
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const addons = [
  { dir: join(root, 'dns', 'server', 'transport', 'udp-batch'), name: 'udp_batch' },
  { dir: join(root, 'dns', 'dnssec', 'ec-sign'), name: 'ec_sign' },
];
const fresh = ({ dir, name }) => {
  const built = join(dir, 'build', 'Release', `${name}.node`);
  const sources = [`${name}.c`, 'binding.gyp'].map((f) => join(dir, f));
  return existsSync(built) && sources.every((f) => statSync(f).mtimeMs <= statSync(built).mtimeMs);
};
const stale = addons.filter((addon) => !fresh(addon));
if (stale.length === 0) process.exit(0);

// outside npm (node scripts/build-native.mjs), the node-gyp of the npm installed beside node
const besideNode = join(
  dirname(process.execPath),
  '..',
  'lib',
  'node_modules',
  'npm',
  'node_modules',
  'node-gyp',
  'bin',
  'node-gyp.js',
);
const gyp = process.env.npm_config_node_gyp ?? (existsSync(besideNode) ? besideNode : undefined);
const [command, args] = gyp ? [process.execPath, [gyp]] : ['node-gyp', []];
// the headers of the node that runs this (never a download): npm's setting, else the ones installed beside node
const prefix = join(dirname(process.execPath), '..');
const nodedir =
  process.env.npm_config_nodedir ?? (existsSync(join(prefix, 'include', 'node', 'node_api.h')) ? prefix : undefined);
for (const { dir, name } of stale) {
  const result = spawnSync(
    command,
    [...args, 'rebuild', '--loglevel=warn', '-C', dir, ...(nodedir ? [`--nodedir=${nodedir}`] : [])],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  if (result.status !== 0) {
    console.error(`build-native: node-gyp failed (${result.error?.message ?? `exit ${result.status}`}) for ${dir}`);
    process.exit(1);
  }
  console.log(`build-native: ${join(dir, 'build', 'Release', `${name}.node`)}`);
}
