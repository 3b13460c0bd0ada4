// The vSphere mutating and destructive tools, in listing order.
import type { AnyTool } from '../define.js';

export const VSPHERE_CHANGE_TOOLS: AnyTool[] = [];
