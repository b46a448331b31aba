/** apps/agent/build.mjs: the agent as one bundled ES module. */
export const AGENT_BUNDLE: string;
export function buildAgent(outfile?: string): Promise<number>;
export function bundledInputs(): Promise<string[]>;
