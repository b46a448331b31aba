/** Types of node-check.mjs; importing it checks the running Node.js (exit 1 when unsupported). */
export const NODE_MAJOR: number;
export const NODE_MIN_MINOR: number;
export function nodeVersionProblem(version: string): string | null;
