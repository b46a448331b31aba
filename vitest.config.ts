import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["apps/*/src/**/*.test.ts", "packages/*/src/**/*.test.ts", "tests/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    maxWorkers: 2,
    // Browser and socket tests wait for what a user would see; on a loaded 2-core CI machine
    // that can take more than vitest's 1 s default.
    expect: { poll: { timeout: 10_000, interval: 100 } },
  },
});
