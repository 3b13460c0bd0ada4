// A test OAuth issuer: an RS256 key pair made with jose, its JWKS and discovery document served on
// 127.0.0.1, and a signer for access tokens with whatever claims a test needs (expired ones, other
// audiences, missing scopes). The server under test fetches the keys over HTTP like from Keycloak.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';

export interface TestIssuer {
  issuer: string;
  sign(claims: JWTPayload & { sub?: string; scope?: string }, opts?: { audience?: string; expiresIn?: string | number; issuer?: string }): Promise<string>;
  close(): Promise<void>;
}

export const ALL_SCOPES = 'vsphere:read vsphere:change vsphere:destructive zerto:restore';

export async function startTestIssuer(): Promise<TestIssuer> {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
  let issuer = '';
  const http = createServer((req, res) => {
    const body = req.url === '/jwks.json' ? { keys: [jwk] }
      : req.url === '/.well-known/openid-configuration' ? { issuer, jwks_uri: `${issuer}/jwks.json` } : undefined;
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body ?? { error: 'not found' }));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return {
    issuer,
    async sign(claims, opts = {}) {
      const jwt = new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'test-key' })
        .setIssuer(opts.issuer ?? issuer).setIssuedAt();
      if (opts.audience) jwt.setAudience(opts.audience);
      // A number is an absolute exp (seconds since epoch), so a test can mint an expired token.
      jwt.setExpirationTime(opts.expiresIn ?? '10m');
      return jwt.sign(privateKey);
    },
    close: () => new Promise<void>((resolve) => { http.closeAllConnections(); http.close(() => resolve()); }),
  };
}
