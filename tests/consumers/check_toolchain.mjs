// Prints the name and version of each consumer package as installed, and fails if one
// cannot be loaded; run by node_runner_test.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
for (const name of ['@paulirish/trace_engine', 'speedscope', '@opentelemetry/otlp-transformer']) {
  const manifest = JSON.parse(readFileSync(join(here, 'node_modules', name, 'package.json'), 'utf8'));
  console.log(`${name} ${manifest.version}`);
}
// The OpenTelemetry schema module must load (protobufjs generated code).
require('@opentelemetry/otlp-transformer/build/src/generated/root.js');
