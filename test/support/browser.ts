// Launches Debian's chromium through playwright-core for the browser tests (the dashboard's own and
// the end-to-end ones against the full server). There is no bundled browser download: sites that
// run this are often air-gapped, and `scripts/install-test-deps` installs the Debian package.
import { existsSync } from 'node:fs';
import { chromium, type Browser, type LaunchOptions } from 'playwright-core';

export const DEFAULT_CHROMIUM_PATH = '/usr/bin/chromium';

/** Where the browser is expected: $CHROMIUM_PATH, else Debian's /usr/bin/chromium. */
export function chromiumPath(): string {
  return process.env['CHROMIUM_PATH'] ?? DEFAULT_CHROMIUM_PATH;
}

/**
 * Starts a headless chromium. Throws (never skips) when the executable is missing, so a
 * `test:full` run without the browser fails loudly instead of passing with nothing tested.
 */
export async function launchChromium(options: LaunchOptions = {}): Promise<Browser> {
  const executablePath = chromiumPath();
  if (!existsSync(executablePath)) {
    throw new Error(
      `Chromium not found at ${executablePath}. The browser tests need it: run scripts/install-test-deps ` +
        '(installs the Debian package "chromium"), or set CHROMIUM_PATH to a chromium binary.',
    );
  }
  return chromium.launch({
    executablePath,
    headless: true,
    // --no-sandbox: CI containers run as root, where chromium's sandbox refuses to start.
    args: ['--no-sandbox', ...(options.args ?? [])],
    ...withoutArgs(options),
  });
}

function withoutArgs(options: LaunchOptions): LaunchOptions {
  const { args: _args, ...rest } = options;
  return rest;
}
