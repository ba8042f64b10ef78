/**
 * Reference for the live benchmark: a bare node:http Server-Sent Events server. Every RAW_SSE_INTERVAL_MS it writes
 * one precomputed frame `{sequence, at}` to every open stream — the least work delivering a tick can take here.
 */
import { createServer, type ServerResponse } from 'node:http';

const interval = Number(process.env.RAW_SSE_INTERVAL_MS ?? 2_000);
const streams = new Set<ServerResponse>();
let sequence = 0;

const server = createServer((req, res) => {
  if (req.url !== '/stream') {
    res.end('ok');
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  res.write(`data: ${JSON.stringify({ sequence, at: Date.now() })}\n\n`); // first frame at once, like ours
  streams.add(res);
  res.on('close', () => streams.delete(res));
});

setInterval(() => {
  sequence++;
  const frame = `data: ${JSON.stringify({ sequence, at: Date.now() })}\n\n`;
  for (const res of streams) res.write(frame);
}, interval);

server.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
