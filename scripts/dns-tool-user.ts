import { resolve } from 'node:path';
import { Command } from 'commander';
import { checkPassword, hashPassword } from '../platform/passwords';
import {
  addUser,
  checkUserName,
  parseRoles,
  readUsersFile,
  removeUser,
  setPassword,
  writeUsersFileAtomically,
} from '../subgraphs/dns-tool/tool/users-file-edit';
import { UsersFileError } from '../subgraphs/dns-tool/tool/users-file';
import { PasswordInputError, readNewPassword } from './read-password';

/** `npm run` starts commands in the project's folder: a relative FILE is meant from where npm was run. */
const fromCaller = (file: string): string => resolve(process.env.INIT_CWD ?? process.cwd(), file);

/**
 * Reads the password (only once the edit's checks passed), refuses a weak one as the DNS API does (too short, the
 * user name, white space, too few different characters, a common password), and hashes it with the login's cost.
 */
const newHash = (prompt: string, user: string) => async (): Promise<string> => {
  const checked = checkPassword(await readNewPassword(process.stdin, prompt), user);
  if (!checked.ok) throw new PasswordInputError(checked.problem.message);
  return hashPassword(checked.value);
};

/**
 * `npm run dns-tool-user -- add|passwd|remove FILE USERNAME`: keeps the DNS tool's users file (file login,
 * dnsTool.usersFile). Passwords come from standard input (one line) or, at a terminal, a prompt without echo; the
 * file gets only their scrypt hashes.
 */
function program(): Command {
  const cli = new Command()
    .name('npm run dns-tool-user --')
    .description(
      "Adds a user to the DNS tool's users file (dnsTool.usersFile), changes a password or removes a user. " +
        'The password is read from standard input (one line), or asked for without echo at a terminal. ' +
        'The file is written whole (mode 0600).',
    );
  cli
    .command('add')
    .description('add a user (the file is created when missing)')
    .argument('<file>', 'the users file')
    .argument('<username>', 'user name: 1 to 128 of A-Z a-z 0-9 . _ @ -')
    .option('--roles <list>', 'comma-separated roles (they win over dnsTool.usersRoles for this user)')
    .option('--disabled', 'add the user disabled (the login says "This user is disabled")')
    .action(async (fileArg: string, user: string, opts: { roles?: string; disabled?: boolean }) => {
      const file = fromCaller(fileArg);
      checkUserName(user);
      const roles = parseRoles(opts.roles ?? '');
      const options = { roles, enabled: opts.disabled !== true };
      const text = await addUser(
        readUsersFile(file, true),
        user,
        options,
        newHash(`Password for ${user}: `, user),
        file,
      );
      writeUsersFileAtomically(file, text);
      console.log(`added ${user} to ${file}`);
    });
  cli
    .command('passwd')
    .description("replace a user's password (enabled flag and roles stay)")
    .argument('<file>', 'the users file')
    .argument('<username>', 'the user')
    .action(async (fileArg: string, user: string) => {
      const file = fromCaller(fileArg);
      const text = await setPassword(
        readUsersFile(file, false),
        user,
        newHash(`New password for ${user}: `, user),
        file,
      );
      writeUsersFileAtomically(file, text);
      console.log(`changed the password of ${user} in ${file}`);
    });
  cli
    .command('remove')
    .description('remove a user')
    .argument('<file>', 'the users file')
    .argument('<username>', 'the user')
    .action((fileArg: string, user: string) => {
      const file = fromCaller(fileArg);
      writeUsersFileAtomically(file, removeUser(readUsersFile(file, false), user, file));
      console.log(`removed ${user} from ${file}`);
    });
  return cli;
}

program()
  .parseAsync(process.argv)
  .catch((err: unknown) => {
    const known = err instanceof UsersFileError || err instanceof PasswordInputError;
    console.error(known ? `dns-tool-user: ${err.message}` : err);
    process.exit(1);
  });
