import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Command } from 'commander';
import { ConfigError, loadConfig } from '../gateway/host/config/load';
import { settingName } from '../gateway/host/config/flags';
import { SQLITE_FILE_NAME, StoreError } from '../dns/store';
import { IdentityError, openUserStore, resetPassword, userToReset } from '../subgraphs/dns-api/identity';
import { PasswordInputError, readNewPassword } from './read-password';

/** `npm run` starts commands in the project's folder: a relative path is meant from where npm was run. */
const fromCaller = (path: string): string => resolve(process.env.INIT_CWD ?? process.cwd(), path);

interface StoreOptions {
  dataDir?: string;
  databaseUrl?: string;
  config?: string;
}

/**
 * `npm run dns-api-admin -- reset-password [USER]`: sets a DNS API user's password (admin by default) in the store the
 * server uses — the same DATA_DIR / DATABASE_URL / CONFIG as `npm start`, or the flags — with the server running or
 * not. The password comes from standard input (one line) or, at a terminal, a prompt without echo; never from argv.
 */
function program(): Command {
  const cli = new Command()
    .name('npm run dns-api-admin --')
    .description("Sets a DNS API user's password from this machine, for an operator locked out of the API.");
  cli
    .command('reset-password')
    .description(
      "set the user's password (read from standard input, one line, or asked for without echo at a terminal) and " +
        'end every token the user holds',
    )
    .argument('[username]', 'the user', 'admin')
    .option('--data-dir <dir>', `the data directory holding the SQLite store [DATA_DIR] (default: ./data)`)
    .option('--database-url <url>', 'the PostgreSQL store instead [DATABASE_URL]')
    .option('--config <file>', 'the configuration file the server uses [CONFIG]')
    .action(async (username: string, opts: StoreOptions) => {
      const config = loadConfig({
        flags: {
          ...(opts.dataDir !== undefined && { dataDir: fromCaller(opts.dataDir) }),
          ...(opts.databaseUrl !== undefined && { databaseUrl: opts.databaseUrl }),
        },
        ...(opts.config !== undefined && { file: fromCaller(opts.config) }),
      });
      const sqlite = join(config.dataDir, SQLITE_FILE_NAME);
      // Opening a missing SQLite file would make an empty store: the wrong directory, said as such.
      if (config.databaseUrl === undefined && !existsSync(sqlite))
        throw new ConfigError(
          `no DNS API store at ${resolve(sqlite)}: set ${settingName('dataDir')} to the server's data directory, or ` +
            `${settingName('databaseUrl')} to its PostgreSQL store`,
        );
      const store = await openUserStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
      try {
        const user = await userToReset(store, username);
        const password = await readNewPassword(process.stdin, `New password for ${user.username}: `);
        const updated = await resetPassword(store, user, password);
        console.log(
          `dns-api-admin: the password of ${updated.username} is set; the tokens it held no longer work` +
            (updated.disabled
              ? ` (the user is disabled: an admin enables it with PATCH /api/v1/users/${updated.id})`
              : ''),
        );
      } finally {
        await store.close();
      }
    });
  return cli;
}

program()
  .parseAsync(process.argv)
  .catch((err: unknown) => {
    const known =
      err instanceof ConfigError ||
      err instanceof StoreError ||
      err instanceof IdentityError ||
      err instanceof PasswordInputError;
    console.error(known ? `dns-api-admin: ${err.message}` : err);
    process.exit(1);
  });
