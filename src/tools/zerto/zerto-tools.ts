// The Zerto tools and the mutating-tool catalog tools, in listing order.
import type { AnyTool } from '../define.js';

export const ZERTO_TOOLS: AnyTool[] = [];
