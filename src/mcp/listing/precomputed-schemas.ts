// The JSON schemas of the built-in tools, converted from their zod declarations at build time.
// Converting them at startup is a measurable part of a start (docs/performance.md), so the
// bundle (scripts/bundle.mjs) replaces this module with the table `precomputeSchemas` writes. Here,
// unbundled (tsc's dist tree, vitest), the table is empty and every schema is converted at runtime;
// test/contract/precomputed-schemas.test.ts proves the bundle's table equal to that conversion.
import type { ListedSchemas } from './registry.js';

export const PRECOMPUTED_SCHEMAS: Readonly<Record<string, ListedSchemas>> = {};
