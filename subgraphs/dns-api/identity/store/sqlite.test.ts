/** The user store contract on SQLite (a temp file per database), plus the file: pragmas, tables, versions. */
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '../../../../dns/store';
import { expectIdentityError } from '../testing/index';
import { openUserStore } from './index';
import { openSqliteUserStore } from './sqlite';
import { describeUserStoreContract } from './user-store.contract';

const user = (username: string) => ({
  id: randomUUID(),
  username,
  email: `${username}@example.com`,
  role: 'viewer' as const,
  passwordHash: 'scrypt$x',
  createdAt: '2024-03-05T10:00:00.000Z',
});

const dir = mkdtempSync(join(tmpdir(), 'user-store-sqlite-'));
let n = 0;

describeUserStoreContract(
  'sqlite',
  async () => {
    const file = join(dir, `contract-${++n}.sqlite`);
    return { open: () => openSqliteUserStore({ file }) };
  },
  async () => rmSync(dir, { recursive: true, force: true }),
);

describe('SQLite user store specifics', () => {
  let own: string;
  beforeAll(() => {
    own = mkdtempSync(join(tmpdir(), 'user-store-sqlite-own-'));
  });
  afterAll(() => rmSync(own, { recursive: true, force: true }));

  test('shares the zone store file: api_ tables beside the zone tables, WAL mode, a busy timeout', async () => {
    const zones = await openSqliteStore({ file: join(own, 'zones.sqlite') });
    const users = await openUserStore({ dataDir: own });
    try {
      await users.countUsers();
      const db = new Database(join(own, 'zones.sqlite'), { readonly: true });
      try {
        const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
        expect(tables).toEqual(
          expect.arrayContaining(['api_schema_migrations', 'api_signing_keys', 'api_users', 'records', 'zones']),
        );
        expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
        expect(db.prepare('SELECT version, name FROM api_schema_migrations').all()).toEqual([
          { version: 1, name: 'users and signing keys' },
          { version: 2, name: 'signing key rotation' },
        ]);
      } finally {
        db.close();
      }
      // the zone store still works on its file
      await zones.createZone('users-beside.example', {
        adminEmail: 'hostmaster@users-beside.example',
        primaryNs: 'ns1.users-beside.example',
        refresh: 10800,
        retry: 3600,
        expire: 604800,
        minimum: 3600,
        defaultTtl: 3600,
      });
    } finally {
      await users.close();
      await zones.close();
    }
  });

  test('a write waits for another process holding the write lock (busy timeout); a short timeout fails', async () => {
    const file = join(own, 'busy.sqlite');
    const store = await openSqliteUserStore({ file, busyTimeoutMs: 10_000 });
    const impatient = await openSqliteUserStore({ file, busyTimeoutMs: 50 });
    // Another process takes the write lock, says so, keeps it for 500 ms, then lets go.
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const db = new (require('better-sqlite3'))(process.argv[1]);
         db.exec('BEGIN IMMEDIATE'); process.stdout.write('locked\\n');
         Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
         db.exec('ROLLBACK'); db.close();`,
        file,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const exited = new Promise((resolve) => holder.on('exit', resolve));
    try {
      await new Promise<void>((resolve, reject) => {
        holder.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('locked') && resolve());
        holder.on('exit', (code) => reject(new Error(`the lock holder exited early (${code})`)));
      });
      await expectIdentityError(impatient.createUser(user('hasty')), 'UNAVAILABLE', {
        message: /^the user database is busy: /,
      });
      const started = Date.now();
      await store.createUser(user('patient')); // blocks until the holder lets go
      expect(Date.now() - started).toBeGreaterThan(100);
      expect((await store.listUsers()).map((u) => u.username)).toEqual(['patient']);
    } finally {
      await exited;
      await store.close();
      await impatient.close();
    }
  });

  test('the database of newer software is refused with a message saying so', async () => {
    const file = join(own, 'newer.sqlite');
    await (await openSqliteUserStore({ file })).close();
    const db = new Database(file);
    db.prepare("INSERT INTO api_schema_migrations (version, name, applied_at) VALUES (99, 'future', 'x')").run();
    db.close();
    await expectIdentityError(openSqliteUserStore({ file }), 'UNAVAILABLE', {
      message: 'the user tables have schema version 99, newer than this software knows (2)',
    });
  });

  test('a file that cannot be opened is UNAVAILABLE naming it', async () => {
    const file = join(own, 'no-such-dir', 'x.sqlite');
    await expectIdentityError(openSqliteUserStore({ file }), 'UNAVAILABLE', {
      message: new RegExp(`^cannot open the user database ${file.replace(/[.]/g, '\\.')}: `),
    });
  });
});
