// Stands in, in the bundle only (scripts/bundle.mjs), for the MCP SDK's `_shims` module of
// @modelcontextprotocol/server and /client (Node flavour). Their Server and Client build a default
// JSON-schema validator in the constructor, and the shim imports the SDK's Ajv chunk for it:
// loading Ajv is ~20% of a Node 20 start, yet the server uses it only to check a client's
// elicitation answers. Same exports; the SDK's own Ajv validator is required on the first schema.
import { createRequire } from 'node:module';
import process from 'node:process';

const require = createRequire(import.meta.url);

export class DefaultJsonSchemaValidator {
  get real() {
    // The package's public export (its CommonJS build, so a plain require works on Node 20).
    this.loaded ??= new (require('@modelcontextprotocol/server/validators/ajv').AjvJsonSchemaValidator)();
    return this.loaded;
  }

  getValidator(schema) {
    return this.real.getValidator(schema);
  }
}

/** The client shim's flag: in Node a fetch TypeError is never a CORS refusal. */
export const CORS_IS_POSSIBLE = false;

export { process };
