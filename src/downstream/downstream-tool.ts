// A downstream server's tool and its call result as the gateway's declarations see them: plain
// data, so the tool layer never depends on the SDK client that listed them (connection.ts).
// Checking arguments against the downstream's own JSON schema uses the client SDK's Ajv provider.
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';
import type { ToolResult } from '../tools/tool-result.js';

export interface DownstreamTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: { type: 'object'; properties?: Record<string, unknown>; [key: string]: unknown };
  outputSchema?: Record<string, unknown>;
  annotations?: {
    title?: string;
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
  };
}

/** A downstream's tools/call answer. */
export type DownstreamResult = ToolResult;

export type SchemaCheck = (input: unknown) => { valid: true } | { valid: false; errorMessage: string };

const validators = new AjvJsonSchemaValidator();

/** Compiles a downstream's JSON schema; throws when the schema cannot be compiled. */
export function compileJsonSchema(schema: Record<string, unknown>): SchemaCheck {
  const check = validators.getValidator(schema as Parameters<typeof validators.getValidator>[0]);
  return (input) => {
    const res = check(input);
    return res.valid ? { valid: true } : { valid: false, errorMessage: res.errorMessage ?? 'does not match the schema' };
  };
}
