/** Types of demo-agent.mjs for the TypeScript tests that run the demo device the same way. */
export interface DemoAgentFile {
  server: string;
  tunnel?: string;
  machineCode: string;
  deviceSecret: string;
}

export function demoAgentCommand(options: {
  demo: DemoAgentFile;
  hmiPort: number | string;
  dataDir: string;
  env?: NodeJS.ProcessEnv;
  /** node's arguments before the agent's own (default SOURCE_AGENT). */
  program?: string[];
}): { args: string[]; env: NodeJS.ProcessEnv };

export const SOURCE_AGENT: string[];
export const BUILT_AGENT: string[];
