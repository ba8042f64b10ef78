/** How SQLite and PostgreSQL spell the column types and expressions a schema needs, so one migration fits both. */
export interface SqlDialect {
  /** A table as statements must name it (schema-qualified on PostgreSQL). */
  table(name: string): string;
  /** Text that is sorted or compared: byte order, like SQLite's BINARY (PostgreSQL: `COLLATE "C"`). */
  key: string;
  /** Text that is only stored. */
  text: string;
  integer: string;
  /** A primary key the database numbers itself, rising with each row inserted (never reused). */
  rowNumber: string;
  /** An unsigned 32-bit number: beyond a PostgreSQL `integer`. */
  uint32: string;
  /** A boolean column named `column` (SQLite has none: 0/1 with a check). */
  boolean(column: string): string;
  timestamp: string;
  /** The current time as an expression, in the form the dialect keeps timestamps in. */
  now: string;
  /** After a table's closing parenthesis (SQLite: ` STRICT`). */
  tableSuffix: string;
}

export const SQLITE_DIALECT: SqlDialect = {
  table: (name) => name,
  key: 'TEXT',
  text: 'TEXT',
  integer: 'INTEGER',
  rowNumber: 'INTEGER PRIMARY KEY AUTOINCREMENT',
  uint32: 'INTEGER',
  boolean: (column) => `INTEGER CHECK (${column} IN (0, 1))`,
  timestamp: 'TEXT',
  // ISO 8601 UTC with milliseconds, as Date.prototype.toISOString writes it.
  now: `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`,
  tableSuffix: ' STRICT',
};

/** `quotedSchema`: the schema identifier, already quoted (`quoteIdent`). */
export function postgresDialect(quotedSchema: string): SqlDialect {
  return {
    table: (name) => `${quotedSchema}.${name}`,
    key: 'text COLLATE "C"',
    text: 'text',
    integer: 'integer',
    rowNumber: 'bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY',
    uint32: 'bigint',
    boolean: () => 'boolean',
    timestamp: 'timestamptz',
    now: 'now()',
    tableSuffix: '',
  };
}
