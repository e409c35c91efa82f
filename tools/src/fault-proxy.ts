/**
 * A fault-injecting HTTP proxy for tests. It listens on a free 127.0.0.1 port between an S3 client and a
 * loopback S3 server (moto) and, per request, either passes the request through untouched (method, path,
 * query and every header, Host included, so SigV4 signatures stay valid) or injects one fault chosen by rules
 * or by a seeded random draw: a lost request, a lost reply after the server applied the request, an S3-style
 * error before or after forwarding, a stall or a delay. It records one event per request. It owns its
 * listener, its client and upstream sockets and its timers, all unref'd (it never keeps a process alive),
 * and it stops by itself after `maxLifetimeMs`.
 */
import {
  Agent,
  type ClientRequest,
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import type { Socket } from "node:net";

export type ProxyFault =
  /** Destroy the client socket without forwarding anything. */
  | { type: "drop-before" }
  /** Forward, wait for the server's full response (it has applied the request), then destroy the client socket. */
  | { type: "drop-after" }
  /** Answer `status` with an S3-style XML error, never forwarding. */
  | { type: "status-before"; status: number }
  /** Forward, wait for the full response, discard it and answer `status` with an S3-style XML error. */
  | { type: "status-after"; status: number }
  /** Hold the fully received request for `ms`, then forward it; relay the reply only if the client is still there. */
  | { type: "stall"; ms: number }
  /** Wait `ms`, then forward normally. */
  | { type: "delay"; ms: number };

export interface ProxyRule {
  /** e.g. "PUT"; any method when omitted. */
  method?: string;
  /** Matched against the decoded request path without the query string; a string means equality. */
  path?: string | RegExp;
  /** Matched against the raw query string (without "?"), e.g. /uploadId=/ or /^uploads/. */
  query?: RegExp;
  /** Fire from the nth matching request on (1-based); with `times` unset it fires on that request only. */
  call?: number;
  /** Fire at most this many times (default: unlimited, or 1 when `call` is given). */
  times?: number;
  fault: ProxyFault;
}

export interface RandomFaults {
  /** Probability (0..1) that a matching request gets a fault. */
  rate: number;
  seed: number;
  /** One is chosen uniformly for each request that draws a fault. */
  faults: ProxyFault[];
  match?: { method?: string; path?: string | RegExp };
}

export interface ProxyEvent {
  seq: number;
  method: string;
  /** Decoded path without the query string. */
  path: string;
  /** Raw query string without "?". */
  query: string;
  fault: ProxyFault["type"] | "none";
  upstreamStatus?: number;
  /** The whole request was handed to the server. */
  forwarded: boolean;
  /** The proxy sent the client a response (relayed or injected). */
  replied: boolean;
  startedAt: number;
  endedAt?: number;
}

export interface FaultProxy {
  /** http://127.0.0.1:<port> */
  endpoint: string;
  /** Replaces the rules; their counters start again from zero. */
  setRules(rules: ProxyRule[]): void;
  /** Replaces the random faults (the generator restarts from the seed); `undefined` turns them off. */
  setRandom(random: RandomFaults | undefined): void;
  /** Every request seen since the start or the last `clearEvents()`, in arrival order (snapshots). */
  events(): readonly ProxyEvent[];
  clearEvents(): void;
  /** Resolves when no request is in flight (stalled ones included), or after timeoutMs (default 30 s). */
  idle(timeoutMs?: number): Promise<void>;
  /** Closes the listener, destroys open sockets, cuts stalls short (not forwarded), clears timers; idempotent. */
  stop(): Promise<void>;
}

export interface FaultProxyOptions {
  /** The S3 server, e.g. http://127.0.0.1:5000; only 127.0.0.1, localhost and ::1 are accepted. */
  target: string;
  rules?: ProxyRule[];
  random?: RandomFaults;
  /** The proxy stops by itself this long after it started (default 15 minutes). */
  maxLifetimeMs?: number;
}

const DEFAULT_MAX_LIFETIME_MS = 15 * 60_000;
const DEFAULT_IDLE_TIMEOUT_MS = 30_000;
/** Longer than any test's pause between requests, so the server seldom closes a socket a client is reusing. */
const CLIENT_KEEP_ALIVE_MS = 120_000;
const LOOPBACK_HOSTNAMES = new Set(["127.0.0.1", "localhost", "[::1]"]);
/** Headers that describe one hop; the proxy re-frames bodies (it buffers them) and manages its own sockets. */
const REQUEST_FRAMING_HEADERS = new Set(["expect", "transfer-encoding"]);
const RESPONSE_HOP_HEADERS = new Set(["connection", "keep-alive", "transfer-encoding"]);
const S3_ERROR_CODES: Record<number, string> = {
  403: "AccessDenied",
  404: "NoSuchKey",
  409: "OperationAborted",
  412: "PreconditionFailed",
  500: "InternalError",
  501: "NotImplemented",
  502: "BadGateway",
  503: "ServiceUnavailable",
  504: "GatewayTimeout",
};

interface Target {
  hostname: string;
  port: number;
}

interface RuleState {
  rule: ProxyRule;
  matched: number;
  fired: number;
}

interface RandomState {
  config: RandomFaults;
  next: () => number;
}

interface UpstreamReply {
  status: number;
  statusMessage: string;
  rawHeaders: string[];
  body: Buffer;
}

interface RequestLine {
  method: string;
  path: string;
  query: string;
}

/** Starts the proxy on a free 127.0.0.1 port; rejects when `target` is not a loopback http URL. */
export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  const target = parseLoopbackTarget(options.target);
  let rules = options.rules ? ruleStates(options.rules) : [];
  let random = options.random ? randomState(options.random) : undefined;
  let events: ProxyEvent[] = [];
  let seq = 0;
  let inFlight = 0;
  let stopped = false;
  let stopping: Promise<void> | undefined;
  const sockets = new Set<Socket>();
  const upstreams = new Set<ClientRequest>();
  const pauses = new Set<{ timer: NodeJS.Timeout; resolve: (elapsed: boolean) => void }>();
  const idleWaiters = new Set<() => void>();
  const agent = new Agent({ keepAlive: true });

  /** Resolves true after `ms`, or false as soon as the proxy stops. */
  function pause(ms: number): Promise<boolean> {
    if (stopped) return Promise.resolve(false);
    return new Promise((resolve) => {
      const entry = {
        timer: setTimeout(() => {
          pauses.delete(entry);
          resolve(true);
        }, ms),
        resolve,
      };
      entry.timer.unref();
      pauses.add(entry);
    });
  }

  function pickFault(line: RequestLine): ProxyFault | undefined {
    return pickRuleFault(rules, line) ?? pickRandomFault(random, line);
  }

  /** Sends the buffered request upstream; undefined when the server could not be reached or reply in full. */
  function forward(
    req: IncomingMessage,
    body: Buffer,
    event: ProxyEvent,
  ): Promise<UpstreamReply | undefined> {
    if (stopped) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const upstream = httpRequest({
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: forwardedRequestHeaders(req, body.length),
        setHost: false,
        agent,
      });
      upstreams.add(upstream);
      const settle = (reply: UpstreamReply | undefined) => {
        upstreams.delete(upstream);
        if (reply) event.upstreamStatus = reply.status;
        resolve(reply);
      };
      upstream.once("finish", () => {
        event.forwarded = true;
      });
      upstream.once("error", () => settle(undefined));
      upstream.once("response", (response) => {
        readWhole(response).then((responseBody) =>
          settle(
            responseBody && {
              status: response.statusCode ?? 502,
              statusMessage: response.statusMessage ?? "",
              rawHeaders: response.rawHeaders,
              body: responseBody,
            },
          ),
        );
      });
      upstream.end(body);
    });
  }

  async function passThrough(req: IncomingMessage, res: ServerResponse, body: Buffer, event: ProxyEvent) {
    const reply = await forward(req, body, event);
    if (!clientIsOpen(req, res)) return;
    if (reply) relay(req, res, reply);
    else replyS3Error(res, 502, event.seq, "The fault proxy could not get a reply from the S3 server.");
    event.replied = true;
  }

  async function applyFault(
    req: IncomingMessage,
    res: ServerResponse,
    fault: ProxyFault | undefined,
    expectsContinue: boolean,
    event: ProxyEvent,
  ): Promise<void> {
    if (fault?.type === "drop-before") {
      req.socket.destroy();
      return;
    }
    if (expectsContinue) res.writeContinue();
    const body = await readWhole(req);
    if (!body || stopped) return; // the client left before its body arrived: there is nothing to forward
    switch (fault?.type) {
      case undefined:
        return passThrough(req, res, body, event);
      case "delay":
      case "stall":
        if (!(await pause(fault.ms))) {
          req.socket.destroy(); // the proxy stopped: the held request is discarded, never forwarded
          return;
        }
        return passThrough(req, res, body, event);
      case "status-before":
        replyS3Error(res, fault.status, event.seq, "Injected by the fault proxy before forwarding.");
        event.replied = true;
        return;
      case "status-after":
        await forward(req, body, event);
        if (!clientIsOpen(req, res)) return;
        replyS3Error(res, fault.status, event.seq, "Injected by the fault proxy after the server answered.");
        event.replied = true;
        return;
      case "drop-after":
        await forward(req, body, event);
        req.socket.destroy();
        return;
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse, expectsContinue: boolean): Promise<void> {
    const line = requestLine(req);
    const fault = stopped ? undefined : pickFault(line);
    const event: ProxyEvent = {
      seq: ++seq,
      ...line,
      fault: fault?.type ?? "none",
      forwarded: false,
      replied: false,
      startedAt: Date.now(),
    };
    events.push(event);
    inFlight++;
    try {
      if (stopped) req.socket.destroy();
      else await applyFault(req, res, fault, expectsContinue, event);
    } catch {
      req.socket.destroy();
    } finally {
      event.endedAt = Date.now();
      inFlight--;
      if (inFlight === 0) for (const wake of [...idleWaiters]) wake();
    }
  }

  const server = createServer();
  server.keepAliveTimeout = CLIENT_KEEP_ALIVE_MS;
  server.on("connection", (socket: Socket) => {
    socket.unref();
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  server.on("request", (req: IncomingMessage, res: ServerResponse) => void handle(req, res, false));
  server.on("checkContinue", (req: IncomingMessage, res: ServerResponse) => void handle(req, res, true));
  server.on("clientError", (_error: Error, socket: Socket) => socket.destroy());

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  server.unref();
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;

  async function shutdown(): Promise<void> {
    stopped = true;
    clearTimeout(lifetime);
    for (const entry of pauses) {
      clearTimeout(entry.timer);
      entry.resolve(false);
    }
    pauses.clear();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    for (const socket of sockets) socket.destroy();
    for (const upstream of upstreams) upstream.destroy();
    agent.destroy();
    await closed;
  }

  const proxy: FaultProxy = {
    endpoint: `http://127.0.0.1:${port}`,
    setRules(next) {
      rules = ruleStates(next);
    },
    setRandom(next) {
      random = next ? randomState(next) : undefined;
    },
    events: () => events.map((event) => ({ ...event })),
    clearEvents() {
      events = [];
    },
    idle(timeoutMs = DEFAULT_IDLE_TIMEOUT_MS) {
      if (inFlight === 0) return Promise.resolve();
      return new Promise((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          idleWaiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, timeoutMs);
        timer.unref();
        idleWaiters.add(wake);
      });
    },
    stop() {
      stopping ??= shutdown();
      return stopping;
    },
  };
  const lifetime = setTimeout(() => void proxy.stop(), options.maxLifetimeMs ?? DEFAULT_MAX_LIFETIME_MS);
  lifetime.unref();
  return proxy;
}

function parseLoopbackTarget(target: string): Target {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new Error(`fault proxy: target ${JSON.stringify(target)} is not a URL`);
  }
  if (url.protocol !== "http:") throw new Error(`fault proxy: target ${target} must be an http:// URL`);
  if (!LOOPBACK_HOSTNAMES.has(url.hostname)) {
    throw new Error(`fault proxy: target ${target} is not on loopback (127.0.0.1, localhost or ::1)`);
  }
  if (url.pathname !== "/" || url.search !== "") {
    throw new Error(`fault proxy: target ${target} must not have a path or query (requests keep their own)`);
  }
  return { hostname: url.hostname === "[::1]" ? "::1" : url.hostname, port: Number(url.port || 80) };
}

function requestLine(req: IncomingMessage): RequestLine {
  const url = req.url ?? "/";
  const mark = url.indexOf("?");
  const rawPath = mark === -1 ? url : url.slice(0, mark);
  return {
    method: req.method ?? "GET",
    path: decodePath(rawPath),
    query: mark === -1 ? "" : url.slice(mark + 1),
  };
}

function decodePath(rawPath: string): string {
  try {
    return decodeURIComponent(rawPath);
  } catch {
    return rawPath;
  }
}

function ruleStates(rules: ProxyRule[]): RuleState[] {
  return rules.map((rule) => ({ rule, matched: 0, fired: 0 }));
}

function matches(
  filter: { method?: string; path?: string | RegExp; query?: RegExp },
  line: RequestLine,
): boolean {
  if (filter.method !== undefined && filter.method.toUpperCase() !== line.method.toUpperCase()) return false;
  if (!patternMatches(filter.path, line.path)) return false;
  return patternMatches(filter.query, line.query);
}

function patternMatches(pattern: string | RegExp | undefined, value: string): boolean {
  if (pattern === undefined) return true;
  if (typeof pattern === "string") return pattern === value;
  pattern.lastIndex = 0; // a /g or /y pattern would otherwise remember where its last match ended
  return pattern.test(value);
}

/** Every rule counts the requests it matches; the first one whose turn has come and has budget left fires. */
function pickRuleFault(states: RuleState[], line: RequestLine): ProxyFault | undefined {
  let chosen: ProxyFault | undefined;
  for (const state of states) {
    if (!matches(state.rule, line)) continue;
    state.matched++;
    const first = state.rule.call ?? 1;
    const budget = state.rule.times ?? (state.rule.call === undefined ? Number.POSITIVE_INFINITY : 1);
    if (chosen === undefined && state.matched >= first && state.fired < budget) {
      state.fired++;
      chosen = state.rule.fault;
    }
  }
  return chosen;
}

function randomState(config: RandomFaults): RandomState {
  if (!(config.rate >= 0 && config.rate <= 1))
    throw new Error(`fault proxy: random rate ${config.rate} not in 0..1`);
  if (config.rate > 0 && config.faults.length === 0)
    throw new Error("fault proxy: random faults list is empty");
  return { config, next: mulberry32(config.seed) };
}

/** Draws for matching requests only, so the fault sequence depends on the seed and those requests alone. */
function pickRandomFault(state: RandomState | undefined, line: RequestLine): ProxyFault | undefined {
  if (!state || !matches(state.config.match ?? {}, line)) return undefined;
  if (state.next() >= state.config.rate) return undefined;
  const faults = state.config.faults;
  return faults[Math.floor(state.next() * faults.length)];
}

/**
 * A tiny seeded PRNG (mulberry32): uniform floats in [0, 1), the same sequence for the same seed. Exported
 * so a fault run draws its own choices (operations, keys) reproducibly too.
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Reads a message to its end; undefined when the peer went away first. */
function readWhole(message: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    message.on("data", (chunk: Buffer) => chunks.push(chunk));
    message.once("end", () => resolve(Buffer.concat(chunks)));
    message.once("error", () => resolve(undefined));
    message.once("close", () => {
      if (!message.complete) resolve(undefined);
    });
  });
}

/**
 * The client's headers exactly as sent (names' case, order, duplicates and Host, which SigV4 signs), minus
 * Expect (the proxy answered 100 Continue itself) and Transfer-Encoding (the body is buffered, so it goes
 * with a Content-Length). In http.request's flat raw-header array form, so Node adds no Host of its own.
 */
function forwardedRequestHeaders(req: IncomingMessage, bodyLength: number): string[] {
  const headers: string[] = [];
  let hasLength = false;
  let wasChunked = false;
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!;
    const lower = name.toLowerCase();
    if (lower === "transfer-encoding") wasChunked = true;
    if (REQUEST_FRAMING_HEADERS.has(lower)) continue;
    if (lower === "content-length") hasLength = true;
    headers.push(name, req.rawHeaders[i + 1]!);
  }
  if (!hasLength && (wasChunked || bodyLength > 0)) headers.push("Content-Length", String(bodyLength));
  return headers;
}

function relay(req: IncomingMessage, res: ServerResponse, reply: UpstreamReply): void {
  const headers: string[] = [];
  let hasLength = false;
  for (let i = 0; i + 1 < reply.rawHeaders.length; i += 2) {
    const name = reply.rawHeaders[i]!;
    const lower = name.toLowerCase();
    if (RESPONSE_HOP_HEADERS.has(lower)) continue;
    if (lower === "content-length") hasLength = true;
    headers.push(name, reply.rawHeaders[i + 1]!);
  }
  if (!hasLength && req.method !== "HEAD") headers.push("Content-Length", String(reply.body.length));
  res.writeHead(reply.status, reply.statusMessage, headers);
  res.end(reply.body);
}

function replyS3Error(res: ServerResponse, status: number, seq: number, message: string): void {
  const code = S3_ERROR_CODES[status] ?? (status >= 500 ? "InternalError" : "InjectedFault");
  const requestId = `fault-proxy-${seq}`;
  const body =
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<Error><Code>${code}</Code><Message>${message}</Message><RequestId>${requestId}</RequestId></Error>`;
  res.writeHead(status, {
    "Content-Type": "application/xml",
    "Content-Length": Buffer.byteLength(body),
    "x-amz-request-id": requestId,
  });
  res.end(body);
}

function clientIsOpen(req: IncomingMessage, res: ServerResponse): boolean {
  return !req.socket.destroyed && !res.writableEnded;
}
