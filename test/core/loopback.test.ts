// The one loopback test behind HTTP mode's --insecure-local, the dashboard's plain-http warnings
// and its sign-in's plain-http refusals (src/core/loopback.ts).
import { describe, expect, it } from 'vitest';
import { isLoopbackHost } from '../../src/core/loopback.js';

describe('isLoopbackHost', () => {
  it('takes localhost, 127.0.0.0/8 and ::1, bracketed as URL.hostname writes it or not', () => {
    for (const h of ['localhost', '127.0.0.1', '127.8.9.10', '::1', '[::1]']) expect(isLoopbackHost(h), h).toBe(true);
    expect(isLoopbackHost(new URL('http://[::1]:8080/').hostname)).toBe(true);
  });

  it('refuses names that merely look like loopback, and other addresses', () => {
    for (const h of ['127.evil.example', '127.0.0.1.nip.io', 'localhost.example', '10.0.0.1', '::2', '0.0.0.0', '']) expect(isLoopbackHost(h), h).toBe(false);
  });
});
