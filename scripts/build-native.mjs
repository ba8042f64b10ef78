#!/usr/bin/env node
// Builds the native addon of batched UDP for the DNS server (dns/server/transport/udp-batch, C with Node-API) with node-gyp:
// npm hands its own node-gyp to scripts (npm_config_node_gyp) and the Node headers' place (npm_config_nodedir), so
// nothing is downloaded. Skipped when the built addon is newer than its sources. Run by `npm run build`; a failure
// stops the build (g++ and make are needed, as for better-sqlite3).
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dir = join(root, 'dns', 'server', 'transport', 'udp-batch');
const built = join(dir, 'build', 'Release', 'udp_batch.node');
const sources = ['udp_batch.c', 'binding.gyp'].map((f) => join(dir, f));

if (existsSync(built) && sources.every((f) => statSync(f).mtimeMs <= statSync(built).mtimeMs)) process.exit(0);

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
const result = spawnSync(
  command,
  [...args, 'rebuild', '--loglevel=warn', '-C', dir, ...(nodedir ? [`--nodedir=${nodedir}`] : [])],
  { stdio: ['ignore', 'ignore', 'inherit'] },
);
if (result.status !== 0) {
  console.error(`build-native: node-gyp failed (${result.error?.message ?? `exit ${result.status}`}) for ${dir}`);
  process.exit(1);
}
console.log(`build-native: ${built}`);
