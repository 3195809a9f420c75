// Can the site's Pyodide start the course from a memory snapshot taken after its imports, and
// is that faster than a plain start? (issue 28, section 3, "Beyond it"; bench/README.md.)
//
//   node bench/pyodide_snapshot.mjs [--runs 5] [--index build/site/static/pyodide/]
//
// Needs `make site` (the Pyodide files, numpy and the course's wheel in build/site/). Every
// timed start is a fresh Node.js process; each prints one JSON line that this parent collects.
// Paths timed, each to a first `engine.tensor([1., 2.]).sum()`:
//   floor    loadPyodide, loadPackage(numpy), import numpy, a numpy sum (issue 28's floor)
//   plain    loadPyodide, loadPackage(numpy, the course), import numpy, engine
//   core     restore a snapshot taken right after loadPyodide (no package), then as plain
//   imports  restore a snapshot taken after `import numpy, engine`, with Pyodide's own API
//   relink   the same snapshot, restored with the dynamic libraries (numpy's .so files)
//            instantiated again at the addresses they had, and site-packages written back:
//            an experiment of this script on Pyodide's private internals, not something
//            Pyodide 0.27.7 offers (its API refuses, or restores a state that dies)
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const options = { runs: 5, index: "build/site/static/pyodide/", child: null, snapshot: null, also: "" };
for (let i = 2; i < process.argv.length; i += 2) {
  options[process.argv[i].replace(/^--/, "")] = process.argv[i + 1];
}
// --also IPython: import what the site's kernel imports at start too (pyodide_kernel imports
// IPython), on every path, the floor included
const ALSO = options.also ? `, ${options.also}` : "";
const COURSE_PACKAGES = ["numpy", "autograd-step-by-step"];
const IMPORTS = `import numpy, engine${ALSO}`;
const FIRST_RESULT = "str(engine.tensor([1., 2.]).sum())";
const EXPECTED = "tensor(3.)";
// the floor of issue 28 in Node.js: Pyodide with numpy only (its site loads nothing else)
const FLOOR_PACKAGES = options.also ? ["numpy", "ipython"] : ["numpy"];
const FLOOR_IMPORTS = `import numpy${ALSO}`;
const FLOOR_RESULT = "str(numpy.array([1., 2.]).sum())";
const FLOOR_EXPECTED = "3.0";
const indexURL = resolve(options.index) + "/";

const silent = { stdout: () => {}, stderr: () => {} };
const quietLoad = { messageCallback: () => {}, errorCallback: () => {} };

async function importPyodide() {
  return import(pathToFileURL(indexURL + "pyodide.mjs").href);
}

// ------------------------------------------------------------------ children (one start each)

async function childPlain(packages = COURSE_PACKAGES, imports = IMPORTS, firstResult = FIRST_RESULT) {
  const t0 = performance.now();
  const { loadPyodide } = await importPyodide();
  const pyodide = await loadPyodide({ indexURL, ...silent });
  const started = performance.now();
  await pyodide.loadPackage(packages, quietLoad);
  pyodide.runPython(imports);
  const imported = performance.now();
  const result = pyodide.runPython(firstResult);
  const done = performance.now();
  return { result, total_ms: done - t0, start_ms: started - t0, imports_ms: imported - started,
           first_op_ms: done - imported };
}

async function childFloor() {
  const run = await childPlain(FLOOR_PACKAGES, FLOOR_IMPORTS, FLOOR_RESULT);
  return { ...run, result: run.result === FLOOR_EXPECTED ? EXPECTED : run.result };
}

// The restore path reads the snapshot file inside the timed region: a browser would fetch it.
async function childCore(snapshotPath) {
  const t0 = performance.now();
  const { loadPyodide } = await importPyodide();
  const bytes = new Uint8Array(readFileSync(snapshotPath));
  const pyodide = await loadPyodide({ indexURL, _loadSnapshot: bytes, ...silent });
  const started = performance.now();
  await pyodide.loadPackage(COURSE_PACKAGES, quietLoad);
  pyodide.runPython(IMPORTS);
  const imported = performance.now();
  const result = pyodide.runPython(FIRST_RESULT);
  const done = performance.now();
  return { result, total_ms: done - t0, start_ms: started - t0, imports_ms: imported - started,
           first_op_ms: done - imported };
}

// What loading the course leaves outside linear memory, which a snapshot does not hold:
// the site-packages files (Emscripten's file system lives in JavaScript objects) and, for
// each dynamic library in load order, its path, link flag and the memory/table bases it got.
function recordDynamicLibraries() {
  const loads = [];
  const instantiate = WebAssembly.instantiate;
  WebAssembly.instantiate = async function (source, imports, ...rest) {
    const env = imports?.env;
    const sideModule = env && typeof env.__memory_base === "number";
    const bases = sideModule ? { memoryBase: env.__memory_base, tableBase: env.__table_base } : null;
    const out = await instantiate.call(this, source, imports, ...rest);
    if (bases) loads.push(bases);
    return out;
  };
  return loads;
}

function collectFiles(FS, root) {
  const files = [];
  const walk = (dir) => {
    for (const name of FS.readdir(dir)) {
      if (name === "." || name === "..") continue;
      const path = `${dir}/${name}`;
      const stat = FS.stat(path);
      if (FS.isDir(stat.mode)) walk(path);
      else files.push([path, FS.readFile(path)]);
    }
  };
  walk(root);
  return files;
}

function packFiles(files) {
  const index = files.map(([path, data]) => [path, data.length]);
  const header = Buffer.from(JSON.stringify(index));
  const length = Buffer.alloc(4);
  length.writeUInt32LE(header.length);
  return Buffer.concat([length, header, ...files.map(([, data]) => data)]);
}

function unpackFiles(buffer) {
  const headerLength = buffer.readUInt32LE(0);
  const index = JSON.parse(buffer.subarray(4, 4 + headerLength).toString());
  let offset = 4 + headerLength;
  return index.map(([path, size]) => {
    const data = buffer.subarray(offset, offset + size);
    offset += size;
    return [path, data];
  });
}

async function childMake(kind, snapshotPath) {
  const t0 = performance.now();
  const { loadPyodide } = await importPyodide();
  const bases = kind === "imports" ? recordDynamicLibraries() : [];
  const pyodide = await loadPyodide({ indexURL, _makeSnapshot: true, ...silent });
  const libraries = [];
  if (kind === "imports") {
    const load = pyodide._module.loadDynamicLibrary;
    pyodide._module.loadDynamicLibrary = function (name, flags, ...rest) {
      libraries.push({ name, global: Boolean(flags?.global) });
      return load.call(this, name, flags, ...rest);
    };
    await pyodide.loadPackage(COURSE_PACKAGES, quietLoad);
    pyodide.runPython(IMPORTS);
  }
  let snapshot;
  let pyodideError = null;
  try {
    snapshot = pyodide.makeMemorySnapshot();
  } catch (error) {
    pyodideError = String(error.message ?? error);
    // Pyodide 0.27.7 checks that its table of loaded packages is still the empty object of a
    // fresh start; empty it to see what a snapshot of this state does on restore.
    for (const key of Object.keys(pyodide.loadedPackages)) delete pyodide.loadedPackages[key];
    snapshot = pyodide.makeMemorySnapshot();
  }
  writeFileSync(snapshotPath, snapshot);
  const sitePackages = pyodide.runPython("import site; site.getsitepackages()[0]");
  const files = kind === "imports" ? collectFiles(pyodide.FS, sitePackages) : [];
  if (files.length) writeFileSync(snapshotPath + ".files", packFiles(files));
  // a library's bases are paired with its load by order: both follow Pyodide's one-by-one loads
  if (libraries.length !== bases.length) {
    throw new Error(`${libraries.length} dynamic libraries loaded but ${bases.length} instantiated`);
  }
  const loaded = libraries.map((library, i) => ({ ...library, ...bases[i] }));
  writeFileSync(snapshotPath + ".json", JSON.stringify({ libraries: loaded, sitePackages }));
  return { make_ms: performance.now() - t0, snapshot_bytes: snapshot.length, pyodide_error: pyodideError,
           files: files.length, files_bytes: files.reduce((sum, [, data]) => sum + data.length, 0),
           libraries: loaded.length, bases_recorded: bases.length };
}

async function childImports(snapshotPath) {
  const t0 = performance.now();
  const { loadPyodide } = await importPyodide();
  const bytes = new Uint8Array(readFileSync(snapshotPath));
  const pyodide = await loadPyodide({ indexURL, _loadSnapshot: bytes, ...silent });
  const started = performance.now();
  const modules = pyodide.runPython("import sys; len(sys.modules)");
  const result = pyodide.runPython(FIRST_RESULT);
  return { result, modules, total_ms: performance.now() - t0, start_ms: started - t0 };
}

// Pyodide's loadPyodide restores linear memory (API.restoreSnapshot), then finishes its
// bootstrap in Python. Between the two, instantiate every dynamic library again at the bases
// it had (Emscripten reuses the bases a dlopen handle holds instead of allocating), which also
// rewrites its data segments and runs its constructors; then put the snapshot's memory back.
async function childRelink(snapshotPath, check = false) {
  const t0 = performance.now();
  await import(pathToFileURL(indexURL + "pyodide.asm.js").href);
  const { loadPyodide } = await importPyodide();
  const bytes = new Uint8Array(readFileSync(snapshotPath));
  const { libraries } = JSON.parse(readFileSync(snapshotPath + ".json", "utf8"));
  const files = unpackFiles(readFileSync(snapshotPath + ".files"));
  const create = globalThis._createPyodideModule;
  let relinkMs = 0;
  globalThis._createPyodideModule = async (settings) => {
    const module = await create(settings);
    const restore = module.API.restoreSnapshot;
    module.API.restoreSnapshot = (snapshot) => {
      const state = restore(snapshot);
      const t = performance.now();
      const FS = module.FS;
      for (const [path, data] of files) {
        FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
        FS.writeFile(path, data);
      }
      const memory = module.HEAP8.slice();
      const handle = module._calloc(64, 1);
      for (const { name, global, memoryBase, tableBase } of libraries) {
        module.HEAP8.fill(0, handle, handle + 64);
        module.HEAPU8[handle + 8] = 1;
        module.HEAPU32[(handle + 12) >> 2] = memoryBase;
        module.HEAPU32[(handle + 20) >> 2] = tableBase;
        module.loadDynamicLibrary(name, { loadAsync: false, global, nodelete: true,
                                          allowUndefined: true, fs: FS }, global ? undefined : {}, handle);
        delete module.LDSO.loadedLibsByHandle[handle];
      }
      module.HEAP8.set(memory);
      relinkMs = performance.now() - t;
      return state;
    };
    return module;
  };
  const pyodide = await loadPyodide({ indexURL, _loadSnapshot: bytes, ...silent });
  const started = performance.now();
  const result = pyodide.runPython(FIRST_RESULT);
  const done = performance.now();
  const timing = { result, total_ms: done - t0, start_ms: started - t0, relink_ms: relinkMs,
                  first_op_ms: done - started };
  return check ? { ...timing, checks: await afterRestore(pyodide) } : timing;
}

// What a learner's next cells would do after such a start (untimed): a backward pass, a
// numpy extension module first imported now (dlopen after the restore), and a package that
// was not in the snapshot (Pyodide's loader after the restore).
async function afterRestore(pyodide) {
  const checks = {};
  const attempt = async (name, action) => {
    try { checks[name] = String(await action()); }
    catch (error) { checks[name] = `ERROR ${String(error.message ?? error).trim().split("\n").pop()}`; }
  };
  await attempt("backward", () => pyodide.runPython(
    "import numpy as np; x = engine.tensor(np.arange(6.).reshape(2, 3), requires_grad=True);"
    + "(x * x).sum().backward(); str(x.grad.tolist())"));
  await attempt("new_extension", () => pyodide.runPython(
    "import sys; assert 'numpy._core._rational_tests' not in sys.modules;"
    + "from numpy._core._rational_tests import rational; f'numpy._core._rational_tests: {rational(1, 2) + rational(1, 3)}'"));
  await attempt("matplotlib", async () => {
    await pyodide.loadPackage(["matplotlib"], quietLoad);
    return pyodide.runPython(
      "import io, matplotlib; matplotlib.use('agg'); import matplotlib.pyplot as plt;"
      + "plt.plot([1, 2], [3, 4]); buffer = io.BytesIO(); plt.savefig(buffer, format='png');"
      + "f'png of {len(buffer.getvalue())} bytes'");
  });
  await attempt("random_after_restore", () => pyodide.runPython("import random; str(random.random())"));
  return checks;
}

// ------------------------------------------------------------------ parent

function runChild(child, snapshot) {
  const args = [fileURLToPath(import.meta.url), "--child", child, "--index", indexURL];
  if (snapshot) args.push("--snapshot", snapshot);
  if (options.also) args.push("--also", options.also);
  const run = spawnSync(process.execPath, args, { encoding: "utf8", maxBuffer: 1 << 26 });
  const line = run.stdout.trim().split("\n").filter((text) => text.startsWith("{")).pop();
  if (run.status === 0 && line) return JSON.parse(line);
  const text = `${run.stdout}\n${run.stderr}`;
  const reason = text.split("\n").find((l) => /^(\w*Error|RuntimeError|Pyodide has suffered)/.test(l.trim()))
    ?? text.split("\n").filter((l) => l.trim() && !l.startsWith("var Module")).slice(-1)[0];
  const cause = text.match(/The cause of the fatal error was:\n(.*)/);
  return { error: (cause ? `fatal error: ${cause[1]}` : reason ?? `exit ${run.status}`).trim().slice(0, 300) };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function summarise(name, runs) {
  const failed = runs.filter((run) => run.error || run.result !== EXPECTED);
  if (failed.length) {
    const what = failed[0].error ?? `first result ${JSON.stringify(failed[0].result)}`;
    console.log(`${name.padEnd(8)} FAILS in ${failed.length} of ${runs.length} starts: ${what}`);
    return { name, failed: failed.length, error: what };
  }
  const row = { name, runs: runs.length };
  for (const key of Object.keys(runs[0]).filter((k) => k.endsWith("_ms"))) {
    row[key] = Math.round(median(runs.map((run) => run[key])));
  }
  const spread = runs.map((run) => Math.round(run.total_ms)).sort((a, b) => a - b).join(", ");
  const parts = Object.entries(row).filter(([k]) => k.endsWith("_ms") && k !== "total_ms")
    .map(([k, v]) => `${k.replace("_ms", "")} ${v}`).join(", ");
  console.log(`${name.padEnd(8)} median ${row.total_ms} ms to the first result (${parts}); runs: ${spread}`);
  return row;
}

async function parent() {
  statSync(indexURL + "pyodide.mjs");
  const work = mkdtempSync(join(tmpdir(), "pyodide-snapshot-"));
  const runs = Number(options.runs);
  const report = { pyodide: (await importPyodide()).version, node: process.version, runs,
                   imports: IMPORTS, floor_imports: FLOOR_IMPORTS, rows: [] };
  try {
    const snapshots = {};
    for (const kind of ["core", "imports"]) {
      const path = join(work, `${kind}.bin`);
      const made = runChild(`make-${kind}`, path);
      if (made.error) throw new Error(`making the ${kind} snapshot failed: ${made.error}`);
      snapshots[kind] = path;
      report[`${kind}_snapshot`] = made;
      console.log(`snapshot ${kind}: ${(made.snapshot_bytes / 1e6).toFixed(1)} MB`
        + (made.files ? `, plus site-packages ${made.files} files ${(made.files_bytes / 1e6).toFixed(1)} MB`
          + ` and ${made.libraries} dynamic libraries` : "")
        + (made.pyodide_error ? `; makeMemorySnapshot() first refused: ${made.pyodide_error}` : ""));
    }
    const plans = [["floor", null], ["plain", null], ["core", snapshots.core],
                   ["imports", snapshots.imports], ["relink", snapshots.imports]];
    const results = Object.fromEntries(plans.map(([name]) => [name, []]));
    // interleaved, so that a change in the machine's load touches every path alike
    for (let round = 0; round < runs; round++) {
      for (const [name, snapshot] of plans) results[name].push(runChild(name, snapshot));
    }
    for (const [name] of plans) report.rows.push(summarise(name, results[name]));
    report.after_relink = [runChild("relink-check", snapshots.imports), runChild("relink-check", snapshots.imports)]
      .map((run) => run.checks ?? run);
    for (const [name, value] of Object.entries(report.after_relink[0])) {
      console.log(`after a relinked restore, ${name}: ${value}`);
    }
    const randoms = report.after_relink.map((checks) => checks.random_after_restore);
    console.log(`random.random() in two restored starts: ${randoms.join(" and ")}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  console.log(JSON.stringify(report));
}

const children = { floor: childFloor, plain: () => childPlain(), core: childCore, imports: childImports,
                   relink: (path) => childRelink(path), "relink-check": (path) => childRelink(path, true),
                   "make-core": (path) => childMake("core", path),
                   "make-imports": (path) => childMake("imports", path) };
if (options.child) {
  const measured = await children[options.child](options.snapshot);
  const cpu = process.cpuUsage();
  // CPU time of the whole process (V8 compiles WebAssembly on helper threads): steadier than
  // wall time on a shared machine
  console.log(JSON.stringify({ ...measured, cpu_ms: (cpu.user + cpu.system) / 1000 }));
} else {
  await parent();
}
