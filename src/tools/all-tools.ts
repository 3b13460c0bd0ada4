// Every tool this server can expose, in listing order. The registry decides which of them a given
// configuration registers.
import type { AnyTool } from './define.js';
import { LIFECYCLE_TOOLS } from './lifecycle.js';

export const ALL_TOOLS: AnyTool[] = [...LIFECYCLE_TOOLS];
