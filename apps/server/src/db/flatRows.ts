import { Column, type DriverValueDecoder, is, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { PgPreparedQuery, PreparedQueryConfig } from "drizzle-orm/pg-core";
import { PgliteDatabase } from "drizzle-orm/pglite";
import type { Db } from "./client.ts";

/** A field of a flat selection: a column, or an expression typed by `sql<T>` (and `mapWith`). */
type Field = Column | SQL<unknown>;

type Value<F> = F extends Column
  ? F["_"]["notNull"] extends true
    ? F["_"]["data"]
    : F["_"]["data"] | null
  : F extends SQL<infer T>
    ? T
    : never;

/** A row of a flat selection. A left-joined column is given as `sql<T | null>` to say so. */
export type FlatRow<F extends Record<string, Field>> = { [K in keyof F]: Value<F[K]> };

type Prepared = PgPreparedQuery<PreparedQueryConfig>;

/** A prepared query of a flat selection, and how its rows come back. */
export interface FlatQuery {
  query: Prepared;
  /** The rows as one JSON text (PGlite), or as the driver's own rows (PostgreSQL). */
  json: boolean;
}

/** A select of a flat selection's fields, with placeholders, ready to prepare. */
export type Preparable = SQLWrapper & { prepare(name: string): Prepared };

/**
 * Prepares `query`, a select of a flat selection (with placeholders), under `name`. On PGlite
 * it is wrapped to answer its rows as one JSON array: json_agg takes them in the order the
 * query gives them (an aggregate over a sorted subquery, with nothing between to reorder).
 * The lists' values (integers, booleans, doubles, text, timestamps) read alike either way:
 * devices.test holds a listed Machine equal to the device's detail on both databases.
 */
export function prepareFlat(db: Db, query: Preparable, name: string): FlatQuery {
  if (!is(db, PgliteDatabase)) return { query: query.prepare(name), json: false };
  const wrapped = db
    .select({ rows: sql<string>`coalesce(json_agg(t), '[]')::text` })
    .from(sql`(${query}) t`)
    .prepare(name);
  return { query: wrapped as unknown as Prepared, json: true };
}

/**
 * Long lists read without drizzle's row mapping (docs/architecture/devices.md#personal-lists,
 * decision 216). drizzle maps each value by asking, on every row, what kind of field it came
 * from (and builds nested objects): on PostgreSQL a third of a 5,000-device list's time, more
 * than the query. Here every field is selected under its own key and only fields whose value
 * needs mapping (timestamps, `mapWith`) are mapped, by each field's own decoder, found once.
 *
 * The rows travel as the database reads fastest: from PostgreSQL as the driver's object rows
 * (drizzle's `all()`); from PGlite as one JSON text of the same objects, since PGlite decodes
 * each value of each row in JavaScript (5,000 rows: 127 ms as rows, 48 ms as JSON).
 */
export function flatSelection<F extends Record<string, Field>>(fields: F) {
  const selection = Object.fromEntries(
    Object.entries(fields).map(([key, field]) => [key, sql`${field}`.as(key)]),
  ) as { [K in keyof F]: SQL.Aliased<Value<F[K]>> };
  const identity = Column.prototype.mapFromDriverValue;
  const decoders: [string, DriverValueDecoder<unknown, unknown>][] = [];
  for (const [key, field] of Object.entries(fields)) {
    // An expression's decoder (set by `mapWith`) is drizzle's own field, not in its types.
    const decoder = is(field, Column)
      ? (field as DriverValueDecoder<unknown, unknown>)
      : (field as unknown as { decoder: DriverValueDecoder<unknown, unknown> }).decoder;
    if (decoder.mapFromDriverValue !== identity) decoders.push([key, decoder]);
  }

  /** The rows of a prepared query, typed and mapped as drizzle would. */
  async function all(
    { query, json }: FlatQuery,
    placeholders?: Record<string, unknown>,
  ): Promise<FlatRow<F>[]> {
    let rows: Record<string, unknown>[];
    if (json) {
      const [{ rows: text }] = (await query.execute(placeholders)) as { rows: string }[];
      rows = JSON.parse(text);
    } else {
      // Declared by both drivers' prepared queries, not by the base type.
      rows = await (
        query as unknown as { all(p?: Record<string, unknown>): Promise<Record<string, unknown>[]> }
      ).all(placeholders);
    }
    for (const row of rows)
      for (const [key, decoder] of decoders) {
        const value = row[key];
        if (value !== null && value !== undefined) row[key] = decoder.mapFromDriverValue(value);
      }
    return rows as FlatRow<F>[];
  }

  return { selection, all };
}
