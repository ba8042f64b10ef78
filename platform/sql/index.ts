export { SQLITE_DIALECT, postgresDialect, type SqlDialect } from './dialect';
export { isConnectionError, isRetryable, sqlFailure, type SqlFailure, type SqlFailureKind } from './errors';
export {
  SchemaTooNewError,
  appliedVersionsSql,
  latestVersion,
  migrationsTableSql,
  pendingStatements,
  type Migration,
  type MigrationList,
} from './migrations';
export { isSchemaName, migratePostgres, quoteIdent, redactUrl } from './postgres';
export { migrateSqlite } from './sqlite';
export {
  MAX_TRANSACTION_ATTEMPTS,
  inTransaction,
  type TransactionClient,
  type TransactionOptions,
  type TransactionPool,
} from './transaction';
