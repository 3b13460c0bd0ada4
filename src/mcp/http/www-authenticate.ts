// The OAuth 2.1 resource server's refusals (RFC 6750 section 3, RFC 9728 section 5.1): a 401 or
// 403 whose WWW-Authenticate names the error, the scope needed and where the protected-resource
// metadata lives, so a client can find the issuer and ask the user to sign in (or step up).
import type { ServerResponse } from 'node:http';

export interface Challenge {
  status: 401 | 403;
  error?: 'invalid_request' | 'invalid_token' | 'insufficient_scope';
  description?: string;
  scope?: string;
}

export function sendChallenge(res: ServerResponse, resourceMetadataUrl: string, c: Challenge): void {
  const parts = [
    ...(c.error ? [`error="${c.error}"`] : []),
    ...(c.description ? [`error_description="${c.description.replace(/["\\]/g, '')}"`] : []),
    ...(c.scope ? [`scope="${c.scope}"`] : []),
    `resource_metadata="${resourceMetadataUrl}"`,
  ];
  res.writeHead(c.status, { 'content-type': 'application/json', 'www-authenticate': `Bearer ${parts.join(', ')}` });
  res.end(JSON.stringify({ error: c.error ?? 'unauthorized', error_description: c.description ?? 'a bearer token is required' }));
}
