/** Types of system-packages.mjs for the TypeScript test that checks it. */
export interface SystemPackage {
  name: string;
  program: string | ((env: NodeJS.ProcessEnv) => string);
}

export const TEST_PACKAGES: SystemPackage[];
export const CI_PACKAGES: SystemPackage[];

export function missingPackages(
  packages?: SystemPackage[],
  options?: {
    env?: NodeJS.ProcessEnv;
    exists?: (file: string) => boolean;
    list?: (dir: string) => string[];
  },
): string[];

export function installAccess(options?: {
  uid?: number;
  canSudo?: () => boolean;
  hasApt?: boolean;
}): "root" | "sudo" | null;

export function installCommands(names: string[], access: "root" | "sudo"): string[][];

export function manualCommand(names: string[]): string;

export function ensureSystemPackages(packages?: SystemPackage[], who?: string): void;
