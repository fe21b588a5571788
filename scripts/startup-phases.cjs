// Loaded with `node --require` by scripts/bench-startup.js (never by mpay itself): the CPU time of each
// phase of one start-up of bin/run.js, written as one JSON line to $MPAY_PHASES_FILE when the process
// exits. It wraps, from outside, what bin/load-cached.js calls (fs.readFileSync, vm.Script and the
// function the script returns) and node:http's request, and times every require() of a package that
// only some commands use.
// CPU time (process.cpuUsage), not the clock: a busy machine moves it much less.
'use strict';
const fs = require('node:fs');
const vm = require('node:vm');
const Module = require('node:module');

const cpu = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};
const atStart = cpu(); // Node's own start-up, up to this preload
const out = { node_ms: atStart, read_ms: 0, packages: {} };
let mark = atStart;
const lap = (key) => {
  const now = cpu();
  out[key] = (out[key] ?? 0) + now - mark;
  mark = now;
};

// bin/run.js up to the bundle: argv, the manifest it reads to tell a command of mpay's from a plugin's
const readFileSync = fs.readFileSync;
fs.readFileSync = function (path, ...rest) {
  const before = cpu();
  const r = readFileSync.call(this, path, ...rest);
  const name = String(path);
  if (/mpay(-exe)?\.cjs$|\.v8cache$/.test(name)) out.read_ms += cpu() - before;
  return r;
};

const Script = vm.Script;
vm.Script = class extends Script {
  constructor(source, options) {
    lap('bin_ms');
    super(source, options);
    out.code_cache = options?.cachedData ? (this.cachedDataRejected ? 'rejected' : 'hit') : 'none';
    lap('compile_ms');
  }
  runInThisContext(...args) {
    const fn = super.runInThisContext(...args);
    return function (...a) {
      mark = cpu();
      const r = fn.apply(this, a);
      lap('evaluate_ms');
      return r;
    };
  }
};

// The packages that only some commands use (scripts/bundle-config.js): SQLite, the keyring's addon, conf,
// fastify, the MCP SDK, ... each with the CPU time of its first require() (0 when it is not loaded).
const heavy =
  /(^|node_modules\/)(libsql|@libsql\/[^/]+|@napi-rs\/keyring|conf|fastify|@modelcontextprotocol\/sdk|@inquirer\/prompts|ajv|tar|libphonenumber-js|csv-parse|cli-table3|cli-progress|qrcode-terminal|@jmespath-community\/jmespath)(\/|$)/;
const load = Module._load;
Module._load = function (request, ...rest) {
  const m = heavy.exec(request.replace(/\\/g, '/'));
  if (!m || out.packages[m[2]] !== undefined) return load.call(this, request, ...rest);
  const before = cpu();
  out.packages[m[2]] = -1;
  try {
    return load.call(this, request, ...rest);
  } finally {
    out.packages[m[2]] = +(cpu() - before).toFixed(1);
  }
};

// The command's request: from the end of the bundle's evaluation to the request is oclif (its Config, the
// manifest, the flags), the Factory and the command's context, and got loaded; then the request and its
// answer; then the output and the exit.
let patched = false;
const loadHttp = Module._load;
Module._load = function (request, ...rest) {
  const mod = loadHttp.call(this, request, ...rest);
  if (!patched && (request === 'node:http' || request === 'http')) {
    patched = true;
    const send = mod.request;
    mod.request = function (...a) {
      lap('command_ms');
      const req = send.apply(this, a);
      req.once('response', (res) => res.once('end', () => lap('request_ms')));
      return req;
    };
  }
  return mod;
};

process.on('exit', () => {
  lap('output_ms');
  out.total_ms = cpu();
  for (const k of Object.keys(out)) if (typeof out[k] === 'number') out[k] = +out[k].toFixed(1);
  fs.appendFileSync(process.env.MPAY_PHASES_FILE, `${JSON.stringify(out)}\n`);
});
