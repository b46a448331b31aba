import { type Placeholder, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { type FlatQuery, type Preparable, prepareFlat } from "../../db/flatRows.ts";

/**
 * Query helpers of the device modules; enterprises and cameras build on devices and take
 * them from here.
 */

/** A search term as an ILIKE pattern: its own %, _ and \ match literally. */
export function likePattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * A paged list's total from the rows of the page asked for: a page neither full nor empty
 * tells it; only a full page, or an empty one past the first, asks `count` (a window count
 * in the page's query cost more than the whole short list; docs/architecture/devices.md#personal-lists).
 */
export async function pageTotal(
  rows: number,
  page: { page: number; pageSize: number },
  count: () => Promise<number>,
): Promise<number> {
  if (rows > 0 && rows < page.pageSize) return (page.page - 1) * page.pageSize + rows;
  if (rows === 0 && page.page === 1) return 0;
  return count();
}

/** A list's optional filters: their values, or the placeholders of a prepared page query. */
export interface PageFilter {
  groupId?: number | Placeholder;
  pattern?: string | Placeholder;
}

/** A list's page query before its page: limit and offset are added as placeholders. */
interface PageSource {
  limit(limit: Placeholder): { offset(offset: Placeholder): Preparable };
}

/**
 * Reads a list's pages. The page query of each shape of filter (neither, group, search, both)
 * is built and prepared once under `name` and the shape: building it cost about a tenth of a
 * call at 200 calls/s on the embedded defaults (issue 19, docs/performance.md "devices").
 * `build` gets the placeholders of the filters its shape has (and names its own, given in
 * `values`); the page's limit and offset are added here. Rows are read by `rows` (flatRows.ts).
 */
export function listPages<Row>(
  db: Db,
  name: string,
  rows: { all(query: FlatQuery, placeholders: Record<string, unknown>): Promise<Row[]> },
  build: (filters: { groupId?: Placeholder; pattern?: Placeholder }) => PageSource,
): (values: PageFilter, page: { page: number; pageSize: number }) => Promise<Row[]> {
  const queries = [false, true].flatMap((search) =>
    [false, true].map((group) =>
      prepareFlat(
        db,
        build({
          groupId: group ? sql.placeholder("groupId") : undefined,
          pattern: search ? sql.placeholder("pattern") : undefined,
        })
          .limit(sql.placeholder("limit"))
          .offset(sql.placeholder("offset")),
        `${name}${group ? "_group" : ""}${search ? "_search" : ""}`,
      ),
    ),
  );
  return (values, { page, pageSize }) =>
    rows.all(
      queries[(values.groupId !== undefined ? 1 : 0) + (values.pattern !== undefined ? 2 : 0)],
      { ...values, limit: pageSize, offset: (page - 1) * pageSize },
    );
}
