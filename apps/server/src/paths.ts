import { existsSync } from "node:fs";
import path from "node:path";

/**
 * The server package's folder (apps/server): the nearest folder above this module with a
 * package.json. From the sources this module is apps/server/src/paths.ts; built, it is bundled
 * into apps/server/dist/main.js (scripts/build.mjs), so paths relative to this file would
 * differ between the two, while paths from the package folder do not.
 */
export function packageRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "package.json"))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

export const SERVER_ROOT = packageRoot(import.meta.dirname);
/** The SQL migrations (drizzle-kit generate), applied at start. */
export const MIGRATIONS_DIR = path.join(SERVER_ROOT, "drizzle");
/** The built web app (npm run build -w @keyway/web), the default of WEB_DIST. */
export const WEB_DIST = path.resolve(SERVER_ROOT, "../web/dist");
