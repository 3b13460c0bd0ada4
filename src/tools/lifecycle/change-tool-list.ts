// The tools that act on a change record: follow it, stop it, undo it. Registered with any tool
// that can make a change (registry.ts).
import type { AnyTool } from '../define.js';
import { cancelChange, getChange } from './change-tools.js';
import { undoChange } from './undo-change.js';

export const CHANGE_TOOLS: AnyTool[] = [getChange, cancelChange, undoChange];
