// Reads the CPU profile of a trace, as `tracewire decode --format=chrome` and
// `--format=folded` write it, with the consumers people open them with, and compares what
// they build with what the trace holds:
//   * the Chrome DevTools Performance panel's trace engine (@paulirish/trace_engine): it
//     must parse without an exception or a logged error; its samples handler must build one
//     CPU profile per sampled thread with exactly the trace's samples, each function in as
//     many samples as in the trace; and its timeline must put each burning function's
//     profile calls inside the region the trace says it ran in;
//   * speedscope's importer (see speedscope_importer.mjs): the Chrome JSON must import with a
//     profile per sampled thread, and the folded file as one profile whose total weight is
//     the trace's and whose burning functions have the trace's weights, both with zero
//     warnings.
//
// usage: node cpu_profile_consumers.mjs TRACE.json FOLDED.txt EXPECTED.json
// EXPECTED.json (written by the test from the reader's events):
//   {"threads":[{"name":T,"samples":N,"functions":{F:N,...},"region":R}],
//    "folded_weight":W,"function_weights":{F:W,...}}
// "functions" counts the samples whose stack holds F; "region" (optional) is the region
// the thread's functions run in; "function_weights" sums the weights of the samples whose
// stack holds F.
// Prints one JSON summary line per consumer; exits 1 with the differences on stderr.
import fs from 'node:fs';
import { analyzeQuietly } from './trace_engine.mjs';
import { loadSpeedscopeImporter } from './speedscope_importer.mjs';

const [tracePath, foldedPath, expectedPath] = process.argv.slice(2);
if (!tracePath || !foldedPath || !expectedPath) {
  console.error('usage: node cpu_profile_consumers.mjs TRACE.json FOLDED.txt EXPECTED.json');
  process.exit(2);
}
const traceText = fs.readFileSync(tracePath, 'utf8');
const foldedText = fs.readFileSync(foldedPath, 'utf8');
const expected = JSON.parse(fs.readFileSync(expectedPath, 'utf8'));
const failures = [];
const fail = (message) => {
  if (failures.length < 50) failures.push(message);
};

// Thread names by "pid:tid", from the file's thread_name metadata.
const threadNames = new Map();
for (const event of JSON.parse(traceText).traceEvents) {
  if (event.ph === 'M' && event.name === 'thread_name') {
    threadNames.set(`${event.pid}:${event.tid}`, event.args.name);
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

  const profiles = new Map();  // thread name -> {pid, tid, raw}
  for (const [pid, byThread] of parsedTrace.Samples.profilesInProcess) {
    for (const [tid, profile] of byThread) {
      profiles.set(threadNames.get(`${pid}:${tid}`), { pid, tid, raw: profile.rawProfile });
    }
  }
  let samples = 0;
  let insideRegions = 0;
  for (const thread of expected.threads) {
    const profile = profiles.get(thread.name);
    if (!profile) {
      fail(`trace engine: no CPU profile for thread ${thread.name}`);
      continue;
    }
    const raw = profile.raw;
    if (raw.samples.length !== thread.samples) {
      fail(`trace engine: thread ${thread.name}: ${raw.samples.length} samples, the trace has ${thread.samples}`);
    }
    samples += raw.samples.length;
    const nodes = new Map(raw.nodes.map((n) => [n.id, n]));
    const counts = {};
    for (const id of raw.samples) {
      const seen = new Set();
      for (let node = nodes.get(id); node; node = nodes.get(node.parent)) {
        seen.add(node.callFrame.functionName);
      }
      for (const name of seen) counts[name] = (counts[name] ?? 0) + 1;
    }
    for (const [name, count] of Object.entries(thread.functions)) {
      if ((counts[name] ?? 0) !== count) {
        fail(`trace engine: thread ${thread.name}: ${counts[name] ?? 0} samples in ${name}, the trace has ${count}`);
      }
    }
    // The timeline: the functions' profile calls lie inside the thread's region.
    if (thread.region) {
      const entries = parsedTrace.Renderer.processes.get(profile.pid)?.threads.get(profile.tid)?.entries ?? [];
      const region = entries.find((e) => e.ph === 'X' && e.name === thread.region);
      if (!region) {
        fail(`trace engine: thread ${thread.name}: no slice for region ${thread.region}`);
        continue;
      }
      const calls = entries.filter((e) => e.callFrame && e.callFrame.functionName in thread.functions);
      if (calls.length === 0) fail(`trace engine: thread ${thread.name}: no profile calls on the timeline`);
      for (const call of calls) {
        if (call.ts < region.ts || call.ts + (call.dur ?? 0) > region.ts + region.dur + 1) {
          fail(`trace engine: thread ${thread.name}: ${call.callFrame.functionName} at ${call.ts} outside ${thread.region}`);
        } else {
          ++insideRegions;
        }
      }
    }
  }
  return { consumer: 'trace_engine', profiles: profiles.size, samples, calls_inside_regions: insideRegions };
}

// ---- speedscope. ----
async function importWithSpeedscope(name, fileName, text) {
  const speedscope = loadSpeedscopeImporter();
  let group;
  try {
    group = await speedscope.importProfileGroupFromText(fileName, text);
  } catch (e) {
    fail(`speedscope (${name}): exception: ${e.stack ?? e}`);
    return null;
  }
  for (const message of speedscope.warnings.slice(0, 10)) fail(`speedscope (${name}) warned: ${message}`);
  for (const message of speedscope.errors) fail(`speedscope (${name}) logged an error: ${message}`);
  if (!group) fail(`speedscope (${name}): no profile group`);
  return { group, speedscope };
}

async function checkSpeedscope() {
  // speedscope reads a Trace Event file with slices as the Trace Event Format (the regions,
  // one profile per thread, named "<process> (pid P), <thread> (tid T)"); its CPU-profile
  // reading is for files of samples alone. So the Chrome JSON must import with a profile
  // per sampled thread and zero warnings, and the samples' flame graph is the folded file's.
  const chrome = await importWithSpeedscope('chrome', 'trace.json', traceText);
  let chromeProfiles = 0;
  if (chrome?.group) {
    for (const thread of expected.threads) {
      const profile = chrome.group.profiles.find((p) => p.getName().includes(`, ${thread.name} (tid `));
      if (!profile) {
        fail(`speedscope (chrome): no profile for thread ${thread.name}: ${chrome.group.profiles.map((p) => p.getName())}`);
        continue;
      }
      ++chromeProfiles;
    }
  }
  const folded = await importWithSpeedscope('folded', 'cpu.folded', foldedText);
  let foldedWeight = 0;
  if (folded?.group) {
    const weights = new Map();
    for (const profile of folded.group.profiles) {
      foldedWeight += profile.getTotalWeight();
      profile.forEachFrame((frame) => weights.set(frame.name, (weights.get(frame.name) ?? 0) + frame.getTotalWeight()));
    }
    for (const [name, weight] of Object.entries(expected.function_weights ?? {})) {
      if (weights.get(name) !== weight) {
        fail(`speedscope (folded): ${name} weighs ${weights.get(name)}, the trace has ${weight}`);
      }
    }
    if (foldedWeight !== expected.folded_weight) {
      fail(`speedscope (folded): total weight ${foldedWeight}, the trace has ${expected.folded_weight}`);
    }
  }
  return {
    consumer: 'speedscope',
    version: chrome?.speedscope.version,
    chrome_profiles: chromeProfiles,
    folded_weight: foldedWeight,
    warnings: (chrome?.speedscope.warnings.length ?? 0) + (folded?.speedscope.warnings.length ?? 0),
  };
}

const results = [await checkTraceEngine(), await checkSpeedscope()];
for (const result of results) console.log(JSON.stringify(result));
if (failures.length > 0) {
  console.error(failures.join('\n'));
  process.exit(1);
}
