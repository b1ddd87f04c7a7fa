// The Chrome DevTools trace engine (@paulirish/trace_engine) run on a trace's events, with
// what it logs (console.error / console.warn) collected instead of printed, so that a test
// can fail on it.
import { analyzeEvents } from './node_modules/@paulirish/trace_engine/analyze-trace.mjs';

// Returns {parsedTrace, logged, error}: the engine's parsed trace (undefined if it threw),
// the messages it logged, and the exception it threw (undefined if none).
export async function analyzeQuietly(events) {
  const logged = [];
  const saved = { error: console.error, warn: console.warn };
  console.error = (...args) => logged.push(args.join(' '));
  console.warn = (...args) => logged.push(args.join(' '));
  try {
    const { data: parsedTrace } = (await analyzeEvents(events)).parsedTrace;
    return { parsedTrace, logged, error: undefined };
  } catch (e) {
    return { parsedTrace: undefined, logged, error: e };
  } finally {
    Object.assign(console, saved);
  }
}
