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
