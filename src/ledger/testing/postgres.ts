/**
 * @module src/ledger/testing/postgres
 * The PostgreSQL tests' server and schemas. The server is the one
 * CORRAL_TEST_POSTGRES_URL names (`.ci/run` sets it); without it the tests
 * skip with SKIP_POSTGRES, which says how to run them. Every test run works
 * in schemas of its own, named after its process and a random tag, so
 * parallel runs never meet, and drops them at the end.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";

export const TEST_POSTGRES_URL = process.env.CORRAL_TEST_POSTGRES_URL;

export const SKIP_POSTGRES: string | false =
  TEST_POSTGRES_URL === undefined || TEST_POSTGRES_URL === ""
    ? "CORRAL_TEST_POSTGRES_URL is not set: run CORRAL_TEST_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/test npm test -- postgres"
    : false;

export function postgresUrl(): string {
  if (TEST_POSTGRES_URL === undefined || TEST_POSTGRES_URL === "") throw new Error("corral test: CORRAL_TEST_POSTGRES_URL is not set");
  return TEST_POSTGRES_URL;
}

/** One query on a connection of its own, for a test's setup and checks. */
export async function adminQuery<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: postgresUrl(), application_name: "corral-test-admin" });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** Fresh schema names for one test file; dropAll() removes every one made. */
export function testSchemas(label: string): { next(): string; dropAll(): Promise<void> } {
  const tag = `t_${label}_${process.pid}_${randomBytes(3).toString("hex")}`;
  const made: string[] = [];
  return {
    next() {
      const name = `${tag}_${made.length + 1}`;
      made.push(name);
      return name;
    },
    async dropAll() {
      if (made.length === 0) return;
      await adminQuery(made.map((name) => `DROP SCHEMA IF EXISTS "${name}" CASCADE`).join("; "));
    },
  };
}

/** Ends every connection a store (or host) named `name` has open, as an operator or a failover would. */
export async function terminateConnections(namePrefix: string): Promise<number> {
  const rows = await adminQuery<{ ended: boolean }>(
    "SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE application_name LIKE $1 AND pid <> pg_backend_pid()",
    [`${namePrefix}%`],
  );
  return rows.filter((row) => row.ended).length;
}
