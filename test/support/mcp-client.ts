// The MCP client every in-process test talks through (the SDK v2 client; the 2025 handshake over
// the in-memory transport, as a stdio client opens). It lists the tools before the first call,
// so the SDK client validates each structured result against the tool's advertised output
// schema (and a successful result without structuredContent fails): a tool whose results drift
// from its declared schema fails every test that calls it, not only the contract test.
import { Client, InMemoryTransport, type ClientCapabilities, type ElicitRequest, type ElicitResult, type JsonSchemaValidator, type jsonSchemaValidator } from '@modelcontextprotocol/client';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';
import type { Server } from '@modelcontextprotocol/server';

type JsonSchemaType = Parameters<jsonSchemaValidator['getValidator']>[0];

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
  capabilities: Record<string, unknown>;
  answer(request: ElicitRequest['params']): Promise<ElicitResult>;
}

export async function connectValidatingClient(server: Server, name: string, elicitation?: TestElicitation): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name, version: '1.0.0' }, {
    jsonSchemaValidator: testSchemaValidator,
    ...(elicitation ? { capabilities: { elicitation: elicitation.capabilities as ClientCapabilities['elicitation'] } } : {}),
  });
  if (elicitation) client.setRequestHandler('elicitation/create', (req) => elicitation.answer(req.params));
  await server.connect(serverSide);
  await client.connect(clientSide);
  await client.listTools();
  return client;
}
