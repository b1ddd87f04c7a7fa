// Runs speedscope's own file importer (the code behind "Browse" and `npx speedscope FILE`) in
// Node.
//
// The speedscope package ships only its browser bundle (dist/release/speedscope-*.js), not
// its TypeScript sources or a library entry point. The bundle is one esbuild IIFE: the
// importer module (src/import/index.ts) is a lazily initialised namespace object,
// `var NS={};EXPORT(NS,{importFromFileSystemDirectoryEntry:...,importProfileGroupFromText:...})`,
// set up by an init function the app calls as `(INIT(),NS)`. Its minified names change from
// build to build, so they are found by those two patterns (the export names are not minified).
// The bundle's last statement mounts the UI into document.body; it is replaced by one that
// hands the namespace out. The code then runs in a vm context with the few browser globals
// its module initialisers touch. Every console.warn of the importer (speedscope reports
// unmatched or unclosed frames that way) is collected.
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

function escapeRegExp(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// Returns { importProfileGroupFromText(fileName, text), logs, warnings, version }.
export function loadSpeedscopeImporter() {
  const packageDir = path.join(here, 'node_modules', 'speedscope');
  const version = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8')).version;
  const releaseDir = path.join(packageDir, 'dist', 'release');
  const bundleName = fs.readdirSync(releaseDir).find((f) => /^speedscope-[A-Z0-9]+\.js$/.test(f));
  if (!bundleName) throw new Error(`no speedscope-*.js bundle in ${releaseDir}`);
  let source = fs.readFileSync(path.join(releaseDir, bundleName), 'utf8');

  const namespace = source.match(
      /var ([\w$]+)=\{\};[\w$]+\(\1,\{importFromFileSystemDirectoryEntry:/);
  if (!namespace) throw new Error(`speedscope ${version}: importer namespace not found in ${bundleName}`);
  const ns = namespace[1];
  const init = source.match(new RegExp(`\\(([\\w$]+)\\(\\),${escapeRegExp(ns)}\\)`));
  if (!init) throw new Error(`speedscope ${version}: importer initialiser not found in ${bundleName}`);
  const mount = source.lastIndexOf('console.log(`speedscope v');
  if (mount < 0) throw new Error(`speedscope ${version}: UI mount statement not found in ${bundleName}`);
  source = source.slice(0, mount) + `globalThis.__speedscopeImporter=()=>(${init[1]}(),${ns});})();`;

  const logs = [];
  const warnings = [];
  const errors = [];
  const context = {
    console: {
      log: (...args) => logs.push(args.join(' ')),
      info: (...args) => logs.push(args.join(' ')),
      warn: (...args) => warnings.push(args.join(' ')),
      error: (...args) => errors.push(args.join(' ')),
    },
    setTimeout, clearTimeout, TextDecoder, TextEncoder, URL, atob, btoa,
    location: { hash: '', search: '', href: 'file:///', protocol: 'file:' },
    navigator: { userAgent: 'node', platform: 'linux' },
    addEventListener: () => {},
  };
  context.window = context;
  context.self = context;
  vm.createContext(context);
  vm.runInContext(source, context, { filename: bundleName });
  const importer = context.__speedscopeImporter();
  return {
    importProfileGroupFromText: (fileName, text) => importer.importProfileGroupFromText(fileName, text),
    logs, warnings, errors, version,
  };
}
