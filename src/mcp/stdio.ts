// `mpay mcp`'s stdio: JSON-RPC 2.0, one message a line, through the SDK's stdio transport, with what that
// transport leaves out. A line that is not JSON, or not JSON-RPC, is answered with the protocol's error
// (-32700, -32600: the transport would drop it), a tools/call without a tool's name with -32602; every
// message out is scrubbed of the run's secrets; and the requests still to answer are counted, so that
// the server ends only once each has its answer.
import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import type { IO } from '../io/io.js';

type Server = import('@modelcontextprotocol/sdk/server/index.js').Server;
type Stdio = typeof import('@modelcontextprotocol/sdk/server/stdio.js');
type Types = typeof import('@modelcontextprotocol/sdk/types.js');
type JSONRPCMessage = import('@modelcontextprotocol/sdk/types.js').JSONRPCMessage;

/** Every string of a JSON-RPC message with the run's secrets (keys, tokens, one-time codes) replaced. */
function scrubbed(value: unknown, scrub: (s: string) => string): unknown {
  if (typeof value === 'string') return scrub(value);
  if (Array.isArray(value)) return value.map((v) => scrubbed(v, scrub));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [scrub(k), scrubbed(v, scrub)]));
  return value;
}

export interface Wire {
  /** resolves once every request the client sent has its answer (or was cancelled by the client) */
  answered(): Promise<void>;
  /** stdin no longer read */
  close(): void;
}

/** The server connected to the IO's stdin and stdout. */
export async function connectStdio(
  server: Server,
  w: {
    io: Pick<IO, 'stdin' | 'stdout'>;
    scrub: (s: string) => string;
    log: (line: string) => void;
    sdk: {
      StdioServerTransport: Stdio['StdioServerTransport'];
      JSONRPCMessageSchema: Types['JSONRPCMessageSchema'];
    };
    /** told of each request as it comes, before the server reads it */
    received: (id: string | number) => void;
  },
): Promise<Wire> {
  // The SDK's transport drops a line that is not JSON or not JSON-RPC without an answer: each line is
  // looked at first, and such a line answered as JSON-RPC 2.0 says (-32700, -32600), the rest passed on.
  const lines = new PassThrough();
  const transport = new w.sdk.StdioServerTransport(lines, w.io.stdout);
  const fault = (id: string | number | null, code: number, message: string) => {
    w.log(`protocol error ${code}: ${message}`);
    void transport.send({ jsonrpc: '2.0', id, error: { code, message } } as unknown as JSONRPCMessage);
  };
  const reader = createInterface({ input: w.io.stdin, crlfDelay: Infinity });
  reader.on('line', (line) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return fault(null, -32700, 'Parse error: the line is not JSON (one JSON-RPC message a line)');
    }
    if (!w.sdk.JSONRPCMessageSchema.safeParse(value).success) {
      const id = (value as { id?: unknown } | null)?.id;
      return fault(
        typeof id === 'string' || typeof id === 'number' ? id : null,
        -32600,
        'Invalid Request: not a JSON-RPC 2.0 request, notification or response (jsonrpc "2.0", method, id)',
      );
    }
    lines.write(`${line}\n`);
  });
  reader.on('close', () => lines.end());
  // The requests of the client still to answer: the server ends only once each has its answer.
  const pending = new Set<string | number>();
  let settled: (() => void) | undefined;
  const answered = () => {
    if (pending.size === 0) settled?.();
  };
  const send = transport.send.bind(transport);
  transport.send = (message: JSONRPCMessage) => {
    const out = scrubbed(message, w.scrub) as JSONRPCMessage;
    const p = send(out);
    if ('id' in message && message.id !== undefined && ('result' in message || 'error' in message)) {
      pending.delete(message.id);
      answered();
    }
    return p;
  };
  await server.connect(transport);
  const receive = transport.onmessage!;
  transport.onmessage = (message: JSONRPCMessage) => {
    // tools/call without a tool's name: the SDK would answer -32603 with its schema's dump
    if ('id' in message && 'method' in message && message.method === 'tools/call') {
      const params = message.params as { name?: unknown; arguments?: unknown } | undefined;
      const why =
        typeof params?.name !== 'string'
          ? 'params.name, the name of a tool (tools/list gives them), is required and must be a string'
          : params.arguments !== undefined &&
              (typeof params.arguments !== 'object' ||
                params.arguments === null ||
                Array.isArray(params.arguments))
            ? "params.arguments must be an object of the tool's arguments"
            : undefined;
      if (why) return fault(message.id, -32602, `Invalid params for tools/call: ${why}`);
    }
    if ('id' in message && 'method' in message) {
      pending.add(message.id);
      w.received(message.id);
    }
    // a request the client cancelled gets no answer (the SDK drops it): it is no longer waited for
    if ('method' in message && message.method === 'notifications/cancelled') {
      const id = (message.params as { requestId?: string | number } | undefined)?.requestId;
      if (id !== undefined) setImmediate(() => (pending.delete(id), answered()));
    }
    receive(message);
  };
  return {
    answered: () => (pending.size ? new Promise<void>((resolve) => (settled = resolve)) : Promise.resolve()),
    close() {
      reader.close();
      w.io.stdin.pause();
    },
  };
}
