// A scripted OTLP/HTTP receiver for the export tests: listens on 127.0.0.1 only, answers
// each request as the script says, and records what it received.
//
//   node otlp_receiver.mjs --ready FILE --record FILE [--bodies FILE] [--script LIST]
//                          [--delay-ms N] [--lifetime-s N]
//
//   --ready FILE     written (atomically) with the port once listening
//   --record FILE    one JSON line per request: {"n","method","url","headers","bytes",
//                    "status","t_ms"} (t_ms: when it arrived, ms since the epoch)
//   --bodies FILE    the body of every request answered 2xx, one per line (each body is one
//                    line of JSON), for otlp_schema_check.mjs
//   --script LIST    comma-separated answers for the 1st, 2nd, … request: STATUS,
//                    STATUS:RETRY_AFTER_SECONDS, "hang" (never answer), "hold" (answer 200
//                    once the file <record FILE>.release exists), "partial:N" (200 with a
//                    partialSuccess rejecting N spans), "close" (drop the connection);
//                    requests after the list get 200
//   --delay-ms N     wait N ms before each answer (a slow collector)
//   --lifetime-s N   exit after N seconds whatever happens (default 120), so that a test
//                    that forgets the receiver cannot leave it running
// SIGTERM closes it. Every answer is JSON: {} for success, a google.rpc.Status otherwise.
import { createServer } from 'node:http';
import { appendFileSync, existsSync, renameSync, writeFileSync } from 'node:fs';

const args = process.argv.slice(2);
function option(name, fallback) {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
}
const readyFile = option('--ready');
const recordFile = option('--record');
const bodiesFile = option('--bodies');
const script = (option('--script', '') || '').split(',').filter((s) => s !== '');
const delayMs = Number(option('--delay-ms', '0'));
const lifetimeS = Number(option('--lifetime-s', '120'));
if (!readyFile || !recordFile) {
  console.error('usage: node otlp_receiver.mjs --ready FILE --record FILE [options]');
  process.exit(2);
}

let count = 0;
const hanging = [];

function answer(res, status, body, headers = {}) {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const n = count++;
    const body = Buffer.concat(chunks);
    const step = n < script.length ? script[n] : '200';
    const [kind, arg] = step.split(':');
    const status = kind === 'hang' || kind === 'close' ? 0
      : kind === 'partial' || kind === 'hold' ? 200 : Number(kind);
    appendFileSync(recordFile, JSON.stringify({
      n, method: req.method, url: req.url, headers: req.headers, bytes: body.length, status,
      t_ms: Date.now(),
    }) + '\n');
    if (status >= 200 && status < 300 && bodiesFile) {
      appendFileSync(bodiesFile, body.toString('utf8').replace(/\n+$/, '') + '\n');
    }
    const respond = () => {
      if (kind === 'hang') {
        hanging.push(res);
        return;
      }
      if (kind === 'close') {
        req.socket.destroy();
        return;
      }
      if (kind === 'hold') {
        const poll = setInterval(() => {
          if (!existsSync(`${recordFile}.release`)) return;
          clearInterval(poll);
          answer(res, 200, {});
        }, 50);
        return;
      }
      if (kind === 'partial') {
        answer(res, 200, { partialSuccess: { rejectedSpans: String(arg), errorMessage: 'test rejection' } });
      } else if (status >= 200 && status < 300) {
        answer(res, status, {});
      } else {
        answer(res, status, { code: status === 400 ? 3 : 14, message: `scripted ${status} from the test receiver` },
          arg !== undefined ? { 'Retry-After': arg } : {});
      }
    };
    if (delayMs > 0) setTimeout(respond, delayMs); else respond();
  });
});

server.listen(0, '127.0.0.1', () => {
  const tmp = `${readyFile}.tmp`;
  writeFileSync(tmp, String(server.address().port));
  renameSync(tmp, readyFile);
});

function stop() {
  for (const res of hanging) res.socket?.destroy();
  server.close();
  process.exit(0);
}
process.on('SIGTERM', stop);
setTimeout(stop, lifetimeS * 1000).unref();
