import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

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

export interface Child {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts `node script` with `env`, waits until `probePath` answers, and returns its base URL. `nodeArgs` go to node
 * itself (e.g. `--cpu-prof`), `args` to the script.
 */
export async function startNode(
  script: string,
  env: Record<string, string>,
  probePath = '/healthz',
  args: string[] = [],
  nodeArgs: string[] = [],
): Promise<Child> {
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeArgs, script, ...args], {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}`);
    try {
      const res = await fetch(url + probePath);
      await res.arrayBuffer();
      break;
    } catch {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`${script} did not answer on ${url}${probePath} within 30 s`);
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
