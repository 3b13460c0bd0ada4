// The MCP client every in-process test talks through. It lists the tools before the first call,
// so the SDK client validates each structured result against the tool's advertised output
// schema (and a successful result without structuredContent fails): a tool whose results drift
// from its declared schema fails every test that calls it, not only the contract test.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema, type ClientCapabilities, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Server } from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation';

/**
 * The SDK's own Ajv validator (same options, same checks), compiled once per distinct schema for
 * every client a test worker makes. A new Client builds a fresh Ajv and compiles every tool's
 * output schema on tools/list; with a client per harness that was most of a harness's start-up CPU.
 */
class CompiledOnce implements jsonSchemaValidator {
  private readonly ajv = new AjvJsonSchemaValidator();
  private readonly compiled = new Map<string, JsonSchemaValidator<unknown>>();

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    const key = JSON.stringify(schema);
    let validator = this.compiled.get(key);
    if (!validator) {
      validator = this.ajv.getValidator<unknown>(schema);
      this.compiled.set(key, validator);
    }
    return validator as JsonSchemaValidator<T>;
  }
}

/** Shared by every test client of a worker (in-memory and HTTP). */
export const testSchemaValidator: jsonSchemaValidator = new CompiledOnce();

/** A client that can be asked (MCP elicitation): what it declares, and how its user answers. */
export interface TestElicitation {
  capabilities: ClientCapabilities['elicitation'];
  answer(request: ElicitRequest['params']): Promise<ElicitResult>;
}

export async function connectValidatingClient(server: Server, name: string, elicitation?: TestElicitation): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name, version: '1.0.0' }, {
    jsonSchemaValidator: testSchemaValidator,
    ...(elicitation ? { capabilities: { elicitation: elicitation.capabilities } } : {}),
  });
  if (elicitation) client.setRequestHandler(ElicitRequestSchema, (req) => elicitation.answer(req.params));
  await server.connect(serverSide);
  await client.connect(clientSide);
  await client.listTools();
  return client;
}
