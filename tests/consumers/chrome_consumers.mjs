// Reads a Chrome Trace Event file written by `tracewire decode --format=chrome` with the
// consumers people open such files with, and compares what they build with what the trace
// holds:
//   * the Chrome DevTools Performance panel's trace engine (@paulirish/trace_engine, the
//     same code as analyze-trace.mjs): it must parse without an exception or a logged
//     error, and build, per thread, exactly one slice per region with the region's name and
//     duration (within 1 us), one slice per child process on the children tracks, the
//     process names, and the flows from child slices to child processes;
//   * speedscope's importer (see speedscope_importer.mjs): it must import the file as the
//     Trace Event Format with zero warnings, and build the same calls per thread.
//
// usage: node chrome_consumers.mjs TRACE.json EXPECTED.json
// EXPECTED.json (written by the test from the reader's events):
//   {"processes":[{"sid":S,"name":N,"children":C,
//                  "threads":[{"name":T,"regions":[[label,duration_ns],...]}]}],
//    "flows":F}
// Prints one JSON summary line per consumer; exits 1 with the differences on stderr.
import fs from 'node:fs';
import { analyzeQuietly } from './trace_engine.mjs';
import { loadSpeedscopeImporter } from './speedscope_importer.mjs';

const [tracePath, expectedPath] = process.argv.slice(2);
if (!tracePath || !expectedPath) {
  console.error('usage: node chrome_consumers.mjs TRACE.json EXPECTED.json');
  process.exit(2);
}
const traceText = fs.readFileSync(tracePath, 'utf8');
const expected = JSON.parse(fs.readFileSync(expectedPath, 'utf8'));
const failures = [];
const fail = (message) => {
  if (failures.length < 50) failures.push(message);
};

// The sid of each pid, from our own process_labels metadata ("<command>,<sid>").
const sidOfPid = new Map();
for (const event of JSON.parse(traceText).traceEvents) {
  if (event.ph === 'M' && event.name === 'process_labels') {
    sidOfPid.set(event.pid, event.args.labels.split(',').pop());
  }
}
const pidOfSid = new Map([...sidOfPid].map(([pid, sid]) => [sid, pid]));

const isChildrenTrack = (name) => /^children( \d+)?$/.test(name ?? '');

// Compares [name, duration_us] slices with the expected [name, duration_ns] regions.
function compareSlices(where, actual, wanted) {
  if (actual.length !== wanted.length) {
    fail(`${where}: ${actual.length} slices, the trace has ${wanted.length} regions`);
    return;
  }
  const byNameThenDuration = (a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]);
  const a = actual.map(([name, us]) => [name, us * 1000]).sort(byNameThenDuration);
  const w = [...wanted].sort(byNameThenDuration);
  let reported = 0;
  for (let i = 0; i < a.length; ++i) {
    if (a[i][0] !== w[i][0] || Math.abs(a[i][1] - w[i][1]) > 1000) {
      if (reported++ < 5) {
        fail(`${where}: slice ${JSON.stringify(a[i])} (ns) where the trace has region ` +
             `${JSON.stringify(w[i])}`);
      }
    }
  }
}

// ---- The DevTools trace engine. ----
async function checkTraceEngine() {
  const { parsedTrace, logged, error } = await analyzeQuietly(JSON.parse(traceText).traceEvents);
  for (const message of logged) fail(`trace engine logged: ${message}`);
  if (error !== undefined) {
    fail(`trace engine: exception: ${error.stack ?? error}`);
    return { consumer: 'trace_engine', ok: false };
  }

  let slices = 0;
  for (const process of expected.processes) {
    const pid = pidOfSid.get(process.sid);
    const rendered = parsedTrace.Renderer.processes.get(pid);
    if (pid === undefined || !rendered) {
      fail(`trace engine: no process for sid ${process.sid}`);
      continue;
    }
    const name = parsedTrace.Meta.processNames.get(pid)?.args?.name;
    if (name !== process.name) fail(`trace engine: pid ${pid} is named "${name}", not "${process.name}"`);
    const threadsByName = new Map();
    let children = 0;
    for (const [tid, thread] of rendered.threads) {
      const complete = thread.entries.filter((e) => e.ph === 'X');
      if (isChildrenTrack(thread.name)) {
        children += complete.length;
      } else {
        threadsByName.set(thread.name, complete);
      }
    }
    if (children !== process.children) {
      fail(`trace engine: sid ${process.sid}: ${children} child slices, the trace has ${process.children}`);
    }
    for (const thread of process.threads) {
      const complete = threadsByName.get(thread.name) ?? [];
      slices += complete.length;
      compareSlices(`trace engine: sid ${process.sid} thread ${thread.name}`,
                    complete.map((e) => [e.name, e.dur]), thread.regions);
    }
  }
  // Flows: each from a child slice (children track) to the child process's first event.
  const flows = parsedTrace.Flows.flows;
  if (flows.length !== expected.flows) fail(`trace engine: ${flows.length} flows, expected ${expected.flows}`);
  for (const flow of flows) {
    const [from, to] = [...flow].sort((a, b) => a.ts - b.ts);
    if (flow.length !== 2 || from.ph !== 'X' || from.cat !== 'process' ||
        sidOfPid.get(to.pid) === undefined ||
        !sidOfPid.get(to.pid).startsWith(sidOfPid.get(from.pid) + '/')) {
      fail(`trace engine: flow does not link a child slice to a child process: ${JSON.stringify(flow)}`);
    }
  }
  return {
    consumer: 'trace_engine',
    processes: parsedTrace.Renderer.processes.size,
    slices,
    flows: flows.length,
  };
}

// ---- speedscope. ----
async function checkSpeedscope() {
  const speedscope = loadSpeedscopeImporter();
  let group;
  try {
    group = await speedscope.importProfileGroupFromText('trace.json', traceText);
  } catch (e) {
    fail(`speedscope: exception: ${e.stack ?? e}`);
    return { consumer: 'speedscope', ok: false };
  }
  if (!speedscope.logs.includes('Importing as Trace Event Format profile')) {
    fail(`speedscope: not imported as the Trace Event Format: ${speedscope.logs.join('; ')}`);
  }
  for (const message of speedscope.warnings.slice(0, 10)) fail(`speedscope warned: ${message}`);
  if (speedscope.warnings.length > 10) fail(`speedscope: ${speedscope.warnings.length} warnings in all`);
  for (const message of speedscope.errors) fail(`speedscope logged an error: ${message}`);
  if (!group) {
    fail('speedscope: no profile group');
    return { consumer: 'speedscope', ok: false };
  }

  // Profiles are named "<process> (pid P), <thread> (tid T)".
  const calls = new Map();  // "pid:tid" -> [[name, duration_us]]
  const threadNames = new Map();
  for (const profile of group.profiles) {
    const match = profile.getName().match(/\(pid (\d+)\)?, (.*) \(tid (\d+)\)$/) ??
                  profile.getName().match(/\(pid (\d+), ()tid (\d+)\)$/);
    if (!match) {
      fail(`speedscope: unexpected profile name ${profile.getName()}`);
      continue;
    }
    const key = `${match[1]}:${match[3]}`;
    threadNames.set(key, match[2]);
    const list = [];
    const open = [];
    profile.forEachCall((node, value) => open.push(value), (node, value) => {
      // Frame names are "<event name> <JSON of args>".
      list.push([node.frame.name.replace(/ \{.*\}$/s, ''), value - open.pop()]);
    });
    calls.set(key, list);
  }
  let total = 0;
  for (const process of expected.processes) {
    const pid = pidOfSid.get(process.sid);
    const byThread = new Map();
    let children = 0;
    for (const [key, list] of calls) {
      if (!key.startsWith(`${pid}:`)) continue;
      if (isChildrenTrack(threadNames.get(key))) {
        children += list.length;
      } else {
        byThread.set(threadNames.get(key), list);
      }
    }
    if (children !== process.children) {
      fail(`speedscope: sid ${process.sid}: ${children} child calls, the trace has ${process.children}`);
    }
    for (const thread of process.threads) {
      const list = byThread.get(thread.name) ?? [];
      total += list.length;
      compareSlices(`speedscope: sid ${process.sid} thread ${thread.name}`, list, thread.regions);
    }
  }
  return {
    consumer: 'speedscope',
    version: speedscope.version,
    profiles: group.profiles.length,
    calls: total,
    warnings: speedscope.warnings.length,
  };
}

const results = [await checkTraceEngine(), await checkSpeedscope()];
for (const result of results) console.log(JSON.stringify(result));
if (failures.length > 0) {
  console.error(failures.join('\n'));
  process.exit(1);
}
