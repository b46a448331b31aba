/** scripts/build.mjs: the server and the agent as production runs them. */
import type { BuildOptions, PluginBuild } from "esbuild";

export const SERVER_BUNDLE: BuildOptions;
export function bundleWorkspaceSources(build: PluginBuild): void;
export function build(options?: { serverOutdir?: string; agentOutdir?: string }): Promise<string[]>;
