// oidc-provider ships no type declarations; the tests use a few calls of it (test/support/oidc-provider-idp.ts).
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';
  export default class Provider {
    constructor(issuer: string, configuration: unknown);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
  }
}
