// Checks OTLP/JSON trace requests against the official OpenTelemetry protobuf schema: the
// protobufjs code generated from opentelemetry-proto that @opentelemetry/otlp-transformer
// ships (build/src/generated/root.js).
//
//   node otlp_schema_check.mjs FILE...
//
// Each FILE holds JSON lines, each line one ExportTraceServiceRequest as OTLP/JSON writes it
// (the OTLP file format; also what an OTLP/HTTP receiver records, one body per line). For
// every line:
//   * the OTLP/JSON differences from protobuf's canonical JSON mapping are undone: trace and
//     span ids are hex strings in OTLP/JSON and base64 for protobufjs;
//   * ExportTraceServiceRequest.fromObject builds the message and verify() must accept it;
//   * the message survives encode/decode, and toObject of the decoded message equals the
//     input (ids, 64-bit integers and enums compared in one spelling): a member the schema
//     does not know, or a value fromObject had to coerce, is an error;
//   * ids have their sizes (16 and 8 bytes) and are not all zero, start <= end.
// A line that holds an ExportMetricsServiceRequest (gauge samples, {"resourceMetrics":…})
// is checked the same way against that message, and its Gauge data points counted (each
// with a time and a value).
// Prints one line per file and a last line {"requests":N,"spans":N,"metric_requests":N,
// "data_points":N,"files":N}; exits 1 at the first 20 problems (all printed), 0 if
// everything passed.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';

const require = createRequire(import.meta.url);
const root = require('@opentelemetry/otlp-transformer/build/src/generated/root.js');
const Request = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
const MetricsRequest = root.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;

const kIdFields = new Set(['traceId', 'spanId', 'parentSpanId']);
const problems = [];
let requests = 0;
let spans = 0;
let metricRequests = 0;
let dataPoints = 0;

function problem(where, message) {
  problems.push(`${where}: ${message}`);
  if (problems.length >= 20) finish();
}

// OTLP/JSON -> the protobuf JSON mapping protobufjs reads: hex ids become base64.
function toProtobufJson(value, where) {
  if (Array.isArray(value)) return value.map((v) => toProtobufJson(v, where));
  if (value === null || typeof value !== 'object') return value;
  const out = {};
  for (const [key, member] of Object.entries(value)) {
    if (kIdFields.has(key) && typeof member === 'string') {
      if (!/^([0-9a-f]{2})*$/.test(member)) problem(where, `${key} "${member}" is not lowercase hex`);
      out[key] = Buffer.from(member, 'hex').toString('base64');
    } else {
      out[key] = toProtobufJson(member, where);
    }
  }
  return out;
}

// Drops empty arrays and objects (toObject leaves out repeated fields that are empty).
function normalize(value) {
  if (Array.isArray(value)) return value.map(normalize);
  if (value === null || typeof value !== 'object') return value;
  const out = {};
  for (const key of Object.keys(value).sort()) {
    const member = normalize(value[key]);
    if (Array.isArray(member) && member.length === 0) continue;
    if (member !== null && typeof member === 'object' && !Array.isArray(member) &&
        Object.keys(member).length === 0) {
      continue;
    }
    out[key] = member;
  }
  return out;
}

// The first path where `a` and `b` differ, or null.
function firstDifference(a, b, path = '') {
  if (typeof a !== typeof b || Array.isArray(a) !== Array.isArray(b)) {
    return `${path || '.'}: ${JSON.stringify(a)} became ${JSON.stringify(b)}`;
  }
  if (a === null || typeof a !== 'object') {
    return a === b ? null : `${path || '.'}: ${JSON.stringify(a)} became ${JSON.stringify(b)}`;
  }
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) {
    if (!(key in b)) return `${path}.${key}: not in the schema (dropped by fromObject)`;
    if (!(key in a)) return `${path}.${key}: added by the round trip`;
    const d = firstDifference(a[key], b[key], `${path}.${key}`);
    if (d) return d;
  }
  return null;
}

function checkIds(message, where) {
  for (const rs of message.resourceSpans) {
    for (const ss of rs.scopeSpans) {
      for (const span of ss.spans) {
        ++spans;
        const name = `${where} span "${span.name}"`;
        if (span.traceId.length !== 16) problem(name, `traceId has ${span.traceId.length} bytes`);
        if (span.spanId.length !== 8) problem(name, `spanId has ${span.spanId.length} bytes`);
        if (span.traceId.every((b) => b === 0)) problem(name, 'traceId is all zero');
        if (span.spanId.every((b) => b === 0)) problem(name, 'spanId is all zero');
        if (span.parentSpanId && span.parentSpanId.length !== 0 && span.parentSpanId.length !== 8) {
          problem(name, `parentSpanId has ${span.parentSpanId.length} bytes`);
        }
        if (BigInt(span.startTimeUnixNano.toString()) > BigInt(span.endTimeUnixNano.toString())) {
          problem(name, 'starts after it ends');
        }
      }
    }
  }
}

function checkLine(text, where) {
  let input;
  try {
    input = JSON.parse(text);
  } catch (e) {
    problem(where, `not JSON: ${e.message}`);
    return;
  }
  if (input !== null && typeof input === 'object' && 'resourceMetrics' in input) {
    checkMetricsLine(input, where);
    return;
  }
  ++requests;
  const object = toProtobufJson(input, where);
  let message;
  try {
    message = Request.fromObject(object);
  } catch (e) {
    problem(where, `fromObject: ${e.message}`);
    return;
  }
  const error = Request.verify(message);
  if (error) {
    problem(where, `verify: ${error}`);
    return;
  }
  const decoded = Request.decode(Request.encode(message).finish());
  const back = Request.toObject(decoded, { longs: String, enums: Number, bytes: String });
  const difference = firstDifference(normalize(object), normalize(back));
  if (difference) problem(where, `does not survive the schema: ${difference}`);
  if (!Array.isArray(input.resourceSpans) || input.resourceSpans.length === 0) {
    problem(where, 'no resourceSpans');
  }
  checkIds(decoded, where);
}

// An ExportMetricsServiceRequest line: the same schema round trip; every metric a Gauge
// whose data points have a time and an integer or double value.
function checkMetricsLine(input, where) {
  ++metricRequests;
  let message;
  try {
    message = MetricsRequest.fromObject(input);
  } catch (e) {
    problem(where, `fromObject: ${e.message}`);
    return;
  }
  const error = MetricsRequest.verify(message);
  if (error) {
    problem(where, `verify: ${error}`);
    return;
  }
  const decoded = MetricsRequest.decode(MetricsRequest.encode(message).finish());
  const back = MetricsRequest.toObject(decoded, { longs: String, enums: Number, bytes: String });
  const difference = firstDifference(normalize(input), normalize(back));
  if (difference) problem(where, `does not survive the schema: ${difference}`);
  if (!Array.isArray(input.resourceMetrics) || input.resourceMetrics.length === 0) {
    problem(where, 'no resourceMetrics');
  }
  for (const rm of decoded.resourceMetrics) {
    for (const sm of rm.scopeMetrics) {
      for (const metric of sm.metrics) {
        if (!metric.gauge) {
          problem(`${where} metric "${metric.name}"`, 'not a Gauge');
          continue;
        }
        for (const point of metric.gauge.dataPoints) {
          ++dataPoints;
          if (BigInt(point.timeUnixNano.toString()) === 0n) problem(`${where} metric "${metric.name}"`, 'a point without a time');
          if (point.value === undefined && point.asInt === undefined && point.asDouble === undefined) {
            problem(`${where} metric "${metric.name}"`, 'a point without a value');
          }
        }
      }
    }
  }
}

function finish() {
  for (const p of problems) console.log(`problem: ${p}`);
  console.log(JSON.stringify({ requests, spans, metric_requests: metricRequests,
                               data_points: dataPoints, files: process.argv.length - 2 }));
  process.exit(problems.length === 0 ? 0 : 1);
}

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: node otlp_schema_check.mjs FILE...');
  process.exit(2);
}
for (const file of files) {
  const before = { requests, spans };
  const lines = readFileSync(file, 'utf8').split('\n');
  lines.forEach((line, index) => {
    if (line.trim() !== '') checkLine(line, `${file}:${index + 1}`);
  });
  console.log(`${file}: ${requests - before.requests} requests, ${spans - before.spans} spans`);
}
finish();
