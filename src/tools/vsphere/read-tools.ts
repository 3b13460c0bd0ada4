// The vSphere read tools, in listing order.
import type { AnyTool } from '../define.js';

export const VSPHERE_READ_TOOLS: AnyTool[] = [];
