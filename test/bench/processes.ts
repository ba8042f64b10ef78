import { spawn, type ChildProcess } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { createServer, Socket } from 'node:net';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** Whether something accepts TCP connections on 127.0.0.1:`port` now (a server's readiness probe). */
export function acceptsTcp(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.connect(port, '127.0.0.1');
  });
}

/** How long a started server may take to answer its probe (BENCH_START_SECONDS: more on a loaded machine). */
const START_SECONDS = Number(process.env.BENCH_START_SECONDS ?? 30);

export interface Child {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Most of a child's stderr passed on: a reference gateway can log gigabytes when a load run drops its connections. */
const STDERR_PASSED_BYTES = 64 * 1024;
const STDERR_TAIL_BYTES = 4 * 1024;

/** Passes a child's stderr on up to a bound, then only counts it; keeps its last bytes for error messages. */
function boundedStderr(child: ChildProcess, script: string): { tail(): string } {
  let passed = 0;
  let dropped = 0;
  let last = Buffer.alloc(0);
  child.stderr?.on('data', (chunk: Buffer) => {
    last = Buffer.concat([last, chunk]).subarray(-STDERR_TAIL_BYTES);
    if (passed < STDERR_PASSED_BYTES) {
      const part = chunk.subarray(0, STDERR_PASSED_BYTES - passed);
      process.stderr.write(part);
      passed += part.length;
      dropped += chunk.length - part.length;
    } else dropped += chunk.length;
  });
  child.once('exit', () => {
    if (dropped > 0) process.stderr.write(`\n(${script}: ${dropped} more bytes of stderr not shown)\n`);
  });
  return { tail: () => (last.length ? `; its stderr ended with: ${last.toString('utf8')}` : '') };
}

/**
 * Starts `node script` with `env`, waits until `probePath` answers, and returns its base URL. `nodeArgs` go to node
 * itself (e.g. `--cpu-prof`), `args` to the script. `prefix` is a command that execs node, e.g. `['taskset', '-c', '0']`
 * (the process keeps its pid).
 */
export async function startNode(
  script: string,
  env: Record<string, string>,
  probePath = '/healthz',
  args: string[] = [],
  nodeArgs: string[] = [],
  prefix: string[] = [],
): Promise<Child> {
  const port = await freePort();
  const [command, ...commandArgs] = [...prefix, process.execPath, ...nodeArgs, script, ...args] as [
    string,
    ...string[],
  ];
  const child = spawn(command, commandArgs, {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const stderr = boundedStderr(child, script);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + START_SECONDS * 1000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}${stderr.tail()}`);
    try {
      const res = await fetch(url + probePath);
      await res.arrayBuffer();
      break;
    } catch {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(
          `${script} did not answer on ${url}${probePath} within ${START_SECONDS} s (BENCH_START_SECONDS)${stderr.tail()}`,
        );
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url,
    process: child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(); // ended (or killed) already
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
      }),
  };
}

/** A port free for both TCP and UDP on 127.0.0.1 (the DNS server takes both). */
export async function freeDnsPort(): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = await freePort();
    const udp = createSocket('udp4');
    const udpFree = await new Promise<boolean>((resolve) => {
      udp.once('error', () => resolve(false));
      udp.bind(port, '127.0.0.1', () => resolve(true));
    });
    await new Promise<void>((r) => udp.close(() => r()));
    const tcp = createServer();
    const tcpFree = await new Promise<boolean>((resolve) => {
      tcp.once('error', () => resolve(false));
      tcp.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (tcpFree) await new Promise((r) => tcp.close(r));
    if (udpFree && tcpFree) return port;
  }
  throw new Error('no port free for both TCP and UDP');
}
