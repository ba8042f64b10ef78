#!/usr/bin/env node
// npm ci refuses a lock file that lacks any optional dependency, even a platform package it would skip here. The
// registry this project installs from serves only some platforms' builds of some native packages (unrs-resolver's
// bindings, for one), so `npm install` cannot record the others. This adds a lock entry for each missing
// platform-specific optional dependency, with the os/cpu/libc its name says: npm ci then skips it on any other
// platform without fetching it. Run after every `npm install` that rewrites the lock (npm run lockfile).
import { readFileSync, writeFileSync } from 'node:fs';

const PLATFORM =
  /-(android|darwin|freebsd|linux|openharmony|win32|netbsd|openbsd|sunos|aix)-([a-z0-9]+)(?:-(gnueabihf|musleabihf|eabi|gnu|musl|msvc))?$/;
const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const packages = lock.packages;
const added = [];
for (const [path, meta] of Object.entries(packages)) {
  for (const [dep, version] of Object.entries(meta.optionalDependencies ?? {})) {
    const nested = `${path ? `${path}/` : ''}node_modules/${dep}`;
    const top = `node_modules/${dep}`;
    if (packages[nested] || packages[top]) continue;
    const match = PLATFORM.exec(dep);
    if (!match) {
      console.error(
        `cannot tell the platform of the optional dependency ${dep}: add it with npm install on that platform`,
      );
      process.exitCode = 1;
      continue;
    }
    const [, os, cpu, abi] = match;
    const entry = { version, cpu: [cpu], ...(meta.dev ? { dev: true } : {}), optional: true, os: [os] };
    if (abi === 'gnu' || abi === 'gnueabihf') entry.libc = ['glibc'];
    if (abi === 'musl' || abi === 'musleabihf') entry.libc = ['musl'];
    packages[top] = entry;
    added.push(dep);
  }
}
// npm orders entries with localeCompare('en'): the same order keeps the diff to the added entries.
const sorted = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => a.localeCompare(b, 'en')));
writeFileSync(file, `${JSON.stringify({ ...lock, packages: sorted }, null, 2)}\n`);
console.log(
  added.length
    ? `package-lock.json: added ${added.length} platform packages npm ci needs: ${added.join(', ')}`
    : 'package-lock.json: complete',
);
