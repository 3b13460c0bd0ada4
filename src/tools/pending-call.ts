// What a two-phase proposal keeps so that confirm_action (or the web page) can run the rest of
// the pipeline later, against exactly the objects that were proposed (moids, not names).
import type { AnyTool, Resolution } from './define.js';

export interface PendingCall {
  tool: AnyTool;
  args: Record<string, unknown>;
  resolution: Resolution;
}
