// The Zerto tools and the mutating-tool catalog tools, in listing order.
import type { AnyTool } from '../define.js';
import { zertoAddMutatingTool, zertoListMutatingTools, zertoRemoveMutatingTool } from './catalog-tools.js';
import { zertoCreateTaggedCheckpoint } from './checkpoint-tool.js';
import { zertoFindProtection } from './find-protection-tool.js';
import { zertoEndFlrSession, zertoListFlrSessions } from './flr-session-tools.js';
import { zertoGuardHook } from './guard-hook-tool.js';
import { zertoGuardBeforeMutate } from './guard-tool.js';
import { zertoRecoverFile } from './recover-file-tool.js';

export const ZERTO_TOOLS: AnyTool[] = [
  zertoFindProtection,
  zertoCreateTaggedCheckpoint,
  zertoGuardBeforeMutate,
  zertoGuardHook,
  zertoRecoverFile,
  zertoListFlrSessions,
  zertoEndFlrSession,
  zertoListMutatingTools,
  zertoAddMutatingTool,
  zertoRemoveMutatingTool,
];
