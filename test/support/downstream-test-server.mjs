#!/usr/bin/env node
// A tiny MCP server (stdio, built with the SDK) that the gateway tests put behind zerto-rewind:
// it reports every call it receives to the test's shared call log (CALL_LOG_URL) BEFORE acting,
// so a test can prove from one ordered log that the checkpoint insert came first. It can crash
// mid-call, stream progress until cancelled, add a tool at run time (list_changed), and echo its
// secret environment (to prove the gateway redacts it), hold its start until a file exists, and
// write its pid to a file.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const LOG_URL = process.env.CALL_LOG_URL;
const NAME = process.env.SERVER_LABEL ?? 'test';

async function report(event, tool, extra = {}) {
  if (!LOG_URL) return;
  await fetch(LOG_URL, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ server: NAME, event, tool, ...extra }) });
}

const server = new McpServer({ name: `downstream-test-${NAME}`, version: '1.0.0' });
const text = (t) => ({ content: [{ type: 'text', text: t }] });

server.registerTool('echo', {
  description: 'Echoes its message.',
  inputSchema: { message: z.string() },
  annotations: { readOnlyHint: true },
}, async ({ message }) => {
  await report('call', 'echo');
  return { ...text(`echo: ${message}`), structuredContent: { echoed: message } };
});

server.registerTool('set_value', {
  description: 'Sets a value (a change).',
  inputSchema: { key: z.string(), value: z.string(), host: z.string().optional() },
  annotations: { readOnlyHint: false, destructiveHint: false },
}, async ({ key, value }) => {
  await report('call', 'set_value', { key });
  return text(`set ${key}=${value}`);
});

server.registerTool('wipe', {
  description: 'Wipes everything (destructive).',
  inputSchema: { what: z.string() },
  annotations: { readOnlyHint: false, destructiveHint: true },
}, async ({ what }) => {
  await report('call', 'wipe');
  return text(`wiped ${what}`);
});

server.registerTool('fail', {
  description: 'Answers with a tool error.',
  inputSchema: {},
  annotations: { readOnlyHint: true },
}, async () => ({ ...text('it went wrong downstream'), isError: true }));

server.registerTool('crash', {
  description: 'Exits the process in the middle of the call.',
  inputSchema: {},
  annotations: { readOnlyHint: true },
}, async () => {
  await report('call', 'crash');
  process.exit(3);
});

server.registerTool('slow', {
  description: 'Sends progress every 50 ms until cancelled (or 200 steps).',
  inputSchema: {},
  annotations: { readOnlyHint: true },
}, async (_args, extra) => {
  await report('call', 'slow');
  const token = extra._meta?.progressToken;
  for (let i = 1; i <= 200; i++) {
    if (extra.signal.aborted) {
      await report('cancelled', 'slow');
      return text('cancelled');
    }
    if (token !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: 200, message: `step ${i}` } });
    await new Promise((r) => setTimeout(r, 50));
  }
  return text('done');
});

server.registerTool('add_tool', {
  description: 'Registers one more tool at run time (the server then sends tools/list_changed).',
  inputSchema: { name: z.string() },
  annotations: { readOnlyHint: true },
}, async ({ name }) => {
  server.registerTool(name, { description: 'Added at run time.', inputSchema: {}, annotations: { readOnlyHint: true } }, async () => text(`${name} works`));
  return text(`added ${name}`);
});

server.registerTool('leak', {
  description: 'Returns (and prints to stderr) its API_TOKEN.',
  inputSchema: {},
  annotations: { readOnlyHint: true },
}, async () => {
  process.stderr.write(`my token is ${process.env.API_TOKEN}\n`);
  return text(`token=${process.env.API_TOKEN}`);
});

if (process.env.EXTRA_TOOL_NAME) {
  server.registerTool(process.env.EXTRA_TOOL_NAME, { description: 'Named by the test.', inputSchema: {}, annotations: { readOnlyHint: true } }, async () => text('extra'));
}

// Its pid, for a test that checks the process is gone after the gateway stopped.
if (process.env.PID_FILE) {
  const { writeFileSync } = await import('node:fs');
  writeFileSync(process.env.PID_FILE, String(process.pid));
}

// A server that is slow to come up, held until the test creates this file (no timing involved).
if (process.env.WAIT_FOR_FILE) {
  const { existsSync } = await import('node:fs');
  while (!existsSync(process.env.WAIT_FOR_FILE)) await new Promise((r) => setTimeout(r, 20));
}

await server.connect(new StdioServerTransport());
