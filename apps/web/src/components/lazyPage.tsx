import { Spin } from "antd";
import { type ComponentType, createElement, lazy, useState } from "react";

/**
 * A page fetched with its own chunk when its route is first shown (React.lazy on a named
 * export): the login page then loads without the maps, charts and tables of the others.
 * `preload()` fetches it ahead (main.tsx, for the page at the address); a page whose chunk is
 * already there renders at once instead of suspending, so the first render is one pass.
 */
export function lazyPage<K extends string, P extends object>(
  load: () => Promise<{ [name in K]: ComponentType<P> }>,
  name: K,
) {
  let loaded: ComponentType<P> | undefined;
  const fetch = () =>
    load().then((module) => {
      loaded = module[name];
      return loaded;
    });
  const Lazy = lazy(async () => ({ default: await fetch() }));
  // biome-ignore lint/correctness/noComponentHookFactories: called once per page at module level, like React.lazy
  function Page(props: P) {
    // Decided once per mount: switching between the two would remount the page.
    const [ready] = useState(() => loaded);
    return ready ? createElement(ready, props) : createElement(Lazy, props);
  }
  /** Starts fetching the chunk (a second call reuses the first one's import). */
  return Object.assign(Page, { preload: fetch });
}

/** Shown while a page's chunk loads (the Suspense fallback of the routes). */
export function PageLoading() {
  return <Spin size="large" className="kw-page-spin" />;
}
