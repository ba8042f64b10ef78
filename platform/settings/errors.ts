import type { z } from 'zod';

/** A configuration value that does not validate; the message names the key(s) and what is allowed. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** `ENV (key.path)` when the top key has an environment variable, else the dotted key. */
function keyLabel(path: PropertyKey[], envNames: Readonly<Record<string, string>>): string {
  const key = path.map(String).join('.');
  const env = envNames[String(path[0])];
  return env ? `${env} (${key})` : key;
}

function describeIssue(issue: z.core.$ZodIssue, envNames: Readonly<Record<string, string>>): string {
  const label = issue.path.length ? keyLabel(issue.path, envNames) : 'config';
  switch (issue.code) {
    case 'invalid_value':
      return `${label} must be one of: ${issue.values.map(String).join(', ')}`;
    case 'unrecognized_keys':
      return `${label}: unknown key(s) ${issue.keys.join(', ')}`;
    default:
      return `${label}: ${issue.message}`;
  }
}

/** Validates `input`; a bad value throws a ConfigError with one line per problem, each naming its key. */
export function parseSettings<T extends z.ZodType>(
  schema: T,
  input: unknown,
  envNames: Readonly<Record<string, string>> = {},
): z.infer<T> {
  const result = schema.safeParse(input);
  if (!result.success)
    throw new ConfigError(
      `Invalid configuration:\n${result.error.issues.map((i) => `  - ${describeIssue(i, envNames)}`).join('\n')}`,
    );
  return result.data;
}
