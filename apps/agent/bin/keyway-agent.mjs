#!/usr/bin/env node
// Runs the TypeScript CLI through tsx, so `npx keyway-agent run ...` works from the workspace.
import { register } from "tsx/esm/api";

register();
await import("../src/cli.ts");
