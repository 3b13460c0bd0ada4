// SessionManager: Login / Logout / SessionIsActive and the `vmware_soap_session` cookie. Like
// vCenter (and unlike vcsim) a call without a live session faults with NotAuthenticated; a Login on
// a cookie that is still alive simply starts a new session.

import { randomUUID } from 'node:crypto';
import { faults } from './faults.js';
import { data, time, type DataObject } from './vim-values.js';

export interface Session {
  key: string;
  userName: string;
  loginTime: number;
  lastActiveTime: number;
  locale: string;
  ipAddress: string;
  userAgent: string;
  callCount: number;
}

export class Sessions {
  private readonly live = new Map<string, Session>();

  constructor(private readonly credentials: { user: string; password: string }) {}

  login(userName: string, password: string, locale: string | undefined, ip: string, userAgent: string): Session {
    if (userName !== this.credentials.user || password !== this.credentials.password) throw faults.invalidLogin();
    const now = Date.now();
    const s: Session = {
      key: randomUUID(), userName, loginTime: now, lastActiveTime: now, locale: locale || 'en',
      ipAddress: ip, userAgent, callCount: 0,
    };
    this.live.set(s.key, s);
    return s;
  }

  /** The live session for a cookie value, touched as vCenter does on every call. */
  touch(key: string | undefined): Session | undefined {
    if (!key) return undefined;
    const s = this.live.get(key);
    if (s) {
      s.lastActiveTime = Date.now();
      s.callCount++;
    }
    return s;
  }

  get(key: string): Session | undefined {
    return this.live.get(key);
  }

  logout(key: string): void {
    this.live.delete(key);
  }

  /** Fault knob: every session becomes invalid at once, as after a vCenter restart or idle expiry. */
  expireAll(): void {
    this.live.clear();
  }

  list(): Session[] {
    return [...this.live.values()];
  }
}

export function userSession(s: Session): DataObject {
  return data('UserSession', {
    key: s.key, userName: s.userName, fullName: s.userName.split('@')[0], loginTime: time(s.loginTime),
    lastActiveTime: time(s.lastActiveTime), locale: s.locale, messageLocale: s.locale, extensionSession: false,
    ipAddress: s.ipAddress, userAgent: s.userAgent, callCount: s.callCount,
  });
}

/** Reads the session key from a Cookie header; vCenter quotes the value, vcsim does not. */
export function sessionKeyFromCookie(header: string | undefined): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === 'vmware_soap_session') return rest.join('=').replace(/^"|"$/g, '');
  }
  return undefined;
}

export function sessionCookie(key: string): string {
  return `vmware_soap_session="${key}"; Path=/; HttpOnly; Secure;`;
}
