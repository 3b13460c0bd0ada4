// What a two-phase proposal keeps so that confirm_action (or the web page) can run the rest of
// the pipeline later, against exactly the objects that were proposed (moids, not names).
import type { PayloadCodec } from '../core/confirmation-store.js';
import type { AnyTool, Resolution } from '../tools/define.js';

export interface PendingCall {
  tool: AnyTool;
  args: Record<string, unknown>;
  resolution: Resolution;
}

/**
 * A proposal's payload crosses instances as JSON: the tool by name (every instance declares the
 * same tools), the parsed arguments and the resolution's data. State checks are functions; they ran
 * when the proposal was made and a confirmation skips them, so they are not kept. `tools` is asked
 * when a proposal is first decoded: the runtime knows its tools only later.
 */
export function pendingCallCodec(tools: () => AnyTool[]): PayloadCodec<PendingCall> {
  let known: Map<string, AnyTool> | undefined;
  return {
    encode: ({ tool, args, resolution }) => {
      const { checks: _checks, ...data } = resolution;
      return { tool: tool.name, args, resolution: data };
    },
    decode: (json) => {
      const j = json as { tool: string; args: Record<string, unknown>; resolution: Resolution };
      known ??= new Map(tools().map((t) => [t.name, t]));
      const tool = known.get(j.tool);
      if (!tool) throw new Error(`proposal for tool '${j.tool}', which this instance does not declare (different versions behind one database?)`);
      return { tool, args: j.args, resolution: j.resolution };
    },
  };
}
