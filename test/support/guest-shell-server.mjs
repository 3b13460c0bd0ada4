#!/usr/bin/env node
// A tiny MCP server (stdio, built with the SDK) standing in for an ssh-style server that sees the
// guest's paths as they are (`/etc/app.conf`): it keeps them under GUEST_ROOT on this machine,
// which is the lab guest's folder. Its tools are named unlike the filesystem server's (put, get,
// rm), so a test proves that declared undo_paths and undo_tools, not defaults, drive the put-back,
// that a server with a delete tool has a created file removed, and that its secret (SHELL_TOKEN),
// quoted in a refusal, is cut out of the reason the put-back gives.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const ROOT = process.env.GUEST_ROOT;
const server = new McpServer({ name: 'guest-shell-test', version: '1.0.0' });
const text = (t, isError = false) => ({ content: [{ type: 'text', text: t }], ...(isError ? { isError: true } : {}) });
const onHost = (file) => join(ROOT, posix.normalize(file).replace(/^\/+/, ''));

server.registerTool('put', {
  description: 'Writes a guest file.', inputSchema: { file: z.string(), text: z.string() },
  annotations: { readOnlyHint: false, destructiveHint: true },
}, async ({ file, text: body }) => {
  // A refusal that quotes the server's own secret: the gateway must cut it out of what it relays.
  if (body.includes('refuse-me')) return text(`refused by the guest (session token ${process.env.SHELL_TOKEN})`, true);
  mkdirSync(dirname(onHost(file)), { recursive: true });
  writeFileSync(onHost(file), body);
  return text(`wrote ${file}`);
});

server.registerTool('get', {
  description: 'Reads a guest file.', inputSchema: { file: z.string() }, annotations: { readOnlyHint: true },
}, async ({ file }) => {
  try {
    return text(readFileSync(onHost(file), 'utf8'));
  } catch (err) {
    return text(`cannot read ${file}: ${err.code}`, true);
  }
});

server.registerTool('rm', {
  description: 'Removes a guest file.', inputSchema: { file: z.string() }, annotations: { readOnlyHint: false, destructiveHint: true },
}, async ({ file }) => {
  rmSync(onHost(file));
  return text(`removed ${file}`);
});

await server.connect(new StdioServerTransport());
