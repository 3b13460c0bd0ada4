// Stands in, in the bundle only (scripts/bundle.mjs), for the MCP SDK's validation/ajv-provider.js.
// The SDK's Server builds an Ajv instance with every format in its constructor, and importing Ajv
// is ~120 ms of a loaded 2-core start (measured), yet the server uses it only to check elicitation
// answers. Same class name and validator contract ({ valid, data, errorMessage }), with Ajv loaded
// on the first schema to check.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

function defaultAjv() {
  const ajvModule = require('ajv');
  const formatsModule = require('ajv-formats');
  const Ajv = ajvModule.default ?? ajvModule;
  const addFormats = formatsModule.default ?? formatsModule;
  // The SDK's own options: lenient schemas, formats checked, every error reported.
  const ajv = new Ajv({ strict: false, validateFormats: true, validateSchema: false, allErrors: true });
  addFormats(ajv);
  return ajv;
}

export class AjvJsonSchemaValidator {
  constructor(ajv) {
    this.given = ajv;
  }

  get ajv() {
    this.given ??= defaultAjv();
    return this.given;
  }

  getValidator(schema) {
    const ajv = this.ajv;
    const check = typeof schema.$id === 'string' ? (ajv.getSchema(schema.$id) ?? ajv.compile(schema)) : ajv.compile(schema);
    return (input) =>
      check(input)
        ? { valid: true, data: input, errorMessage: undefined }
        : { valid: false, data: undefined, errorMessage: ajv.errorsText(check.errors) };
  }
}
