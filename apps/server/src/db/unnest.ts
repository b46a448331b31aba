import { getTableColumns, getTableName, is, SQL, sql } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import type { Db } from "./client.ts";

/**
 * Many rows in one `insert … select * from unnest($1::type[], …)`: one array parameter per
 * column instead of one per value. drizzle's multi-row VALUES builds and checks every value
 * (37 % of the alarm pipeline's CPU, docs/performance.md "alarms"); this builds one statement
 * whatever the batch's size. A column some rows give and others lack takes, in those, its
 * default as drizzle knows it (a value or a function; null when nullable); values go through
 * each column's own driver mapping, and rows come back mapped by it (none with
 * `returning: false`, for a writer that needs nothing back).
 */
export async function insertUnnest<T extends PgTable>(
  db: Db,
  table: T,
  rows: readonly T["$inferInsert"][],
  options: { onConflictDoNothing?: boolean; returning?: boolean } = {},
): Promise<T["$inferSelect"][]> {
  if (rows.length === 0) return [];
  const columns = getTableColumns(table) as Record<string, PgColumn>;
  const keys = new Set<string>();
  for (const row of rows)
    for (const [key, value] of Object.entries(row)) if (value !== undefined) keys.add(key);
  const given = [...keys].map((key) => {
    const column = columns[key];
    if (!column) throw new Error(`${getTableName(table)} has no column ${key}`);
    const fallback = missing(table, key, column);
    const values = rows.map((row) => {
      const value = row[key as never] as unknown;
      const known = value === undefined ? fallback() : value;
      return known === null ? null : column.mapToDriverValue(known);
    });
    return { column, values };
  });
  const names = sql.join(
    given.map(({ column }) => sql.identifier(column.name)),
    sql`, `,
  );
  const arrays = sql.join(
    given.map(({ column, values }) => sql`${sql.param(values)}::${sql.raw(column.getSQLType())}[]`),
    sql`, `,
  );
  const conflict: SQL = options.onConflictDoNothing ? sql` on conflict do nothing` : sql``;
  const returning: SQL = options.returning === false ? sql`` : sql` returning *`;
  const result = await db.execute(
    sql`insert into ${table} (${names}) select * from unnest(${arrays})${conflict}${returning}`,
  );
  if (options.returning === false) return [];
  const byName = new Map(
    Object.entries(columns).map(([key, column]) => [column.name, { key, column }]),
  );
  return (result as unknown as { rows: Record<string, unknown>[] }).rows.map((raw) => {
    const row: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(raw)) {
      const found = byName.get(name);
      if (found) row[found.key] = value === null ? null : found.column.mapFromDriverValue(value);
    }
    return row as T["$inferSelect"];
  });
}

/** The value of a column a row lacks; a column with only an SQL default must be given. */
function missing(table: PgTable, key: string, column: PgColumn): () => unknown {
  if (column.defaultFn) return column.defaultFn;
  if (column.default !== undefined && !is(column.default, SQL)) return () => column.default;
  if (!column.notNull) return () => null;
  return () => {
    throw new Error(`${getTableName(table)}: a row lacks ${key}`);
  };
}

/**
 * `column = any($1::type[])`: a list of values as one array parameter. drizzle's `inArray`
 * makes one parameter of each value and builds the statement anew each time: for a batch's
 * alarm or send ids that was 6 % of the server's thread at 1,000 alarms/s (docs/performance.md,
 * "alarms"). An empty list matches nothing, as `inArray`'s does.
 */
export function anyOf<C extends PgColumn>(column: C, values: readonly C["_"]["data"][]): SQL {
  const mapped = values.map((value) => column.mapToDriverValue(value));
  return sql`${column} = any(${sql.param(mapped)}::${sql.raw(arrayElementType(column))}[])`;
}

/** A column's type as an array's element: a serial column holds integers of its size. */
function arrayElementType(column: PgColumn): string {
  const type = column.getSQLType();
  const serial = { smallserial: "smallint", serial: "integer", bigserial: "bigint" }[type];
  return serial ?? type;
}
