import type { Plugin, Rollup } from "vite";

/**
 * Vite plugin: `<link rel="modulepreload">` in index.html for the chunks of `modules` (source
 * paths from the app's root, e.g. "src/App.tsx") and every chunk they import. main.tsx imports
 * the app dynamically, so that its first paint waits only for React; without these hints the
 * app's chunks would be asked for only once the entry has run.
 */
export function preloadChunks(modules: string[]): Plugin {
  return {
    name: "keyway-preload-chunks",
    apply: "build",
    transformIndexHtml: {
      order: "post",
      handler(html, { bundle }) {
        if (!bundle) return html;
        const chunks = Object.values(bundle).filter(
          (item): item is Rollup.OutputChunk => item.type === "chunk",
        );
        const byFile = new Map(chunks.map((chunk) => [chunk.fileName, chunk]));
        const wanted = new Set<string>();
        const add = (chunk: Rollup.OutputChunk) => {
          if (wanted.has(chunk.fileName)) return;
          wanted.add(chunk.fileName);
          for (const file of chunk.imports) {
            const imported = byFile.get(file);
            if (imported) add(imported);
          }
        };
        for (const module of modules) {
          const chunk = chunks.find((c) =>
            c.facadeModuleId?.replaceAll("\\", "/").endsWith(module),
          );
          if (!chunk) throw new Error(`preloadChunks: no chunk for ${module}`);
          add(chunk);
        }
        const links = [...wanted]
          .filter((file) => !html.includes(`/${file}"`))
          .map((file) => `    <link rel="modulepreload" crossorigin href="/${file}">`);
        return html.replace(/\n?\s*<\/head>/, `\n${links.join("\n")}\n  </head>`);
      },
    },
  };
}
