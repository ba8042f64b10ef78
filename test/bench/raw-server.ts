import { createServer } from 'node:http';

/**
 * The ceiling: a bare node:http server answering every request with a fixed JSON body (given in RAW_BODY_FILE),
 * as fast as Node can. Benchmarks report our throughput as a ratio of this one's, measured in the same run.
 */
import { readFileSync } from 'node:fs';

const body = Buffer.from(readFileSync(process.env.RAW_BODY_FILE as string));
createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
    res.end(body);
  });
}).listen(Number(process.env.PORT), '127.0.0.1');
