// Opens an HTML page in a real headless Chromium (Debian's `chromium`, or $CHROMIUM) through
// the DevTools protocol over --remote-debugging-pipe (nothing is downloaded), and reports
// what a person would see:
//   * every console message, uncaught exception and browser log entry (errors, warnings);
//   * every request the page made besides itself (a self-contained page makes none);
//   * the page's timelines (svg.timeline): how many, their shapes, and the links of the page
//     whose #targets do not exist;
//   * a PNG screenshot of the first timeline (written to SCREENSHOT.png), and its pixels:
//     how many differ from the page background, and how many have the fill colour of one
//     of the timeline's bars (rect elements) as the page's style computes it.
//
// usage: node chromium_page.mjs PAGE.html SCREENSHOT.png
// Prints one JSON object; exits 1 if Chromium cannot be started or does not answer.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';

const [pagePath, screenshotPath] = process.argv.slice(2);
if (!pagePath || !screenshotPath) {
  console.error('usage: node chromium_page.mjs PAGE.html SCREENSHOT.png');
  process.exit(2);
}

const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'chromium-profile-'));
const browser = spawn(process.env.CHROMIUM || 'chromium', [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--disable-dev-shm-usage', '--hide-scrollbars', '--window-size=1400,1000',
  `--user-data-dir=${profile}`, '--remote-debugging-pipe', 'about:blank',
], { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] });
let browserStderr = '';
browser.stderr.on('data', (d) => { browserStderr += d; });
const browserExited = new Promise((resolve) => browser.on('exit', resolve));
// Removes the profile once Chromium is gone (it writes there until it exits).
async function removeProfile() {
  await Promise.race([browserExited, new Promise((resolve) => setTimeout(resolve, 10000))]);
  try {
    fs.rmSync(profile, { recursive: true, force: true, maxRetries: 5 });
  } catch {
    // A leftover temporary directory is not worth failing for.
  }
}
const failAndExit = async (message) => {
  console.error(`${message}\n${browserStderr.slice(-4000)}`);
  browser.kill('SIGKILL');
  await removeProfile();
  process.exit(1);
};
browser.on('error', (e) => failAndExit(`cannot start chromium: ${e.message}`));
const guard = setTimeout(() => failAndExit('chromium did not finish within 120 s'), 120000);

// The protocol: JSON messages separated by NUL bytes, written to fd 3, read from fd 4.
const toBrowser = browser.stdio[3];
const fromBrowser = browser.stdio[4];
let nextId = 1;
const pending = new Map();
const listeners = [];
let buffered = '';
fromBrowser.on('data', (chunk) => {
  buffered += chunk.toString('utf8');
  let end;
  while ((end = buffered.indexOf('\0')) >= 0) {
    const message = JSON.parse(buffered.slice(0, end));
    buffered = buffered.slice(end + 1);
    if (message.id !== undefined && pending.has(message.id)) {
      const { resolve, reject } = pending.get(message.id);
      pending.delete(message.id);
      if (message.error) reject(new Error(JSON.stringify(message.error)));
      else resolve(message.result);
    } else {
      for (const listener of listeners) listener(message);
    }
  }
});
function send(method, params = {}, sessionId = undefined) {
  const id = nextId++;
  const message = { id, method, params };
  if (sessionId) message.sessionId = sessionId;
  toBrowser.write(JSON.stringify(message) + '\0');
  return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
}

const messages = [];   // console messages and exceptions
const logEntries = []; // browser log entries
const requests = [];   // URLs requested
let loaded;
const loadFired = new Promise((resolve) => { loaded = resolve; });
listeners.push((m) => {
  if (m.method === 'Runtime.consoleAPICalled') {
    messages.push({ type: m.params.type, text: m.params.args.map((a) => a.value ?? a.description).join(' ') });
  } else if (m.method === 'Runtime.exceptionThrown') {
    messages.push({ type: 'exception', text: m.params.exceptionDetails.text });
  } else if (m.method === 'Log.entryAdded') {
    logEntries.push({ level: m.params.entry.level, text: m.params.entry.text });
  } else if (m.method === 'Network.requestWillBeSent') {
    requests.push(m.params.request.url);
  } else if (m.method === 'Page.loadEventFired') {
    loaded();
  }
});

// Decodes an 8-bit RGB or RGBA, non-interlaced PNG (what Chromium writes).
function decodePng(bytes) {
  let offset = 8;
  let width = 0, height = 0, colorType = 0;
  const idat = [];
  while (offset < bytes.length) {
    const length = bytes.readUInt32BE(offset);
    const type = bytes.toString('latin1', offset + 4, offset + 8);
    const data = bytes.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      if (data[8] !== 8 || data[12] !== 0) throw new Error('unsupported PNG (bit depth or interlace)');
      colorType = data[9];
    } else if (type === 'IDAT') {
      idat.push(data);
    }
    offset += 12 + length;
  }
  const channels = colorType === 6 ? 4 : colorType === 2 ? 3 : 0;
  if (!channels) throw new Error(`unsupported PNG colour type ${colorType}`);
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const pixels = Buffer.alloc(height * stride);
  for (let y = 0; y < height; ++y) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; ++x) {
      const a = x >= channels ? pixels[y * stride + x - channels] : 0;
      const b = y > 0 ? pixels[(y - 1) * stride + x] : 0;
      const c = x >= channels && y > 0 ? pixels[(y - 1) * stride + x - channels] : 0;
      let predictor = 0;
      if (filter === 1) predictor = a;
      else if (filter === 2) predictor = b;
      else if (filter === 3) predictor = (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
        predictor = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      pixels[y * stride + x] = (line[x] + predictor) & 0xff;
    }
  }
  return { width, height, channels, pixels };
}

try {
  await send('Target.setDiscoverTargets', { discover: false });
  const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true });
  for (const domain of ['Page', 'Runtime', 'Log', 'Network']) await send(`${domain}.enable`, {}, sessionId);
  const url = 'file://' + path.resolve(pagePath);
  const started = Date.now();
  await send('Page.navigate', { url }, sessionId);
  await loadFired;
  const loadMs = Date.now() - started;
  const { result } = await send('Runtime.evaluate', {
    returnByValue: true,
    expression: `(() => {
      const timelines = [...document.querySelectorAll('svg.timeline')];
      const box = timelines.length ? timelines[0].getBoundingClientRect() : null;
      const broken = [...document.querySelectorAll('a[href^="#"]')]
          .map((a) => a.getAttribute('href'))
          .filter((href) => !document.getElementById(href.slice(1)));
      return {
        title: document.title,
        timelines: timelines.length,
        shapes: document.querySelectorAll('svg.timeline rect, svg.timeline path').length,
        links: document.querySelectorAll('a[href^="#"]').length,
        brokenLinks: broken,
        scripts: document.scripts.length,
        box: box && { x: box.x + scrollX, y: box.y + scrollY, width: box.width, height: box.height },
        fills: timelines.length ? [...new Set([...timelines[0].querySelectorAll('rect')]
            .map((r) => getComputedStyle(r).fill))] : [],
        background: getComputedStyle(document.body).backgroundColor,
      };
    })()`,
  }, sessionId);
  const page = result.value;
  let pixels = null;
  if (page.box) {
    const shot = await send('Page.captureScreenshot', {
      format: 'png', captureBeyondViewport: true,
      clip: { x: page.box.x, y: page.box.y, width: page.box.width, height: page.box.height, scale: 1 },
    }, sessionId);
    const png = Buffer.from(shot.data, 'base64');
    fs.writeFileSync(screenshotPath, png);
    const image = decodePng(png);
    const fills = page.fills.map((f) => f.match(/\d+/g).slice(0, 3).map(Number));
    let nonBackground = 0, bars = 0;
    for (let i = 0; i < image.width * image.height; ++i) {
      const r = image.pixels[i * image.channels];
      const g = image.pixels[i * image.channels + 1];
      const b = image.pixels[i * image.channels + 2];
      if (r < 245 || g < 245 || b < 245) ++nonBackground;
      if (fills.some(([fr, fg, fb]) => Math.abs(r - fr) <= 3 && Math.abs(g - fg) <= 3 && Math.abs(b - fb) <= 3)) {
        ++bars;
      }
    }
    pixels = { width: image.width, height: image.height, nonBackground, bars };
  }
  await send('Browser.close').catch(() => {});
  clearTimeout(guard);
  const others = requests.filter((r) => r !== url);
  await removeProfile();
  console.log(JSON.stringify({ loadMs, messages, logEntries, requests: others, page, pixels }));
  process.exit(0);
} catch (e) {
  failAndExit(`DevTools protocol error: ${e.stack ?? e}`);
}
