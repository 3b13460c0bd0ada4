// Audit lines of a proxied call name the downstream server and its own tool name, so an operator
// can tell `guestfs__write_file` apart from a server that happens to be called `guestfs_`. Added to
// `detail` on the way to the writer, which keeps the audit line's shape unchanged.
import type { AuditRecord, AuditSink } from './audit-writer.js';

export function withDownstreamFields(sink: AuditSink, lookup: (tool: string) => { server: string; tool: string } | undefined): AuditSink {
  return {
    write(record: AuditRecord) {
      const d = lookup(record.tool);
      if (!d) return sink.write(record);
      const detail = record.detail && typeof record.detail === 'object' && !Array.isArray(record.detail)
        ? { ...(record.detail as Record<string, unknown>), downstream: d }
        : record.detail === undefined ? { downstream: d } : { value: record.detail, downstream: d };
      return sink.write({ ...record, detail });
    },
  };
}
