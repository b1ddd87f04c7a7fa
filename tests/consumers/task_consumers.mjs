// Reads the Chrome Trace Event file of a program that uses tasks and gauges
// (`tracewire decode --format=chrome`) with the consumers people open it with, and compares
// what they build with what the trace holds:
//   * the Chrome DevTools trace engine (@paulirish/trace_engine) must parse it without an
//     exception or a logged error, and its flow handler must rebuild one flow per task that
//     crossed threads, through one X slice (the task's segment) per thread it worked on,
//     in the order of the hops, each on another thread than the one before;
//   * the async slices: one nestable "b" and one "e" per task, paired by id2.local;
//   * the gauges: one "C" series per gauge holding every sample, in order;
//   * an excluded category: no event of it anywhere;
//   * speedscope's importer: zero warnings, and one call per region and per segment.
//
// usage: node task_consumers.mjs TRACE.json EXPECTED.json
// EXPECTED.json: {"tasks":N, "ended":N, "hops":[[thread name,...] per task that crossed
//   threads, in task order], "gauges":{series name:[values...]}, "excluded":CATEGORY,
//   "slices":N (regions + segments), "hops_any_order":BOOL (optional: compare the flows'
//   hop lists as a multiset)}
// Prints one JSON summary line; exits 1 with the differences on stderr.
import fs from 'node:fs';
import { analyzeQuietly } from './trace_engine.mjs';
import { loadSpeedscopeImporter } from './speedscope_importer.mjs';

const [tracePath, expectedPath] = process.argv.slice(2);
if (!tracePath || !expectedPath) {
  console.error('usage: node task_consumers.mjs TRACE.json EXPECTED.json');
  process.exit(2);
}
const traceText = fs.readFileSync(tracePath, 'utf8');
const events = JSON.parse(traceText).traceEvents;
const expected = JSON.parse(fs.readFileSync(expectedPath, 'utf8'));
const failures = [];
const fail = (message) => {
  if (failures.length < 50) failures.push(message);
};

const threadName = new Map();  // "pid:tid" -> name
for (const e of events) {
  if (e.ph === 'M' && e.name === 'thread_name') threadName.set(`${e.pid}:${e.tid}`, e.args.name);
}

// ---- The DevTools trace engine and its flows. ----
const { parsedTrace, logged, error } = await analyzeQuietly(JSON.parse(traceText).traceEvents);
if (error !== undefined) fail(`trace engine: exception: ${error.stack ?? error}`);
for (const message of logged) fail(`trace engine logged: ${message}`);
let flowSteps = 0;
const flows = parsedTrace?.Flows?.flows ?? [];
if (parsedTrace) {
  if (flows.length !== expected.hops.length) {
    fail(`trace engine: ${flows.length} flows, the trace has ${expected.hops.length} tasks that crossed threads`);
  }
  // The flows in the order of their first event; the tasks in the order they began.
  const ordered = flows.map((flow) => [...flow].sort((a, b) => a.ts - b.ts))
                       .sort((a, b) => a[0].ts - b[0].ts);
  // With "hops_any_order" (a window: tasks re-stated at its start share one time) the
  // flows' hop lists are compared as a multiset.
  const flowNames = ordered.map((flow) => JSON.stringify(flow.map((e) => threadName.get(`${e.pid}:${e.tid}`))));
  const expectedNames = expected.hops.map((hops) => JSON.stringify(hops));
  if (expected.hops_any_order) {
    flowNames.sort();
    expectedNames.sort();
  }
  for (let i = 0; i < Math.min(ordered.length, expected.hops.length); ++i) {
    const flow = ordered[i];
    if (flowNames[i] !== expectedNames[i]) {
      fail(`trace engine: flow ${i} goes through ${flowNames[i]}, the task through ${expectedNames[i]}`);
    }
    for (let j = 0; j < flow.length; ++j) {
      if (flow[j].ph !== 'X') fail(`trace engine: flow ${i} binds a ${flow[j].ph} event`);
      if (j > 0 && flow[j].tid === flow[j - 1].tid) fail(`trace engine: flow ${i} stays on tid ${flow[j].tid}`);
    }
    flowSteps += flow.length - 1;
  }
}
// The flow phase events themselves: one "s", one "f" and a "t" per middle hop per flow.
const phases = { s: 0, t: 0, f: 0 };
for (const e of events) if (e.ph in phases && e.name === 'task') ++phases[e.ph];
const middle = expected.hops.reduce((n, hops) => n + hops.length - 2, 0);
if (phases.s !== expected.hops.length || phases.f !== expected.hops.length || phases.t !== middle) {
  fail(`flow events: ${JSON.stringify(phases)}, expected s=f=${expected.hops.length} t=${middle}`);
}

// ---- Async slices. ----
const open = new Map();
let begun = 0;
let ended = 0;
for (const e of events) {
  if (e.ph === 'b') {
    ++begun;
    const key = `${e.pid}:${e.id2?.local}`;
    if (open.has(key)) fail(`async: task ${key} begins twice`);
    open.set(key, e);
  } else if (e.ph === 'e') {
    ++ended;
    const key = `${e.pid}:${e.id2?.local}`;
    const b = open.get(key);
    if (!b) fail(`async: task ${key} ends without a begin`);
    else if (b.cat !== e.cat || b.name !== e.name || e.ts < b.ts) fail(`async: task ${key} ends unlike it began`);
    open.delete(key);
  }
}
if (begun !== expected.tasks || ended !== expected.ended) {
  fail(`async: ${begun} b and ${ended} e, the trace has ${expected.tasks} tasks, ${expected.ended} ended`);
}

// ---- Gauges. ----
const series = {};
for (const e of events) {
  if (e.ph === 'C' && e.cat === 'gauge') (series[e.name] ??= []).push(e.args.value);
}
let samples = 0;
for (const [name, values] of Object.entries(expected.gauges)) {
  const got = series[name] ?? [];
  samples += got.length;
  if (JSON.stringify(got) !== JSON.stringify(values)) {
    fail(`gauge ${name}: ${got.length} points, the trace has ${values.length} samples (or other values)`);
  }
}
for (const name of Object.keys(series)) {
  if (!(name in expected.gauges)) fail(`gauge series ${name} is not in the trace`);
}

// ---- The excluded category. ----
let excluded = 0;
for (const e of events) {
  if (e.cat === expected.excluded || (e.name ?? '').includes(expected.excluded)) ++excluded;
}
if (excluded !== 0) fail(`${excluded} events of the excluded category ${expected.excluded}`);

// ---- speedscope. ----
const speedscope = loadSpeedscopeImporter();
let calls = 0;
try {
  const group = await speedscope.importProfileGroupFromText('trace.json', traceText);
  for (const profile of group.profiles) profile.forEachCall(() => {}, () => ++calls);
} catch (e) {
  fail(`speedscope: exception: ${e.stack ?? e}`);
}
for (const message of speedscope.warnings.slice(0, 10)) fail(`speedscope warned: ${message}`);
for (const message of speedscope.errors) fail(`speedscope logged an error: ${message}`);
if (calls !== expected.slices) fail(`speedscope: ${calls} calls, the trace has ${expected.slices} regions and segments`);

console.log(JSON.stringify({
  flows: flows.length, flow_steps: flowSteps, async_tasks: begun, gauge_series: Object.keys(series).length,
  gauge_samples: samples, speedscope_calls: calls, speedscope_warnings: speedscope.warnings.length,
}));
if (failures.length > 0) {
  for (const message of failures) console.error(message);
  process.exit(1);
}
