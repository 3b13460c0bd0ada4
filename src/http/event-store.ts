// Resumability for the Streamable HTTP transport: the SDK replays the events after a client's
// Last-Event-ID from an EventStore. This one keeps the newest events per process in memory, which
// covers a dropped connection to the same instance (a client that lands on another instance
// starts a new session, as the SDK's sessions are per process).
import { randomUUID } from 'node:crypto';
import type { EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export class BoundedEventStore implements EventStore {
  private readonly events = new Map<string, { streamId: string; message: JSONRPCMessage }>();

  constructor(private readonly max = 5_000) {}

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const id = `${streamId}_${randomUUID()}`;
    this.events.set(id, { streamId, message });
    // Maps iterate in insertion order: the first key is the oldest event.
    while (this.events.size > this.max) this.events.delete(this.events.keys().next().value!);
    return id;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.events.get(eventId)?.streamId;
  }

  async replayEventsAfter(lastEventId: string, { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> }): Promise<string> {
    const start = this.events.get(lastEventId);
    if (!start) return '';
    let after = false;
    for (const [id, e] of this.events) {
      if (id === lastEventId) { after = true; continue; }
      if (after && e.streamId === start.streamId) await send(id, e.message);
    }
    return start.streamId;
  }
}
