// The PostgreSQL ledger's contender: a schema of the bench's own on the server
// CORRAL_BENCH_POSTGRES_URL (or CORRAL_TEST_POSTGRES_URL) names, dropped when
// the bench ends. Without either, the bench has no PostgreSQL rows and says so.
import { randomBytes } from "node:crypto";
import pg from "pg";

export const BENCH_POSTGRES_URL = process.env.CORRAL_BENCH_POSTGRES_URL || process.env.CORRAL_TEST_POSTGRES_URL || undefined;

/** A fresh schema's ledger URL, and a drop() that removes the schema. */
export function benchLedgerSchema() {
  if (BENCH_POSTGRES_URL === undefined) return undefined;
  const schema = `bench_${process.pid}_${randomBytes(3).toString("hex")}`;
  const url = new URL(BENCH_POSTGRES_URL);
  url.searchParams.set("schema", schema);
  return {
    schema,
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: BENCH_POSTGRES_URL, application_name: "corral-bench" });
      await client.connect();
      try {
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
}
