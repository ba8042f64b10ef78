import pg from 'pg';

/** Test helper: drops the schemas a test made (a database that cannot be reached was reported by the tests already). */
export async function dropSchemas(url: string, schemas: readonly string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
  } catch {
    return;
  }
  try {
    for (const s of schemas) await client.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
  } finally {
    await client.end();
  }
}
